"""`BattleRules.enemies_at` (runtime/kit/battle_rules.py), the defence the exact odds and the agents
count before an attack: on land every unit not on the attacker's side, in the board's order by id,
whatever mix of owners the territory holds (each owner's standing is asked once), as a list of the
caller's own that leaves the board's index as it was."""

from __future__ import annotations

from game_fixtures import make_game

from ruleslang.runtime.kit.battle_rules import BattleRules

LAND = "Western Europe"


def _rules(game) -> BattleRules:
    return BattleRules(game, game.kit.battle_config())


def test_on_land_the_units_of_every_owner_not_on_the_attackers_side_defend_in_id_order():
    units = {LAND: {"Germans": {"infantry": 2, "armour": 1}, "Japanese": {"infantry": 1},
                    "British": {"fighter": 1}}}
    game = make_game(["aar/base@1"], scenario={"setup": "empty", "units": units})
    here = sorted(game.board.units(LAND), key=lambda u: u.id)
    axis = [u for u in here if u.owner in ("Germans", "Japanese")]
    rules = _rules(game)
    assert rules.enemies_at(LAND, "British") == axis
    assert rules.enemies_at(LAND, "Americans") == axis  # an ally of the British units there
    assert rules.enemies_at(LAND, "Germans") == [u for u in here if u.owner == "British"]


def test_the_defence_is_a_new_list_each_time():
    game = make_game(["aar/base@1"], scenario={"setup": "empty", "units": {LAND: {"Germans": {"infantry": 2}}}})
    rules = _rules(game)
    found = rules.enemies_at(LAND, "British")
    found.clear()
    assert len(rules.enemies_at(LAND, "British")) == 2
    assert len(game.board.units_in(LAND)) == 2
