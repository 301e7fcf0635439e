"""TripleA's "Partial Amphibious Retreat" under g40/base@1 (and aa50/base@1, the same formulas):
in an amphibious assault the land units that came overland retreat to where they came from,
while those that came ashore from a transport stay and fight on (the battle setting `stays`)."""

from __future__ import annotations

from game_fixtures import count, events, ids, load_dice, make_game, run_phases
from ruleslang.runtime.agents.scripted import ScriptedAgent

ZONE, TARGET, OVERLAND = "110 Sea Zone", "Normandy Bordeaux", "Holland Belgium"


def test_the_units_that_came_overland_retreat_and_the_landed_ones_fight_on():
    units = {ZONE: {"Germans": {"transport": 1, "infantry": 1}},
             OVERLAND: {"Germans": {"armour": 2}},
             TARGET: {"French": {"infantry": 3}}}
    game = make_game(["g40/base@1"], scenario={"setup": "empty", "units": units})
    transport = ids(game, ZONE, "Germans", "transport")[0]
    (infantry,) = ids(game, ZONE, "Germans", "infantry")
    tanks = ids(game, OVERLAND, "Germans", "armour")
    game.state.move_units([infantry], ZONE, 0, onto=transport)
    combat = [{"unit": infantry, "to": TARGET, "kind": "unload", "transport": transport},
              {"from": OVERLAND, "type": "armour", "count": 2, "to": TARGET}]
    game.agents["Germans"] = ScriptedAgent("Germans", [{"round": 1, "combat": combat, "answers": {
        "attacker_retreat.go": True, "attacker_retreat.to": OVERLAND}}])
    # round 1: the three attackers miss, the three defenders miss; the Germans retreat (only
    # Holland Belgium is offered: the sea zone is where the staying infantry came from).
    # round 2: the infantry misses; a defender's 1 destroys it
    loaded = load_dice(game, [6, 6, 6, 6, 6, 6, 6, 1, 6, 6])
    run_phases(game, "Germans", "combat_move", "battle")
    assert loaded.left == 0
    offered = [e["offered"]["options"] for e in events(game, "decision")
               if e.get("decision") == "choose" and OVERLAND in e["offered"]["options"]]
    assert offered == [[OVERLAND]]
    (retreat,) = events(game, "retreat")
    assert sorted(retreat["units"]) == sorted(tanks) and retreat["to"] == OVERLAND
    assert count(game, OVERLAND, "Germans", "armour") == 2
    (end,) = events(game, "battle_end")
    assert (end["result"], end["rounds"], end["attacker_left"]) == ("defender", 2, 0)
    assert game.unit_or_none(infantry) is None
