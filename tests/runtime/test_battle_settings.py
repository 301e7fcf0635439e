"""The battle policies of `runtime battle` in games: aar/base@1's defaults against the fixture
revision tests/rulesets/aar/base@2.rules, which changes each (its rule tests show the others),
and the kit's procedure table the game is built with."""

from __future__ import annotations

from pathlib import Path

import pytest

from game_fixtures import count, events, load_dice, make_game, run_phases, logs
from ruleslang.base.errors import EvalError
from ruleslang.base.paths import packaged_root
from ruleslang.runtime.kit.table import procedure_table
from ruleslang.runtime.registry import PROCEDURES
from ruleslang.workspace.compositions import Workspace

FIXTURES = Path(__file__).resolve().parents[1] / "rulesets"
EE, KARELIA = "Eastern Europe", "Karelia S.S.R."


def fighter_attack(refs, workspace=None):
    """A German fighter alone against one Russian infantry in Karelia: it hits, the infantry misses."""
    units = {EE: {"Germans": {"fighter": 1}}, KARELIA: {"Russians": {"infantry": 1}}}
    orders = {"Germans": [{"round": 1, "combat": [{"from": EE, "type": "fighter", "to": KARELIA}]}]}
    game = make_game(refs, scenario={"setup": "empty", "units": units}, orders=orders, workspace=workspace)
    loaded = load_dice(game, [1, 6])
    run_phases(game, "Germans", "combat_move", "battle")
    assert loaded.left == 0
    return game


def test_by_default_an_air_unit_wins_a_territory_without_taking_it():
    game = fighter_attack(["aar/base@1"])
    assert events(game, "battle_end")[0]["result"] == "attacker"
    assert events(game, "battle_end")[0]["taken"] is False
    assert game.state.control[KARELIA] == "Russians"


def test_a_revision_whose_captures_setting_allows_air_units_takes_it_with_one():
    game = fighter_attack(["aar/base@2"], Workspace([FIXTURES]))
    assert events(game, "battle_end")[0]["taken"] is True
    assert game.state.control[KARELIA] == "Germans"
    assert "Germans takes Karelia S.S.R." in logs(game)
    assert count(game, KARELIA, "Germans", "fighter") == 1


def test_a_defender_on_the_attackers_side_is_refused_at_the_setting(tmp_path):
    family = tmp_path / "aar"
    family.mkdir()
    (family / "base@3.rules").write_text(
        'ruleset aar/base@3\ntitle "t"\nrevises aar/base@1\n'
        'override phase battle: runtime battle with {round: "round_steps", defender: t => attacker()}\n',
        encoding="utf-8")
    with pytest.raises(EvalError) as caught:
        fighter_attack(["aar/base@3"], Workspace([tmp_path, packaged_root()]))
    assert caught.value.code == "E544"
    assert "Germans" in caught.value.message and caught.value.span is not None


def test_the_kit_implements_every_runtime_procedure_and_the_game_runs_its_table():
    assert set(procedure_table()) == set(PROCEDURES)
    game = make_game(["aar/base@1"])
    assert game.ctx.runtime_procedures == procedure_table()


def test_without_a_stalemate_setting_a_battle_nobody_can_win_stops_at_the_round_guard():
    # aar/base@2 leaves the stalemate setting out: a fighter against a submarine rolls the
    # fighter's useless die for 100 rounds (the runtime's guard), then the defender holds
    units = {"Western Europe": {"Germans": {"fighter": 1}}, "6 Sea Zone": {"British": {"submarine": 1}}}
    no = {"submarines_submerge.dive": False, "attacker_retreat.go": False}
    orders = {"Germans": [{"round": 1, "combat": [{"from": "Western Europe", "type": "fighter", "to": "6 Sea Zone"}],
                           "answers": no}], "British": [{"round": 1, "answers": no}]}
    game = make_game(["aar/base@2"], scenario={"setup": "empty", "units": units}, orders=orders,
                     workspace=Workspace([FIXTURES]))
    loaded = load_dice(game, [1] * 100)
    run_phases(game, "Germans", "combat_move", "battle")
    assert loaded.left == 0
    assert events(game, "stalemate")[0]["rounds"] == 100
    assert events(game, "battle_end")[0]["result"] == "defender"


def test_without_withdraws_aircraft_alone_have_no_retreat():
    units = {"Western Europe": {"Germans": {"fighter": 1}}, "6 Sea Zone": {"British": {"destroyer": 1}}}
    orders = {"Germans": [{"round": 1, "combat": [{"from": "Western Europe", "type": "fighter", "to": "6 Sea Zone"}],
                           "answers": {"attacker_retreat.go": True}}]}
    game = make_game(["aar/base@2"], scenario={"setup": "empty", "units": units}, orders=orders,
                     workspace=Workspace([FIXTURES]))
    loaded = load_dice(game, [6, 6, 1, 6])
    run_phases(game, "Germans", "combat_move", "battle")
    assert loaded.left == 0
    assert not events(game, "retreat")
    assert not [e for e in events(game, "decision") if e.get("id") == "attacker_retreat.go"]
