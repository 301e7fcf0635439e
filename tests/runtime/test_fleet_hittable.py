"""Attacks at sea judged by what the rules let their units hit (the heuristic agent's SPARE part
"hittable", session 21): the rules' `stalemate` setting asked of units before they meet
(runtime/agents/meetings.py), an attack whose aircraft can hit every defender made on its quick
chance, one with a defender it cannot hit at all not asked of the chain."""

from __future__ import annotations

from game_fixtures import BASE, make_game, run_phases, ids
from ruleslang.runtime.agents.battle_odds import CHAIN
from ruleslang.runtime.agents.heuristic import HeuristicAgent
from ruleslang.runtime.agents.meetings import Stalemates

BALTIC = "5 Sea Zone"


def _game(units: dict):
    return make_game(BASE, scenario={"setup": "empty", "units": {
        **units, "United Kingdom": {"British": {"infantry": 1}}}}, agents={"Germans": "heuristic"})


def test_the_rules_stalemate_is_asked_of_units_where_they_stand():
    game = _game({"Germany": {"Germans": {"fighter": 1, "infantry": 1}},
                  BALTIC: {"British": {"submarine": 1, "transport": 1}, "Germans": {"destroyer": 1}}})
    def unit(space, owner, unit_type):
        return game.unit_or_none(ids(game, space, owner, unit_type)[0])
    fighter, infantry, destroyer = (unit(s, "Germans", t) for s, t in
                                    (("Germany", "fighter"), ("Germany", "infantry"), (BALTIC, "destroyer")))
    submarine, transport = (unit(BALTIC, "British", t) for t in ("submarine", "transport"))
    stalemates = Stalemates(game)
    # (aar/base@1: an air unit hits a submarine only beside a destroyer of its side, a submarine
    # hits no air unit; a transport fires at 0 but a fighter hits it)
    assert stalemates.at_once(BALTIC, "Germans", [fighter], submarine) is True
    assert stalemates.at_once(BALTIC, "Germans", [fighter, destroyer], submarine) is False
    assert stalemates.at_once(BALTIC, "Germans", [fighter], transport) is False
    # (an infantry at sea is no unit the rules keep from a submarine: the setting reads the tags alone)
    assert stalemates.at_once(BALTIC, "Germans", [infantry], submarine) is False
    assert game.ctx.battle is None  # (the battle it asked of is gone again)


def _fleet_attack(units: dict, **options) -> tuple[int, int]:
    """(how many German units attack the Baltic in the combat move of the Germans' agent made with
    `options`, the chains its fleet odds ran)."""
    game = _game(units)
    agent = game.agents["Germans"] = HeuristicAgent(1, "Germans", **options)
    run_phases(game, "Germans", "combat_move")
    return len(ids(game, BALTIC, "Germans")), agent.fleet_odds.counts[CHAIN]


def test_an_attack_at_sea_by_aircraft_that_hit_every_defender_asks_no_chain():
    # two fighters against a transport: the quick simulation wins nearly always; no ships win
    # alone, so "fleets" alone asks the chain (which says yes), "hittable" does not need it
    planes = {"Germany": {"Germans": {"fighter": 2, "infantry": 1}}, BALTIC: {"British": {"transport": 1}}}
    made, chains = _fleet_attack(planes, spare=("fleets",))
    assert made >= 1 and chains >= 1
    assert _fleet_attack(planes, spare=("fleets", "hittable")) == (made, 0)


def test_an_attack_at_sea_on_a_defender_it_cannot_hit_asks_no_chain():
    # fighters against a submarine: the chain says no (no chance at all); "hittable" says so
    # without it, as the rules' stalemate setting answers
    planes = {"Germany": {"Germans": {"fighter": 2, "infantry": 1}}, BALTIC: {"British": {"submarine": 1}}}
    made, chains = _fleet_attack(planes, spare=("fleets", "zeros"))
    assert made == 0 and chains >= 1
    assert _fleet_attack(planes, spare=("fleets", "zeros", "hittable")) == (0, 0)
