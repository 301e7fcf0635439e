"""Submarines and transports among enemies under g40/base@1 (rulesets/g40/README.md, "Readings"):
a submarine ends its non-combat move among any enemy units (the move setting
`ends_among_enemies`), any sea unit ends it where the enemy has only submarines and transports
(`blocks_ending`), and the player whose units then stand with only enemy submarines and
transports decides whether to fight them (`decline_battles.attack`, the battle setting `fought`)."""

from __future__ import annotations

import pytest

from game_fixtures import count, events, ids, logs, make_game, run_phases

BASE = ["g40/base@1"]
FROM, ZONE = "110 Sea Zone", "109 Sea Zone"


def _noncombat(units: dict, player: str, unit_type: str):
    orders = {player: [{"round": 1, "noncombat": [{"from": FROM, "type": unit_type, "to": ZONE}]}]}
    game = make_game(BASE, scenario={"setup": "empty", "units": units}, orders=orders)
    run_phases(game, player, "noncombat_move")
    return game


def test_a_submarine_ends_its_noncombat_move_beside_an_enemy_destroyer():
    game = _noncombat({FROM: {"Germans": {"submarine": 1}}, ZONE: {"British": {"destroyer": 1}}}, "Germans", "submarine")
    assert count(game, ZONE, "Germans", "submarine") == 1
    # stopped by the destroyer: it moves no further this turn (TripleA marks it with no movement left)
    sub = next(u for u in game.state.units if u.space == ZONE and u.owner == "Germans")
    assert sub.moved == 2


def test_a_submarine_ending_where_nothing_stops_it_keeps_its_movement():
    game = _noncombat({FROM: {"Germans": {"submarine": 1}}, ZONE: {"British": {"transport": 1}}}, "Germans", "submarine")
    sub = next(u for u in game.state.units if u.space == ZONE and u.owner == "Germans")
    assert sub.moved == 1


def test_a_cruiser_does_not_end_it_among_enemy_warships():
    game = _noncombat({FROM: {"Germans": {"cruiser": 1}}, ZONE: {"British": {"destroyer": 1}}}, "Germans", "cruiser")
    assert count(game, ZONE, "Germans") == 0 and count(game, FROM, "Germans", "cruiser") == 1


def test_a_transport_ends_it_where_the_enemy_has_only_submarines():
    game = _noncombat({FROM: {"British": {"transport": 1}}, ZONE: {"Germans": {"submarine": 1}}}, "British", "transport")
    assert count(game, ZONE, "British", "transport") == 1


@pytest.mark.parametrize("attack", [False, True])
def test_the_player_beside_enemy_submarines_decides_whether_to_fight_them(attack):
    units = {ZONE: {"British": {"destroyer": 1}, "Germans": {"submarine": 1}}}
    orders = {"British": [{"round": 1, "answers": {"decline_battles.attack": attack}}]}
    game = make_game(BASE, scenario={"setup": "empty", "units": units}, orders=orders)
    sub = ids(game, ZONE, "Germans", "submarine")
    run_phases(game, "British", "combat_move", "battle")
    asked = [e["answer"] for e in events(game, "decision") if e.get("id") == "decline_battles.attack"]
    assert asked == [attack]
    fought = events(game, "battle", space=ZONE)
    if attack:
        assert [(e["attacker"], e["defender"], e["defending"]) for e in fought] == [("British", "Germans", 1)]
    else:
        assert fought == [] and ids(game, ZONE, "Germans", "submarine") == sub
        assert "British does not attack the submarines and transports in 109 Sea Zone" in logs(game)


def test_no_question_where_an_enemy_warship_stands():
    units = {ZONE: {"British": {"destroyer": 1}, "Germans": {"submarine": 1, "cruiser": 1}}}
    game = make_game(BASE, scenario={"setup": "empty", "units": units}, orders={"British": []})
    run_phases(game, "British", "combat_move")
    assert not [e for e in events(game, "decision") if e.get("id") == "decline_battles.attack"]
