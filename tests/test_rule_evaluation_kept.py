"""What rule evaluation keeps between calls equals what it works out afresh: the set of a side's
players (`members`), made once a side."""

from __future__ import annotations

from ruleslang.board.queries import BoardQueries
from ruleslang.board.state import GameState
from ruleslang.lang.eval.context import EvalContext
from ruleslang.lang.eval.host import Host
from ruleslang.lang.values import LSet
from ruleslang.binding.bind import load_scenario_for_map

from conftest import load

RULES = """
    ruleset k/kept@1
    map "aar"
    side Pair: Japanese, Russians
    formula of_side(s: side) -> set of player = members(s)
    formula in_side(p: player, s: side) -> bool = p in members(s)
"""


def test_a_sides_players_are_the_set_made_afresh(tmp_path):
    ws, loaded = load(tmp_path, {"k/kept@1": RULES}, "k/kept@1")
    assert loaded.ok, loaded.diagnostics
    state = GameState.from_scenario(load_scenario_for_map("aar", ws.roots))
    ctx = EvalContext(loaded.compiled, Host(0), state=state, board=BoardQueries(state))
    fn = loaded.compiled.callable
    sides = list(ctx.side_values.values())
    assert len(sides) >= 3  # the map's sides and the one declared here
    for s in sides:
        fresh = LSet.of_enums(ctx.side_members(s.name))
        first = fn("of_side")(ctx, s)
        assert first == fresh and first.items == fresh.items  # the same players, in the same order
        assert len(first) > 0
        assert fn("of_side")(ctx, s) is first  # kept: not made again
        for p in ctx.player_values.values():
            assert fn("in_side")(ctx, p, s) is (p in fresh.items)
    pair = fn("of_side")(ctx, ctx.side_values["Pair"])
    assert [p.name for p in pair] == ["Russians", "Japanese"]  # in the players' order
