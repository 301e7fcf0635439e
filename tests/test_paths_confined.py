"""A path a user wrote in a file is resolved relative to that file and must stay inside the roots
(base/paths.py `confined`, used by the ruleset and map loaders; `inside`, by every such test)."""

from __future__ import annotations

import pytest

from ruleslang.base.diagnostics import DiagnosticError
from ruleslang.base.paths import confined, inside


@pytest.fixture
def roots(tmp_path):
    (tmp_path / "rules" / "family").mkdir(parents=True)
    (tmp_path / "rules2").mkdir()
    return tmp_path


def test_a_path_inside_a_root_is_resolved_relative_to_its_file(roots):
    here = roots / "rules" / "family"
    assert confined("../other/x.rules", [roots / "rules"], "a ruleset path", relative_to=here) \
        == (roots / "rules" / "other" / "x.rules")
    assert confined(str(roots / "rules"), [roots / "rules"], "a ruleset path") == roots / "rules"


def test_a_path_that_climbs_out_or_only_shares_a_prefix_is_outside(roots):
    here = roots / "rules" / "family"
    assert confined("../../rules2/x.rules", [roots / "rules"], "a ruleset path", relative_to=here) is None
    assert not inside((roots / "rules2" / "x.rules").resolve(), [roots / "rules"])
    assert inside((roots / "rules2" / "x.rules").resolve(), [roots / "rules", roots / "rules2"])


def test_a_nul_is_refused_where_it_is_written(roots):
    with pytest.raises(DiagnosticError) as caught:
        confined("a\0b.rules", [roots], "a ruleset path")
    assert [d.code for d in caught.value.diagnostics] == ["D613"]
    assert "a ruleset path cannot hold a NUL character" in caught.value.diagnostics[0].message
