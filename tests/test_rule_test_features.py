"""What rule tests can state: a sequence's order as a value, scenario factories bought during
play (`original: false`), amphibious battles (`battle at SPACE by PLAYER from SEA_ZONE`) and the
units a battle's start step brings in joining the battle, as in a game."""

from __future__ import annotations

import textwrap

import pytest

from ruleslang.board.scenario import load_scenario
from ruleslang.board.state import GameState
from ruleslang.base.diagnostics import has_errors
from ruleslang.ruletests.runner import TestRunner

from conftest import FIXTURES, codes, load

BASE = """
    ruleset t/features@1
    title "a board with transports and a battle whose start step brings units in"
    map "mini"

    attribute room: int = 0
    attribute load: int = 0
    tag sea, guard

    unit foot:
        load: 2
    unit heavy:
        load: 3
    unit gun:
        load: 0
    unit boat:
        room: 5
        tags: sea
    unit cruiser:
        tags: sea
    unit militia:
        tags: guard

    formula domain_of(u: unit) -> text = if has_tag(u, sea) then "sea" else "land"
    formula phase_at(i: int) -> text = turn[i]

    phase income:
        change treasury(current_player()) by 1
    phase combat_move: runtime move with {kind: "combat", movement: u => 1, domain: u => domain_of(u),
                                          transport_capacity: u => u.room, transport_cost: u => u.load}
    step opening:
        log "the battle opens"
    step volley:
        log "a volley"
    sequence round_steps: volley
    phase battle: runtime battle with {round: "round_steps", start: "opening", fights: u => not has_tag(u, guard)}
    sequence turn: income, combat_move, battle

    # the start step brings two fighting defenders, one that does not fight, and an attacker
    hook reinforce before opening when battle_space() == "Marsh":
        add 2 foot at "Marsh" for Reds
        add 1 militia at "Marsh" for Reds
        add 1 foot at "Marsh" for Blues

    hook late after volley when battle_space() == "Marsh":
        add 1 foot at "Marsh" for Reds
"""

EMPTY = "map: mini\nsetup: empty\n"


def run_tests(tmp_path, tests: str, *, ref: str = "t/features@1", extra: dict | None = None, base: str = BASE):
    """Load t/features@1 with `tests` appended (and any other rulesets) and run its rule tests."""
    files = {"t/features@1": textwrap.dedent(base) + textwrap.dedent(tests), **(extra or {})}
    (tmp_path / "t" / "scenarios").mkdir(parents=True, exist_ok=True)
    (tmp_path / "t" / "scenarios" / "empty.yaml").write_text(EMPTY, encoding="utf-8")
    ws, loaded = load(tmp_path, files, ref, extra_roots=(FIXTURES,))
    assert not has_errors(loaded.diagnostics), loaded.diagnostics
    return {r.title: r for r in TestRunner(ws).run(loaded)}


def assert_all_pass(results) -> None:
    failures = {t: (r.status, r.message, r.expected, r.actual) for t, r in results.items() if r.status != "pass"}
    assert not failures


# ------------------------------------------------------------------------------ sequences


def test_a_sequence_read_as_a_value_is_its_phase_names_in_order(tmp_path):
    results = run_tests(tmp_path, """
        test "the order":
            expect turn == ["income", "combat_move", "battle"]
            expect round_steps == ["volley"]
            expect phase_at(2) == "battle"
            expect [p for p in turn where p in ["battle", "income"]] == ["income", "battle"]

        test "a wrong order fails":
            expect turn == ["combat_move", "income", "battle"]
    """)
    assert results["the order"].status == "pass"
    wrong = results["a wrong order fails"]
    assert wrong.status == "fail"
    assert wrong.actual == '["income", "combat_move", "battle"]'


def test_a_formula_reads_the_sequence_of_the_composition_an_override_included(tmp_path):
    revision = """
        ruleset t/features@2
        revises t/features@1
        override sequence turn: combat_move, income, battle

        test "the override's order":
            expect phase_at(0) == "combat_move"
            expect turn[1] == "income"
    """
    results = run_tests(tmp_path, "", ref="t/features@2", extra={"t/features@2": revision})
    assert_all_pass(results)
    assert list(results) == ["the override's order"]


def test_a_sequence_is_a_list_of_text_to_the_checker_and_a_phase_is_still_no_value(tmp_path):
    files = {"t/features@1": textwrap.dedent(BASE) + textwrap.dedent("""
        formula wrong() -> int = turn + 1
        formula phase_value() -> bool = income == 1
    """)}
    _, loaded = load(tmp_path, files, extra_roots=(FIXTURES,))
    found = codes(d for d in loaded.diagnostics if d.severity == "error")
    assert "T308" in found  # `income` is a phase, not a value
    assert len(found) == 2  # and `turn + 1` adds a number to a list of text
    messages = " ".join(d.message for d in loaded.diagnostics)
    assert "'income' is a phase, not a value" in messages and "list of text" in messages


# ------------------------------------------------------------------------------ factories


