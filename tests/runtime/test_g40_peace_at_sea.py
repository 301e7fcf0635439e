"""Powers at peace share sea zones under g40/base@1 (rulesets/g40/README.md, "Readings"): the move
and battle setting `at_war` tells the kit whose units are the mover's enemies, so a fleet sails
into a zone holding the ships of a power it is at peace with and fights no battle there, while
the same move once war is declared is an attack, and a third power at war with one of them fights
only that one."""

from __future__ import annotations

from game_fixtures import count, events, ids, load_dice, make_game, run_phases

BASE = ["g40/base@1"]
FROM, ZONE = "7 Sea Zone", "6 Sea Zone"


def _game(units: dict, orders: dict, wars: dict | None = None):
    scenario = {"setup": "empty", "units": units}
    if wars:
        scenario["counters"] = {"war_declared": wars}
    return make_game(BASE, scenario=scenario, orders=orders)


def _sail(player: str, unit_type: str) -> dict:
    return {player: [{"round": 1, "combat": [{"from": FROM, "type": unit_type, "to": ZONE}]}]}


def test_a_fleet_at_peace_shares_the_zone_without_a_battle():
    game = _game({FROM: {"Americans": {"destroyer": 1}}, ZONE: {"Japanese": {"destroyer": 1}}},
                 _sail("Americans", "destroyer"))
    run_phases(game, "Americans", "combat_move", "battle")
    assert events(game, "move_units"), "the move into the shared zone was refused"
    assert events(game, "battle") == []
    assert count(game, ZONE, "Americans", "destroyer") == 1 and count(game, ZONE, "Japanese", "destroyer") == 1


def test_the_same_move_once_at_war_is_an_attack():
    game = _game({FROM: {"Americans": {"destroyer": 1}}, ZONE: {"Japanese": {"destroyer": 1}}},
                 _sail("Americans", "destroyer"), wars={"Japanese": {"Americans": True}})
    load_dice(game, [1, 6])  # the attacking destroyer hits, the defender misses
    run_phases(game, "Americans", "combat_move", "battle")
    fought = events(game, "battle", space=ZONE)
    assert [(e["attacker"], e["defender"]) for e in fought] == [("Americans", "Japanese")]
    assert count(game, ZONE, "Japanese") == 0


def test_a_power_at_war_with_one_of_two_fleets_at_peace_fights_only_that_one():
    us = {"destroyer": 1}
    game = _game({FROM: {"Germans": {"cruiser": 1}}, ZONE: {"Americans": us, "Japanese": {"destroyer": 1}}},
                 _sail("Germans", "cruiser"), wars={"Germans": {"Americans": True}})
    japanese = ids(game, ZONE, "Japanese")
    load_dice(game, [1, 6])  # the cruiser hits the American destroyer, which misses
    run_phases(game, "Germans", "combat_move", "battle")
    fought = events(game, "battle", space=ZONE)
    assert [(e["defender"], e["defending"]) for e in fought] == [("Americans", 1)]
    assert count(game, ZONE, "Americans") == 0
    assert ids(game, ZONE, "Japanese") == japanese


def test_the_odds_and_the_heuristic_count_only_the_enemies_at_war_as_the_defence():
    """The exact odds (runtime/odds through the agent's battle_odds.py) and the heuristic's
    estimates pick the defence as the battle does: a power at peace sharing the zone is left out."""
    from ruleslang.runtime.agents.battle_odds import BattleOdds
    from ruleslang.runtime.agents.heuristic import HeuristicAgent
    game = _game({FROM: {"Germans": {"cruiser": 1}}, ZONE: {"British": {"destroyer": 1}, "Americans": {"destroyer": 3}}},
                 {}, wars={"Germans": {"British": True}})
    cruiser = [u for u in game.state.units if u.space == FROM]
    british = [u for u in game.state.units if u.owner == "British"]
    for asking in ("Germans", "Americans"):  # asked in the attacker's turn or another's
        game.state.current_player = asking
        board_defence = BattleOdds().chance(game, "Germans", cruiser, ZONE)
        alone = BattleOdds().chance(game, "Germans", cruiser, ZONE, defence=british)
        assert board_defence == alone and 0 < alone < 1
        assert HeuristicAgent(1, "Germans")._enemies(game, ZONE) == british
        assert game.state.current_player == asking
    # once the United States is at war too, its destroyers defend
    game = _game({FROM: {"Germans": {"cruiser": 1}}, ZONE: {"British": {"destroyer": 1}, "Americans": {"destroyer": 3}}},
                 {}, wars={"Germans": {"British": True, "Americans": True}})
    cruiser = [u for u in game.state.units if u.space == FROM]
    assert BattleOdds().chance(game, "Germans", cruiser, ZONE) < alone
