"""What rule evaluation keeps between calls equals what it works out afresh: the set of a side's
players (`members`), made once a side."""

from __future__ import annotations

import pytest

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
    table places(k: int) -> (territory: territory, n: int):
        1 -> "Germany", 1
        2 -> "Japan", 2
    # a row's territory, its holder asked straight from the state (a field, not a local)
    formula holders(s: side) -> int = count(r for r in rows(places) where controller(r.territory) in members(s))
    formula holders_slow(s: side) -> int = count(r for r in rows(places) where (if true then controller(r.territory) else none) in members(s))
"""


@pytest.mark.parametrize("backend", ["codegen", "closures"])
def test_a_sides_players_are_the_set_made_afresh(backend, tmp_path, monkeypatch):
    monkeypatch.setenv("RULESLANG_EVAL", backend)
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
        assert loaded.compiled.side_member_lookups()[s.name] == frozenset(fresh.items)
        assert loaded.compiled.side_member_sets()[s.name] is first
        for p in ctx.player_values.values():
            assert fn("in_side")(ctx, p, s) is (p in fresh.items)
        assert fn("holders")(ctx, s) == fn("holders_slow")(ctx, s)
    assert fn("holders")(ctx, ctx.side_values["Axis"]) == 2
    state.set_control("Japan", "Russians")
    assert fn("holders")(ctx, ctx.side_values["Axis"]) == 1  # the state read as it is now
    assert fn("holders")(ctx, ctx.side_values["Pair"]) == 1
    if backend == "codegen":  # the set, the table's constant rows and who holds them read in line
        from ruleslang.lang.builtins.registry import REGISTRY
        used = fn("holders").__globals__.values()
        assert all(REGISTRY[b].impl not in used for b in ("members", "rows", "controller"))
    pair = fn("of_side")(ctx, ctx.side_values["Pair"])
    assert [p.name for p in pair] == ["Russians", "Japanese"]  # in the players' order


TAGS = """
    ruleset k/tags@1
    tag land, sea
    unit boat "Boat":
        tags: sea
    unit foot "Foot":
        tags: land
    formula at_sea(t: unittype) -> bool = has_tag(t, sea)
    formula any_at_sea(list: list of unittype) -> int = count(u for u in list where has_tag(u, sea))
"""


def test_a_unit_types_tag_is_looked_up_in_line_with_the_builtins_answer(tmp_path):
    from ruleslang.lang.builtins.registry import REGISTRY
    from ruleslang.lang.eval.program import CompiledProgram
    ws, loaded = load(tmp_path, {"k/tags@1": TAGS}, "k/tags@1")
    assert loaded.ok, loaded.diagnostics
    programs = {b: CompiledProgram(loaded.program, backend=b) for b in ("codegen", "closures")}
    generated = programs["codegen"].callable("at_sea")
    assert REGISTRY["has_tag"].impl not in generated.__globals__.values()  # in line, not the built-in
    answers = {}
    for backend, compiled in programs.items():
        ctx = EvalContext(compiled, Host(0))
        types = [ctx.unittype_values[n] for n in sorted(ctx.unittype_values)]
        answers[backend] = ([compiled.callable("at_sea")(ctx, t) for t in types],
                            compiled.callable("any_at_sea")(ctx, tuple(types * 2)))
    assert answers["codegen"] == answers["closures"] == ([True, False], 2)


ATTRIBUTES = """
    ruleset k/attrs@1
    attribute cost: int = 3
    attribute power: int = 1
    option boost: int = 2
    unit boat "Boat":
        cost: 8
        power: 1 + boost
    unit foot "Foot":
        power: 2
    formula cost_of(t: unittype) -> int = t.cost
    formula power_of(t: unittype) -> int = t.power
"""


@pytest.mark.parametrize("boost", [2, 5])
def test_constant_unit_attributes_are_read_from_the_programs_table(boost, tmp_path):
    from ruleslang.lang.eval.program import CompiledProgram
    ws, loaded = load(tmp_path, {"k/attrs@1": ATTRIBUTES}, "k/attrs@1")
    assert loaded.ok, loaded.diagnostics
    compiled = CompiledProgram(loaded.program, backend="codegen")
    assert compiled.unit_attribute_constants("cost") == {"boat": 8, "foot": 3}
    assert compiled.unit_attribute_constants("power") == {"foot": 2}  # the boat's reads an option
    answers = {}
    for backend in ("codegen", "closures"):
        program = CompiledProgram(loaded.program, backend=backend)
        ctx = EvalContext(program, Host(0), options={"boost": boost})
        types = [ctx.unittype_values[n] for n in ("boat", "foot")]
        fresh = [[program.unit_attribute(ctx, t.name, a) for t in types] for a in ("cost", "power")]
        answers[backend] = [[program.callable(f"{a}_of")(ctx, t) for t in types] for a in ("cost", "power")]
        assert answers[backend] == fresh
    assert answers["codegen"] == answers["closures"] == [[8, 3], [1 + boost, 2]]


def test_a_context_sharing_anothers_sets_of_spaces_gives_the_sets_made_afresh(tmp_path):
    # a look-ahead's copy of a game keeps its sets of spaces in its game's memo (session 12):
    # each set the same as a context of its own makes, the game's own set found by the copy;
    # a context of another program keeps its own
    ws, loaded = load(tmp_path, {"k/kept@1": RULES}, "k/kept@1")
    assert loaded.ok, loaded.diagnostics
    state = GameState.from_scenario(load_scenario_for_map("aar", ws.roots))

    def context():
        return EvalContext(loaded.compiled, Host(0), state=state, board=BoardQueries(state))
    game, copy_, alone = context(), context(), context()
    land = game.spaces(game.board.spaces("land"))
    copy_.share_space_sets(game)
    assert copy_.spaces(copy_.board.spaces("land")) is land
    names = ("Japan", "Germany", "Japan")
    made = copy_.spaces(names)
    assert game.spaces(list(names)) is made  # made by the copy, found by the game
    for shared, own in ((land, alone.spaces(alone.board.spaces("land"))), (made, alone.spaces(names))):
        assert shared is not own and shared.items == own.items and shared == own
    _, other = load(tmp_path / "other", {"k/kept@1": RULES}, "k/kept@1")
    foreign = EvalContext(other.compiled, Host(0), state=state, board=BoardQueries(state))
    foreign.share_space_sets(game)
    assert foreign.spaces(names) is not made  # its own memo: its program's members