def write_scenario(tmp_path, text: str) -> str:
    path = tmp_path / "s.yaml"
    path.write_text(textwrap.dedent(text).lstrip(), encoding="utf-8")
    return str(path)


def test_a_scenario_factory_may_be_given_as_bought_during_play(tmp_path):
    path = write_scenario(tmp_path, """
        map: mini
        factories:
          Marsh: {owner: Reds, original: false}
          Coast: {owner: Blues, original: true}
          Plain: Reds
    """)
    state = GameState.from_scenario(load_scenario(path, [FIXTURES]))
    originals = {space: f.flags["original"] for space, f in state.factories.items()}
    assert originals == {"Isle": True, "Marsh": False, "Plain": True, "Blueland": True, "Coast": True}
    state.set_factory("Marsh", "Blues")  # a capture keeps what the factory is
    assert state.factories["Marsh"].flags["original"] is False


def test_original_must_be_true_or_false(tmp_path):
    path = write_scenario(tmp_path, """
        map: mini
        factories:
          Marsh: {owner: Reds, original: "no"}
    """)
    with pytest.raises(Exception) as caught:
        load_scenario(path, [FIXTURES])
    (problem,) = caught.value.diagnostics
    assert problem.code == "D611" and "original" in problem.message
    assert problem.span.line == 3


def test_factory_is_original_reads_the_scenario_in_a_rule_test(tmp_path):
    results = run_tests(tmp_path, """
        test "bought during play":
            scenario t/empty with {factories: {Marsh: {owner: Reds, original: false}, Isle: Reds}}
            expect not factory_is_original("Marsh")
            expect factory_is_original("Isle")
    """)
    assert_all_pass(results)


# ------------------------------------------------------------------------------ amphibious battles

LANDING = """
        test "landing":
            scenario t/empty with {units: {Marsh: {Blues: {heavy: 2, foot: 1, gun: 1}, Reds: {foot: 1}},
                                           "Sea 2": {Blues: {boat: 2, cruiser: 1}, Reds: {boat: 1}}}}
            battle at "Marsh" by Blues from "Sea 2"
            let b = units("Sea 2", owner: Blues, type: boat)
            expect is_amphibious()
            expect [u.type for u in support_units()] == [boat, boat, cruiser]
            expect count(retreat_options()) == 0
            # by id, each in the first transport with room: heavy (3) on the first, heavy on the
            # second (the first has 2 left), the foot (2) back on the first; the gun is not carried
            expect [carried_by(u) for u in battle_units("attacker")] == [b[0], b[1], b[0], none]
"""


def test_battle_from_a_sea_zone_is_an_amphibious_assault_landed_from_its_transports(tmp_path):
    assert_all_pass(run_tests(tmp_path, LANDING))


def test_without_from_a_battle_is_not_amphibious(tmp_path):
    results = run_tests(tmp_path, LANDING.replace(' from "Sea 2"', ""))
    assert results["landing"].status == "fail" and "is_amphibious()" in results["landing"].message


@pytest.mark.parametrize("where, zone, hint", [
    ("Marsh", "Sea 1", "sea zones bordering it: Sea 2"),   # a sea zone, not next to Marsh
    ("Marsh", "Hills", "sea zones bordering it: Sea 2"),   # land
    ("Sea 2", "Sea 1", "on a land territory"),             # a sea battle
])
def test_an_assault_from_a_space_that_is_no_bordering_sea_zone_is_e536(tmp_path, where, zone, hint):
    results = run_tests(tmp_path, f"""
        test "bad":
            scenario t/empty with {{units: {{Marsh: {{Blues: {{foot: 1}}, Reds: {{foot: 1}}}}}}}}
            battle at "{where}" by Blues from "{zone}"
    """)
    result = results["bad"]
    assert result.status == "error"
    (d,) = result.diagnostics
    assert d.code == "E536" and f"{zone} is not one" in d.message and hint in d.hint
    assert d.span.line == result.span.line and d.span.source.display_name.endswith("features@1.rules")


# ------------------------------------------------------------------------------ the start step


JOINING = """
        test "joining":
            scenario t/empty with {units: {Marsh: {Blues: {foot: 2}, Reds: {foot: 1}}}}
            battle at "Marsh" by Blues
            expect count(battle_units("defender")) == 1
            run opening
            # two foot join the defenders (the militia does not fight), one foot the attackers
            expect count(battle_units("defender")) == 3
            expect count(battle_units("attacker")) == 3
            expect count(units("Marsh", owner: Reds)) == 4
            run volley
            # as in a game, only the start step's arrivals join
            expect count(battle_units("defender")) == 3
            expect count(units("Marsh", owner: Reds)) == 5
"""


def test_units_the_start_step_brings_in_join_the_battle(tmp_path):
    assert_all_pass(run_tests(tmp_path, JOINING))


def test_only_the_battle_start_step_named_by_the_composition_joins_arrivals(tmp_path):
    # the same step under another `start` setting is just a step: its arrivals stay out
    results = run_tests(tmp_path, JOINING, base=BASE.replace('start: "opening"', 'start: "volley"'))
    assert results["joining"].status == "fail"
    assert results["joining"].actual == "1"
