"""The board properties `set` and `change` may write (builtins.board.SETTABLE_PROPERTIES) are the
ones the checker accepts, with the same types and verbs."""

from pathlib import Path

import pytest

from ruleslang.base.diagnostics import Severity
from ruleslang.lang import types as T
from ruleslang.lang.builtins.board import SETTABLE_PROPERTIES
from ruleslang.workspace.compositions import Workspace

# the loop variable each property is read of, and a value of each type a property holds
ARGUMENT = {"treasury": "p", "hits": "u"}
VALUE = {T.INT: "1", T.PLAYER: "p", T.OptionalType(T.PLAYER): "controller(s)", T.TEXT: '"x"'}


def _errors(tmp_path, effect: str) -> list[str]:
    source = ("ruleset t/case@1\nphase x:\n    for p in players():\n        for s in spaces():\n"
              "            for u in units(s):\n"
              f"                {effect}\n")
    (tmp_path / "t").mkdir()
    (tmp_path / "t" / "case@1.rules").write_text(source, encoding="utf-8")
    loaded = Workspace([tmp_path, Path(__file__).parent / "rulesets"]).load(["t/case@1"])
    return [d.code for d in loaded.diagnostics if d.severity is Severity.ERROR]


@pytest.mark.parametrize("name", sorted(SETTABLE_PROPERTIES))
def test_set_takes_a_value_of_the_property_type(name, tmp_path):
    prop = SETTABLE_PROPERTIES[name]
    assert "set" in prop.verbs
    assert _errors(tmp_path, f"set {name}({ARGUMENT.get(name, 's')}) to {VALUE[prop.type]}") == []


@pytest.mark.parametrize("name", sorted(SETTABLE_PROPERTIES))
def test_set_refuses_a_value_of_another_type(name, tmp_path):
    assert "T301" in _errors(tmp_path, f"set {name}({ARGUMENT.get(name, 's')}) to true")


@pytest.mark.parametrize("name", sorted(SETTABLE_PROPERTIES))
def test_change_is_allowed_for_the_properties_that_say_so(name, tmp_path):
    errors = _errors(tmp_path, f"change {name}({ARGUMENT.get(name, 's')}) by 1")
    if "change" in SETTABLE_PROPERTIES[name].verbs:
        assert errors == []
    else:
        assert errors == ["T324"]
