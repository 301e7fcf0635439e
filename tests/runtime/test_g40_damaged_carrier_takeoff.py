"""An ally's air units aboard a damaged carrier under g40/base@1 (rulesets/g40/README.md,
"Carriers"): they may not take off (TripleA whenCombatDamaged "unitsMayNotLeaveAlliedCarrier",
the move setting `releases_air`), while the carrier's owner's own may; an air unit counts on its
own power's carriers first, so one with room on its own carrier in the zone takes off."""

from __future__ import annotations

import pytest

from game_fixtures import count, events, ids, make_game, run_phases
from ruleslang.runtime.agents.scripted import ScriptedAgent

BASE = ["g40/base@1"]
ZONE, HOME = "110 Sea Zone", "United Kingdom"


def _fly_home(player: str, zone_units: dict, damaged: bool):
    game = make_game(BASE, scenario={"setup": "empty", "units": {ZONE: zone_units}})
    fighter = ids(game, ZONE, player, "fighter")[0]
    game.agents[player] = ScriptedAgent(player, [{"round": 1, "noncombat": [{"unit": fighter, "to": HOME}]}])
    if damaged:
        game.state.update_units(ids(game, ZONE, "French", "carrier"), hits=1)
    run_phases(game, player, "noncombat_move")
    refusals = [r for e in events(game, "refused") for r in e["reasons"]]
    return game, refusals


@pytest.mark.parametrize("damaged", [False, True])
def test_an_allys_fighter_does_not_take_off_from_a_damaged_carrier(damaged):
    game, refusals = _fly_home("British", {"French": {"carrier": 1}, "British": {"fighter": 1}}, damaged)
    assert count(game, HOME, "British", "fighter") == (0 if damaged else 1)
    assert any("does not let it take off" in r for r in refusals) == damaged


def test_the_carriers_owner_own_fighter_takes_off_from_it():
    game, refusals = _fly_home("French", {"French": {"carrier": 1, "fighter": 1}}, damaged=True)
    assert count(game, HOME, "French", "fighter") == 1 and refusals == []


def test_a_fighter_with_room_on_its_own_carrier_takes_off():
    units = {"French": {"carrier": 1}, "British": {"carrier": 1, "fighter": 1}}
    game, refusals = _fly_home("British", units, damaged=True)
    assert count(game, HOME, "British", "fighter") == 1 and refusals == []
