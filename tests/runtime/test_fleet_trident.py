"""Attacks at sea whose aircraft the rules may not let hit some defender (the heuristic agent's
SPARE part "trident", session 24): the quick model reckoned with the units the rules' `stalemate`
setting keeps apart hitting only the others (quick_battle.py's `reckon_apart`), the chain asked
only where that leaves the attack in doubt."""

from __future__ import annotations

import random

import pytest

from game_fixtures import BASE, make_game, run_phases, ids
from ruleslang.runtime.agents.battle_odds import CHAIN
from ruleslang.runtime.agents.heuristic import SPARE, HeuristicAgent
from ruleslang.runtime.agents.quick_battle import reckon, reckon_apart

BALTIC = "5 Sea Zone"


def test_with_no_units_apart_it_is_the_quick_models_reckoning():
    dice = random.Random(7)
    for _ in range(40):
        a_vals = tuple(sorted((dice.randint(0, 4), dice.randint(3, 20), dice.randint(1, 2))
                              for _ in range(dice.randint(1, 3))))
        d_vals = tuple(sorted((dice.randint(0, 4), dice.randint(3, 20), dice.randint(1, 2))
                              for _ in range(dice.randint(1, 3))))
        apart = reckon_apart(tuple((*v, False) for v in a_vals), tuple((*v, False) for v in d_vals))
        assert apart == pytest.approx(reckon(a_vals, d_vals), abs=1e-9)


def test_units_apart_never_hit_each_other():
    # an air unit (attack 3, cost 10) against a submarine (2, 6) the rules keep apart from it and a
    # transport (0, 7): it sinks the transport and the battle stands (the quick model alone would
    # aim at the submarine first, the cheapest, and win half the time)
    fighter, submarine, transport = (3, 10, 1), (2, 6, 1), (0, 7, 1)
    assert reckon_apart(((*fighter, True),), ((*submarine, True), (*transport, False))) \
        == pytest.approx((0.0, 0.0, 7.0))
    assert reckon((fighter,), tuple(sorted((submarine, transport))))[0] == pytest.approx(0.5)
    # a battleship (4, 20, two hit points) beside it hits the submarine, which hits only the battleship
    battleship = (4, 20, 2)
    won, lost, destroyed = reckon_apart(((*fighter, True), (*battleship, False)),
                                        ((*submarine, True), (*transport, False)))
    assert 0.5 < won < 1.0 and destroyed > 7.0 and lost < 20.0


def _fleet_attack(units: dict, spare) -> tuple[int, int]:
    """(how many German units attack the Baltic in the combat move of the Germans' agent sparing
    `spare`, the chains its fleet odds ran)."""
    game = make_game(BASE, scenario={"setup": "empty", "units": {
        **units, "United Kingdom": {"British": {"infantry": 1}}}}, agents={"Germans": "heuristic"})
    agent = game.agents["Germans"] = HeuristicAgent(1, "Germans", spare=spare)
    run_phases(game, "Germans", "combat_move")
    return len(ids(game, BALTIC, "Germans")), agent.fleet_odds.counts[CHAIN]


WITHOUT = tuple(part for part in SPARE if part != "trident")


def test_aircraft_with_ships_against_a_submarine_ask_no_chain():
    # a fighter and a battleship against a submarine and a destroyer: the fighter may not hit the
    # submarine (aar/base@1: no destroyer beside it); the chain says yes, and so does the reckoning
    fleet = {"Germany": {"Germans": {"fighter": 1, "infantry": 1}}, "6 Sea Zone": {"Germans": {"battleship": 1}},
             BALTIC: {"British": {"submarine": 1, "destroyer": 1}}}
    made, chains = _fleet_attack(fleet, WITHOUT)
    assert made == 2 and chains == 1
    assert _fleet_attack(fleet, SPARE) == (made, 0)


def test_an_attack_whose_aircraft_cannot_sink_the_submarine_is_not_made_without_the_chain():
    # a bomber and a carrier against a submarine: only the carrier's die (1) can sink it
    fleet = {"Germany": {"Germans": {"bomber": 1, "infantry": 1}}, "6 Sea Zone": {"Germans": {"carrier": 1}},
             BALTIC: {"British": {"submarine": 1}}}
    assert _fleet_attack(fleet, WITHOUT) == (0, 1)
    assert _fleet_attack(fleet, SPARE) == (0, 0)
