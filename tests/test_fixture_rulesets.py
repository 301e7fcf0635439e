"""Every fixture ruleset checks clean and passes its own rule tests."""

import pytest

from ruleslang.base.diagnostics import has_errors
from ruleslang.workspace.compositions import Workspace
from ruleslang.ruletests.runner import TestRunner

from conftest import FIXTURES

REFS = [f"{p.parent.name}/{p.stem}" for p in sorted(FIXTURES.glob("*/*.rules"))]


@pytest.mark.parametrize("ref", REFS)
def test_fixture_ruleset_checks_and_passes(ref):
    ws = Workspace([FIXTURES])
    loaded = ws.load([ref])
    assert not has_errors(loaded.diagnostics), loaded.diagnostics
    results = TestRunner(ws).run(loaded)
    failures = [(r.title, r.message, r.expected, r.actual) for r in results if r.status != "pass"]
    assert not failures
