"""A decision's logged context (`runtime/game.py` `offered`) is worked out in one pass over each
value (`_plain_json`): it must be what asking whether the value is plain data and then encoding
it gave (the long way, kept here), for odd values and for every decision of a game."""

from __future__ import annotations

from fractions import Fraction

from conftest import record_calls
from game_fixtures import make_game
from ruleslang.runtime import game as game_module
from ruleslang.runtime.decisions import Decision
from ruleslang.runtime.game import encode_answer, offered


def _plain(value) -> bool:
    """Whether a value is JSON data as it is (numbers, text, lists and maps of them): the check
    `offered` made before encoding a context value."""
    if value is None or isinstance(value, (bool, int, str)):
        return True
    if isinstance(value, (list, tuple)):
        return all(_plain(v) for v in value)
    if isinstance(value, dict):
        return all(isinstance(k, (str, int)) and _plain(v) for k, v in value.items())
    return False


def _offered_long(decision: Decision) -> dict:
    out = {}
    if decision.options:
        out["options"] = [encode_answer(o) for o in decision.options]
    if decision.kind in ("choose", "casualties"):
        out["mode"] = decision.mode
        out["count"] = decision.count
    for name, value in decision.context.items():
        if _plain(value):
            out[name] = encode_answer(value)
    return out


class _Number(int):
    """An int that is not exactly an int (encode_answer does not take it as it is)."""


def test_odd_context_values_are_logged_as_the_long_way_logs_them():
    values = {
        "none": None, "flag": True, "number": 3, "text": "Karelia", "sub": _Number(4),
        "list": [1, "a", None, [2, (3, False)]], "tuple": ("x", ("y", 1)),
        "map": {"a": 1, 2: [3, {"b": None}], "c": ("d",)},
        "bad_key": {("a",): 1}, "fraction": Fraction(1, 2), "nested_bad": [1, [2, object()]],
        "map_bad": {"a": {"b": object()}}, "object": object(), "empty": [], "empty_map": {},
        "bool_key": {True: 1, 1: 2},
    }
    decision = Decision("choose", "Germans", "?", options=["a", "b"], mode="one", count=1, context=values)
    found = offered(decision)
    assert found == _offered_long(decision)
    assert "fraction" not in found and "nested_bad" not in found and "sub" in found and "map" in found


def test_every_decision_of_a_game_is_logged_as_the_long_way_logs_it(monkeypatch):
    seen = {"decisions": 0, "context": 0}
    real = game_module.offered

    def compared(decision):
        got = real(decision)
        assert got == _offered_long(decision), decision.kind
        seen["decisions"] += 1
        seen["context"] += len(got)
        return got
    monkeypatch.setattr(game_module, "offered", compared)
    g = make_game(["aar/house-rules@1"], default_agent="heuristic", seed=3, rounds=2)
    g.run(2)
    assert seen["decisions"] > 100 and seen["context"] > 100, seen


def test_values_of_types_never_plain_are_passed_over_once_met(monkeypatch):
    class Engine:
        """A context value of a type that is never JSON data (as the movement engine is)."""
    context = {"engine": Engine(), "check": len, "fraction": Fraction(1, 2), "sub": _Number(4),
               "bad_list": [object()], "bad_map": {"a": object()}, "money": 3}
    decision = Decision("choose", "Germans", "?", options=["a"], mode="one", count=1, context=context)
    first = offered(decision)
    asked = record_calls(monkeypatch, game_module, "_plain_json", lambda value: type(value))
    again = offered(decision)
    assert first == again == _offered_long(decision)
    assert {Engine, type(len), Fraction}.isdisjoint(asked)  # met once: passed over since
    # values of types that may be plain data another time are looked at each time
    assert {_Number, list, dict, int} <= set(asked)
