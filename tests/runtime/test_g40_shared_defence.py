"""Several defending powers under g40/base@1 (rulesets/g40/README.md, "Battles"): each chooses its
own casualties, the defender of the space deciding how many fall on each (`casualty_chooser`, the
battle's `casualties_by` setting), as aar/base@1 reads the printed rules."""

from __future__ import annotations

from game_fixtures import count, events, ids, load_dice, make_game, run_phases
from ruleslang.runtime.agents.scripted import ScriptedAgent

BASE = ["g40/base@1"]
FROM, ZONE = "96 Sea Zone", "98 Sea Zone"


def test_each_defending_power_chooses_its_own_casualties():
    units = {FROM: {"Italians": {"battleship": 1}},
             ZONE: {"British": {"destroyer": 2}, "ANZAC": {"transport": 1, "destroyer": 1}}}
    orders = {"Italians": [{"round": 1, "combat": [{"from": FROM, "type": "battleship", "to": ZONE}],
                            "answers": {"attacker_retreat.go": True, "attacker_retreat.to": FROM}}]}
    game = make_game(BASE, scenario={"setup": "empty", "units": units}, orders=orders)
    anzac = ids(game, ZONE, "ANZAC", "destroyer")
    british = ids(game, ZONE, "British", "destroyer")
    # the British (the defender: the most units) give the hit to the ANZAC destroyer's owner, who
    # chooses which of its own units takes it
    game.agents["British"] = ScriptedAgent("British", [{"round": 1, "casualties": anzac}])
    game.agents["ANZAC"] = ScriptedAgent("ANZAC", [{"round": 1, "casualties": anzac}])
    # the battleship hits (1); the three destroyers miss (6, 6, 6); the Italians retreat
    loaded = load_dice(game, [1, 6, 6, 6])
    run_phases(game, "Italians", "combat_move", "battle")
    assert loaded.left == 0
    asked = [(e["player"], e["answer"]) for e in events(game, "decision") if e.get("decision") == "casualties"]
    assert [p for p, _ in asked] == ["British", "ANZAC"]
    assert count(game, ZONE, "ANZAC", "destroyer") == 0 and count(game, ZONE, "ANZAC", "transport") == 1
    assert count(game, ZONE, "British", "destroyer") == len(british) == 2
