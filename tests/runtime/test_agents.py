"""The built-in agents as players of rules they were not written for: they try their moves
against the rules' `constraint on move` before answering, they fly bombing raids, and every
player of the map (neutral powers too) has an agent. Also what the rules read during play:
`contested()`, counters that hold units, a factory changing hands."""

from __future__ import annotations

import pytest

from game_fixtures import events, make_game, run_phases
from ruleslang.base.paths import packaged_root
from ruleslang.workspace.compositions import Workspace
from ruleslang.ruletests.runner import TestRunner

LANDLOCKED = """\
ruleset agents/landlocked@1
uses aar/base@1

# no move may cross or end in a sea zone (air units too): most of the moves an agent would
# otherwise pick are refused
constraint stay_over_land on move(p, moving, path):
    for s in path where not is_land(s):
        require false else "{s} is a sea zone"
"""

WATCH = """\
ruleset agents/watch@1
uses aar/base@1

counter watched -> list of unit = []
counter fights -> int = 0

phase remember:
    set watched to units("Germany")

phase note_contested:
    set fights to count(contested())

phase damage_then_capture:
    set factory_damage("Germany") to 4
    set factory_owner("Germany") to British

test "a counter holding units gives the units back":
    run remember
    expect count(watched) == count(units("Germany"))
    expect all(u.space == "Germany" for u in watched)

test "a factory changing hands keeps its kind and its damage":
    run damage_then_capture
    expect factory_owner("Germany") == British
    expect factory_damage("Germany") == 4
"""


def workspace(tmp_path, name: str, text: str) -> Workspace:
    folder = tmp_path / name.split("/")[0]
    folder.mkdir(exist_ok=True)
    (folder / f"{name.split('/')[1]}.rules").write_text(text)
    return Workspace([tmp_path, packaged_root()])


@pytest.mark.parametrize("agent", ["random", "heuristic"])
def test_agents_skip_moves_the_rules_forbid_instead_of_having_them_refused(tmp_path, agent):
    game = make_game(["agents/landlocked@1"], default_agent=agent, seed=5, rounds=2,
                     workspace=workspace(tmp_path, "agents/landlocked@1", LANDLOCKED))
    game.run(2)
    moves = [e for e in events(game, "decision", decision="move") if "path" in e["answer"]]
    assert len(moves) > 20                                  # the players did move
    assert events(game, "refused", decision="move") == []   # none was refused
    assert events(game, "fallback", decision="move") == []
    # and no unit stands in a sea zone it moved into (ships that never moved aside)
    sea_moves = [m for m in moves if any(not game.board.is_land(s) for s in m["answer"]["path"])]
    assert sea_moves == []


def test_the_heuristic_agent_raids_an_enemy_factory_with_a_spare_bomber():
    scenario = {"setup": "empty", "units": {"Western Europe": {"British": {"bomber": 1}},
                                            "Germany": {"Germans": {"infantry": 1}}},
                "factories": {"Germany": "Germans"}}
    game = make_game(["aar/base@1"], scenario=scenario, agents={"British": "heuristic"})
    run_phases(game, "British", "combat_move", "battle")
    raids = events(game, "raid")
    assert [(r["space"], r["attacker"], r["units_in_raid"]) for r in raids] == [("Germany", "British", 1)]
    assert any(e.get("by") == "bombing_raid" for e in events(game, "log"))


def test_the_random_agent_flies_raids_too():
    game = make_game(["aar/base@1"], default_agent="random", seed=1, rounds=10)
    game.run(10)
    assert events(game, "raid")


def test_neutral_powers_have_agents_that_choose_their_casualties():
    game = make_game(["g40/base@1"], rounds=1)
    neutrals = [p.name for p in game.state.map.players if p.name not in game.state.map.turn_order]
    assert neutrals and all(p in game.agents for p in neutrals)


def test_contested_lists_the_battles_of_the_combat_move_until_they_are_fought(tmp_path):
    scenario = {"setup": "empty", "units": {"Germany": {"Germans": {"infantry": 2}},
                                            "Eastern Europe": {"Russians": {"infantry": 1}}}}
    orders = {"Germans": [{"round": 1, "combat": [{"from": "Germany", "type": "infantry", "count": 2,
                                                   "to": "Eastern Europe"}]}]}
    game = make_game(["agents/watch@1"], scenario=scenario, orders=orders,
                     workspace=workspace(tmp_path, "agents/watch@1", WATCH))
    run_phases(game, "Germans", "combat_move", "note_contested")
    assert game.ctx.counter("fights", ()) == 1
    run_phases(game, "Germans", "battle", "note_contested")
    assert game.ctx.counter("fights", ()) == 0


def test_rule_tests_of_counters_holding_units_and_captured_factories_pass(tmp_path):
    ws = workspace(tmp_path, "agents/watch@1", WATCH)
    loaded = ws.load(["agents/watch@1"])
    assert loaded.ok
    results = TestRunner(ws).run(loaded)
    assert [(r.title, r.status, r.message) for r in results] == [
        ("a counter holding units gives the units back", "pass", ""),
        ("a factory changing hands keeps its kind and its damage", "pass", "")]
