"""The heuristic agent attacks enemy ships (`_fleet_attacks`): where the exact chain of the rules'
own battle steps says it wins and destroys more than it loses, never where the rules let the enemy
ships escape or outlast it. The previous agent kept for the duels never attacked at sea."""

from __future__ import annotations

from game_fixtures import BASE, ids, make_game, run_phases
from ruleslang.runtime.agents.heuristic import HeuristicAgent

BALTIC, NORTH_SEA = "5 Sea Zone", "6 Sea Zone"


def attackers_at(units: dict, target: str, *, previous: bool = False, exchange=None, **options) -> list[int]:
    """The German units in `target` after the Germans' agent plans and makes its combat move
    (`exchange`: stands in for the chain's (win, value lost, value destroyed); `options`: the
    agent's)."""
    game = make_game(BASE, scenario={"setup": "empty", "units": units}, agents={"Germans": "heuristic"})
    game.agents["Germans"] = agent = HeuristicAgent(1, "Germans", previous=previous, **options)
    if exchange is not None:
        agent.fleet_odds.exchange = lambda *args: exchange
    run_phases(game, "Germans", "combat_move")
    return ids(game, target, "Germans")


def test_a_lone_transport_next_to_two_destroyers_is_attacked():
    # a transport defends at 1 in these rules: one destroyer wins 71% (under ATTACK_ODDS), two 98.5%
    units = {"Germany": {"Germans": {"infantry": 1}}, BALTIC: {"Germans": {"destroyer": 2}},
             NORTH_SEA: {"British": {"transport": 1}}, "United Kingdom": {"British": {"infantry": 1}}}
    assert len(attackers_at(units, NORTH_SEA)) == 2
    # the agent kept for the duels left every fleet alone
    assert attackers_at(units, NORTH_SEA, previous=True) == []


def test_aircraft_alone_do_not_attack_a_submarine_they_cannot_hit():
    # the quick simulation would send them (aircraft fire at 3 and 4; a submarine defends at 2);
    # under the rules, aircraft hit a submarine only beside a destroyer of their side
    units = {"Germany": {"Germans": {"fighter": 2, "bomber": 1, "infantry": 1}},
             BALTIC: {"British": {"submarine": 1}}, "United Kingdom": {"British": {"infantry": 1}}}
    assert attackers_at(units, BALTIC) == []


def test_a_fleet_too_strong_is_left_alone():
    units = {"Germany": {"Germans": {"infantry": 1}}, BALTIC: {"Germans": {"destroyer": 1}},
             NORTH_SEA: {"British": {"battleship": 1, "destroyer": 1}}, "United Kingdom": {"British": {"infantry": 1}}}
    assert attackers_at(units, NORTH_SEA) == []


def test_a_win_that_costs_more_than_it_destroys_is_not_sought():
    # (the agent asking the chain of every attack at sea: the sparing one makes this one unasked)
    asking = {"spare": ()}
    units = {"Germany": {"Germans": {"infantry": 1}}, BALTIC: {"Germans": {"destroyer": 2}},
             NORTH_SEA: {"British": {"transport": 1}}, "United Kingdom": {"British": {"infantry": 1}}}
    assert attackers_at(units, NORTH_SEA, exchange=(0.9, 20.0, 7.0), **asking) == []
    assert len(attackers_at(units, NORTH_SEA, exchange=(0.9, 2.0, 7.0), **asking)) >= 1
    assert attackers_at(units, NORTH_SEA, exchange=None) != [] and attackers_at(
        units, NORTH_SEA, exchange=(0.7, 0.0, 8.0), **asking) == []


def test_the_fewest_ships_that_win_go_and_the_rest_stay():
    units = {"Germany": {"Germans": {"infantry": 1}}, BALTIC: {"Germans": {"destroyer": 4}},
             NORTH_SEA: {"British": {"transport": 1}}, "United Kingdom": {"British": {"infantry": 1}}}
    assert len(attackers_at(units, NORTH_SEA)) == 2
    assert len(attackers_at({**units, BALTIC: {"Germans": {"destroyer": 1}}}, NORTH_SEA)) == 0


def test_aircraft_whose_only_landing_is_a_carrier_stay_out_of_fights_at_sea():
    # mid-Atlantic, no German territory within reach: the fighters could only come back to their
    # carrier, which may sail away or sink before they land, so they do not go; the carrier alone
    # (attack 1 against a transport's defence 1) is no attack either
    units = {"Germany": {"Germans": {"infantry": 1}}, "20 Sea Zone": {"Germans": {"carrier": 1, "fighter": 2}},
             "21 Sea Zone": {"British": {"transport": 1}}, "United Kingdom": {"British": {"infantry": 1}}}
    assert attackers_at(units, "21 Sea Zone") == []
    # with a battleship beside the carrier the attack is made, by ships alone
    units["20 Sea Zone"]["Germans"]["battleship"] = 1
    assert len(attackers_at(units, "21 Sea Zone")) == 1  # the battleship (it fires first, and wins alone)
