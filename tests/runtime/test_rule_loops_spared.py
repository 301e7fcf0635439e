"""Loops the code generator writes so that they pass over what their first test rules out without
working it out again: a loop over the map's spaces whose condition first tests an attribute of the
space (lang/eval/constant_filters.py), and a loop over `units(...)` whose condition first tests the
unit's hits (lang/eval/unit_scans.py). Each gives what the plain loop gives, spends the same steps
and fails where it failed."""

from __future__ import annotations

import pytest

from ruleslang.base.errors import EvalError
from ruleslang.lang.eval.constant_filters import SpaceFilter
from ruleslang.lang.eval.context import EvalContext
from ruleslang.lang.eval.host import Host
from ruleslang.lang.eval.program import CompiledProgram
from ruleslang.lang.eval.statements import run_procedure

from conftest import load
from game_fixtures import BASE, make_game, run_phases


def _repaired(game, damaged: list[int]) -> list[int]:
    return [u.id for u in game.state.units if u.id in damaged and u.hits == 0]


def test_repair_makes_values_of_the_damaged_units_alone(monkeypatch):
    game = make_game(BASE)
    british = sorted(u.id for u in game.state.units if u.owner == "British")
    damaged = [british[1], british[-2]]
    game.state.update_units(damaged, hits=1)
    made = []
    real = EvalContext.values_of_units
    monkeypatch.setattr(EvalContext, "values_of_units", lambda self, units: made.extend(units) or real(self, units))
    run_phases(game, "British", "repair")
    assert _repaired(game, damaged) == damaged
    assert sorted(u.id for u in made) == sorted(damaged)  # not one value of each of the player's units
    decl = game.compiled.symbols["repair"].decl
    assert "_units_scan(" in game.compiled.procedures.executor(decl.procedure.body, "repair", decl).generated_source


def test_repair_runs_out_of_steps_at_the_unit_the_plain_loop_ran_out_at():
    game = make_game(BASE)
    british = sorted(u.id for u in game.state.units if u.owner == "British")
    first, later = 1, len(british) - 2
    damaged = [british[first], british[later]]
    game.state.update_units(damaged, hits=1)
    game.state.start_turn("British")
    game.state.set_phase("repair")
    # one step for the phase, then one per unit: the steps of unit `later` are the first missing
    game.host.reset_budget(1 + later)
    game.ctx.running = []
    with pytest.raises(EvalError) as failed:
        run_procedure(game.ctx, "repair")
    assert failed.value.code == "E501"
    assert _repaired(game, damaged) == [british[first]]
    # with the steps of every unit, both are repaired and nothing is left
    game.host.reset_budget(2 + len(british))
    game.ctx.running = []
    run_procedure(game.ctx, "repair")
    assert _repaired(game, damaged) == damaged and game.host.steps == 1


FILTERS = """
    ruleset lp/filters@1
    uses aar/base@1
    space attribute marked: bool
    formula held_cities(p: player) -> int = count(t for t in territories() where t.victory_city and controller(t) == p)
    formula other_ipcs(p: player) -> int = sum(t.ipc for t in territories() where not t.victory_city and controller(t) == p)
    formula marked_rolls() -> int = count(t for t in territories() where d6 > 0 and t.marked)
    formula marked_first() -> int = count(t for t in territories() where t.marked and d6 > 0)
"""


@pytest.fixture(scope="module")
def filters(tmp_path_factory):
    ws, loaded = load(tmp_path_factory.mktemp("lp"), {"lp/filters@1": FILTERS}, "lp/filters@1")
    assert loaded.ok, loaded.diagnostics
    return {b: CompiledProgram(loaded.program, backend=b) for b in ("closures", "codegen")}


def _outcome(compiled, name, *args, budget=10_000):
    game = make_game(BASE, seed=3)
    game.state.control["Germany"] = "Russians"  # a city changed hands
    ctx = EvalContext(compiled, Host(5, budget=budget), state=game.state, board=game.board)
    values = {p: ctx.player_values[p] for p in ("Russians", "Germans")}
    try:
        answers = [compiled.callable(name)(ctx, *(values[a] for a in args)) for _ in range(2)]
        return ("value", answers, budget - ctx.host.steps, [r.value for r in ctx.host.rolls])
    except EvalError as e:
        return ("error", e.code, e.message, (e.span.line, e.span.column) if e.span else None,
                [r.value for r in ctx.host.rolls])


@pytest.mark.parametrize("name,args", [("held_cities", ("Russians",)), ("held_cities", ("Germans",)),
                                       ("other_ipcs", ("Russians",)), ("marked_rolls", ()), ("marked_first", ())])
def test_a_loop_over_the_map_s_spaces_gives_and_spends_what_the_closures_do(filters, name, args):
    assert _outcome(filters["codegen"], name, *args) == _outcome(filters["closures"], name, *args)


def test_the_attribute_tests_are_passed_once_per_collection(filters):
    fn = filters["codegen"].callable("held_cities")
    assert ".where(" in fn.generated_source
    assert _outcome(filters["codegen"], "held_cities", "Russians")[1] == [3, 3]  # its two cities, and Germany
    kept = [v for v in fn.__globals__.values() if isinstance(v, SpaceFilter)]
    assert len(kept) == 1 and all(len(chosen) == 12 for _, chosen in kept[0].kept.values())


def test_a_failing_attribute_fails_where_the_plain_loop_fails(filters):
    # `marked` has no value and no default: E533 at the first territory, after its die was rolled
    # when the die comes first, before any die when the attribute does
    rolled = _outcome(filters["codegen"], "marked_rolls")
    assert rolled[:2] == ("error", "E533") and len(rolled[4]) == 1
    first = _outcome(filters["codegen"], "marked_first")
    assert first[:2] == ("error", "E533") and first[4] == []
    assert rolled == _outcome(filters["closures"], "marked_rolls")
    assert first == _outcome(filters["closures"], "marked_first")


def test_a_short_budget_stops_the_filtered_loop_as_the_plain_one(filters):
    for budget in (5, 60):
        got = _outcome(filters["codegen"], "held_cities", "Russians", budget=budget)
        assert got == _outcome(filters["closures"], "held_cities", "Russians", budget=budget)
        assert got[1] == "E501"
