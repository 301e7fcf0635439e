"""The heuristic bot uses Global 1940's rules on their merits, as the rulesets advise it: kamikaze
tokens (two strikes for each enemy surface warship in reach, spread over the ships, as far as the
tokens go) and scrambles (when the defence with the aircraft fires at least as hard as the attack)."""

from __future__ import annotations

from game_fixtures import ids, make_game, run_phases
from ruleslang.runtime.agents.scripted import ScriptedAgent

HOUSE = ["g40/house-rules@1"]
AT_WAR = {"war_declared": {"Japanese": {"Americans": True}}}


def _kamikaze(game) -> list[dict]:
    return [e for e in game.state.events if e.get("kind") == "decision" and str(e.get("id", "")).startswith("kamikaze")]


def test_the_heuristic_bot_strikes_twice_at_each_warship_in_reach():
    units = {"6 Sea Zone": {"Americans": {"battleship": 1, "destroyer": 1, "transport": 1}, "Japanese": {"destroyer": 1}}}
    game = make_game(HOUSE, scenario={"units": units, "counters": AT_WAR}, agents={"Japanese": "heuristic"},
                     orders={"Americans": [{"round": 1}]})
    run_phases(game, "Americans", "combat_move", "battle")
    decisions = _kamikaze(game)
    assert decisions[0]["id"] == "kamikaze_strikes.n" and decisions[0]["answer"] == 4   # 2 warships, 6 tokens
    struck = [d["answer"]["type"] for d in decisions[1:]]
    assert sorted(struck) == ["battleship", "battleship", "destroyer", "destroyer"]      # never the transport
    spent = [e for e in game.state.events if e.get("kind") == "counter" and e.get("name") == "suicide_attack_tokens"]
    assert [(e["before"], e["after"]) for e in spent] == [(6, 2)]


def test_no_strike_where_no_warship_is_in_reach():
    units = {"6 Sea Zone": {"Americans": {"submarine": 1, "transport": 1}, "Japanese": {"destroyer": 1}}}
    game = make_game(HOUSE, scenario={"units": units, "counters": AT_WAR}, agents={"Japanese": "heuristic"},
                     orders={"Americans": [{"round": 1}]})
    run_phases(game, "Americans", "combat_move", "battle")
    assert _kamikaze(game) == []        # the step offers nothing without a target; no token spent


def _scramble_offer(escort: dict):
    """Germans unload two infantry into Scotland from SZ 119 with `escort` beside the transport;
    Scotland holds an air base and two British fighters, and the British are the heuristic bot."""
    zone, coast = "119 Sea Zone", "Scotland"
    units = {zone: {"Germans": {"transport": 1, "infantry": 2, **escort}},
             coast: {"British": {"airfield": 1, "fighter": 2, "infantry": 1}}}
    game = make_game(HOUSE, scenario={"units": units}, agents={"British": "heuristic"})
    transport = ids(game, zone, "Germans", "transport")[0]
    infantry = ids(game, zone, "Germans", "infantry")
    game.state.move_units(infantry, zone, 0, onto=transport)
    combat = [{"unit": uid, "to": coast, "kind": "unload", "transport": transport} for uid in infantry]
    game.agents["Germans"] = ScriptedAgent("Germans", [{"round": 1, "combat": combat}])
    run_phases(game, "Germans", "combat_move")
    (offer,) = [e for e in game.state.events if e.get("kind") == "decision" and e.get("id") == "scramble.sent"]
    return offer


def test_the_heuristic_bot_scrambles_against_a_weakly_escorted_landing():
    offer = _scramble_offer({})                            # the transport alone: fighters at 4 against nothing
    assert len(offer["answer"]) == 2


def test_the_heuristic_bot_keeps_its_aircraft_home_against_a_strong_fleet():
    offer = _scramble_offer({"battleship": 2, "cruiser": 2})   # attack 4+4+3+3 against two fighters at 4
    assert offer["answer"] == []


def test_the_heuristic_bot_sends_its_bombarding_ships_with_a_landing_and_japan_strikes_them():
    """g40/base@1's `advice landing_support`: a cruiser (it bombards) sails with the landing on
    Iwo Jima to the zone it is made from, a destroyer (it does not) stays; that zone is a
    kamikaze zone, so the Japanese bot strikes the cruiser twice."""
    units = {"24 Sea Zone": {"Americans": {"transport": 1, "infantry": 1, "armour": 1}},
             "23 Sea Zone": {"Americans": {"cruiser": 1, "destroyer": 1}},
             "Iwo Jima": {"Japanese": {"infantry": 0}}}
    game = make_game(HOUSE, scenario={"units": units, "counters": AT_WAR},
                     agents={"Japanese": "heuristic", "Americans": "heuristic"})
    transport = ids(game, "24 Sea Zone", "Americans", "transport")[0]
    cargo = [u.id for u in game.state.units if u.space == "24 Sea Zone" and u.id != transport]
    game.state.move_units(cargo, "24 Sea Zone", 0, onto=transport)
    cruiser = ids(game, "23 Sea Zone", "Americans", "cruiser")[0]
    destroyer = ids(game, "23 Sea Zone", "Americans", "destroyer")[0]
    run_phases(game, "Americans", "combat_move")
    assert game.unit_or_none(transport).space == "17 Sea Zone"
    assert game.unit_or_none(cruiser).space == "17 Sea Zone"
    assert game.unit_or_none(destroyer).space == "23 Sea Zone"
    run_phases(game, "Americans", "battle")
    # the strikes on the landing's battle (the bot's other attacks at sea may draw strikes too)
    events = game.state.events
    start = next(i for i, e in enumerate(events) if e.get("kind") == "battle" and e["space"] == "Iwo Jima")
    end = next((i for i, e in enumerate(events) if i > start and e.get("kind") == "battle"), len(events))
    decisions = [e for e in events[start:end] if e.get("kind") == "decision"
                 and str(e.get("id", "")).startswith("kamikaze")]
    assert decisions[0]["answer"] == 2
    assert [d["answer"]["id"] for d in decisions[1:]] == [cruiser, cruiser]
