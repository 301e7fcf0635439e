"""The checker receives the host runtime's capabilities; without them, what needs a host is R232, never a crash."""

from __future__ import annotations

import pytest

from ruleslang.base.diagnostics import Severity
from ruleslang.lang.check.capabilities import Capabilities
from ruleslang.lang.check.checker import STAGES, check_ruleset
from ruleslang.runtime.registry import CAPABILITIES
from ruleslang.workspace.compositions import Workspace
from conftest import write_rulesets

RULES = """\
ruleset t/host@1
phase buy: runtime purchase with {cost: u => 1}
counter n -> int
constraint guard on purchase(p, units):
    require n >= 0
test "actions":
    expect allowed purchase(1, 2)
"""


def _ruleset(tmp_path):
    write_rulesets(tmp_path, {"t/host@1": RULES})
    return Workspace([tmp_path]).composer.compose(["t/host@1"])


def _lines(program) -> list[tuple[str, int, str]]:
    return [(d.code, d.span.line, d.span.text) for d in program.diagnostics]


def test_without_a_host_runtime_procedures_and_actions_are_r232(tmp_path):
    program = check_ruleset(_ruleset(tmp_path), None, Capabilities.none())
    assert _lines(program) == [("R232", 2, "purchase"), ("R232", 4, "purchase"), ("R232", 7, "purchase")]
    first = program.diagnostics[0]
    assert first.severity is Severity.ERROR
    assert first.message.startswith("expected a phase with a body of statements, found 'runtime purchase'")
    assert program.capabilities == Capabilities.none()


def test_with_the_runtime_capabilities_runtime_phases_and_actions_check(tmp_path):
    program = check_ruleset(_ruleset(tmp_path), None, CAPABILITIES)
    # only the test's values are wrong (numbers where a player and units are expected)
    assert {code for code, _, _ in _lines(program)} == {"T301"}
    assert program.capabilities is CAPABILITIES


def test_capabilities_are_read_only():
    caps = Capabilities({"p": ("does p", {})}, {"p": ()}, {})
    with pytest.raises(TypeError):
        caps.procedures["q"] = ("does q", {})
    assert caps.describe("p") == "does p"
    assert caps.hosted and not Capabilities.none().hosted


def test_the_runtime_capabilities_are_consistent():
    for name, settings in CAPABILITIES.required.items():
        assert name in CAPABILITIES.procedures
        assert set(settings) <= set(CAPABILITIES.procedures[name][1])
    for name, example in CAPABILITIES.examples.items():
        assert example.startswith(f"runtime {name} with ")


def test_stages_are_named_once():
    names = [stage.name for stage in STAGES]
    assert len(names) == len(set(names))
