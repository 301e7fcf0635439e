"""The compiler's fused fast paths (board queries read straight from the state, `sum(... where
controller(x) == p)`, two-number min / max) give the same answers as the general forms they
stand for, on every territory and player of the Revised board, none included."""

from __future__ import annotations

from ruleslang.board.queries import BoardQueries
from ruleslang.board.state import GameState
from ruleslang.lang.eval.context import EvalContext
from ruleslang.lang.eval.host import Host
from ruleslang.binding.bind import load_scenario_for_map

from conftest import load

RULES = """
    ruleset f/fast@1
    map "aar"
    space attribute ipc: int = 0
    # fused: the condition and the element read the board straight
    formula owned_ipcs(p: player?) -> int = sum(x.ipc for x in territories() where controller(x) == p)
    # general: the same, through forms the compiler does not fuse
    formula owned_ipcs_slow(p: player?) -> int = sum(x.ipc + 0 for x in territories() where (controller(x) == p) == true)
    formula holder(t: territory) -> player? = controller(t)
    formula holder_slow(t: territory) -> player? = if true then controller(t) else none
    formula same_holder(t: territory, p: player?) -> bool = controller(t) == p
    formula same_holder_slow(t: territory, p: player?) -> bool = (if true then controller(t) else none) == p
    formula value(t: territory) -> int = t.ipc
    formula value_slow(t: territory) -> int = (if true then t else t).ipc
    formula smaller(a: int, b: int) -> int = min(a, b)
    formula larger(a: int, b: int) -> int = max(a, b)
    formula smaller_slow(a: int, b: int) -> int = min([a, b])
    formula larger_slow(a: int, b: int) -> int = max([a, b])
    formula joined(t: territory, p: player) -> set of space = connected(t, y => allied(controller(y), p))
    formula joined_slow(t: territory, p: player) -> set of space = \
        set_of([x for x in connected(t, y => allied(controller(y), p) and true)])
"""


def test_fused_forms_agree_with_the_general_ones(tmp_path):
    ws, loaded = load(tmp_path, {"f/fast@1": RULES}, "f/fast@1")
    assert loaded.ok, loaded.diagnostics
    state = GameState.from_scenario(load_scenario_for_map("aar", ws.roots))
    state.set_control("Anglo Egypt", None)  # a territory no one holds (2 IPCs)
    ctx = EvalContext(loaded.compiled, Host(0), state=state, board=BoardQueries(state))
    fn = loaded.compiled.callable
    players = [None] + [ctx.player_values[p] for p in state.map.player_names()]
    for p in players:
        assert fn("owned_ipcs")(ctx, p) == fn("owned_ipcs_slow")(ctx, p)
    assert fn("owned_ipcs")(ctx, ctx.player_values["British"]) == 30 - 2
    assert fn("owned_ipcs")(ctx, None) > 0
    for name in state.map.space_names("land"):
        t = ctx.space_values[name]
        assert fn("holder")(ctx, t) == fn("holder_slow")(ctx, t)
        assert fn("value")(ctx, t) == fn("value_slow")(ctx, t)
        for p in players:
            assert fn("same_holder")(ctx, t, p) is fn("same_holder_slow")(ctx, t, p)
    for a, b in [(1, 2), (2, 1), (-3, 3), (5, 5)]:
        assert fn("smaller")(ctx, a, b) == fn("smaller_slow")(ctx, a, b) == min(a, b)
        assert fn("larger")(ctx, a, b) == fn("larger_slow")(ctx, a, b) == max(a, b)


def test_connected_answers_from_the_board_cache_follow_the_state(tmp_path):
    ws, loaded = load(tmp_path, {"f/fast@1": RULES}, "f/fast@1")
    assert loaded.ok, loaded.diagnostics
    state = GameState.from_scenario(load_scenario_for_map("aar", ws.roots))
    ctx = EvalContext(loaded.compiled, Host(0), state=state, board=BoardQueries(state))
    fn = loaded.compiled.callable

    def both(t, p):
        args = (ctx.space_values[t], ctx.player_values[p])
        return fn("joined")(ctx, *args), fn("joined_slow")(ctx, *args)

    for _ in range(2):                     # the second time from the cache
        for t in ("India", "Germany", "Russia", "United Kingdom"):
            for p in ("British", "Germans", "Russians"):
                fast, slow = both(t, p)
                assert fast == slow
    before, _ = both("India", "British")
    state.set_control("Persia", "Germans")      # cuts India off from the Middle East
    after, slow = both("India", "British")
    assert after == slow and after != before
    assert ctx.space_values["Persia"] in before and ctx.space_values["Persia"] not in after
