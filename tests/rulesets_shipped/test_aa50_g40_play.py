"""Short games under the AA50 and G40 rulesets: the bases play to a result with random and
heuristic agents, the house-rule compositions play too, and the house rules act in play (their
hooks run and leave their events in the log). A scripted bombing raid plays each base's raid step.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from ruleslang.workspace.compositions import Workspace
from ruleslang.runtime.agents.scripted import ScriptedAgent
from ruleslang.runtime.saves import GameSetup, build_game

REPO = Path(__file__).resolve().parents[2]
WORKSPACE = Workspace([REPO / "rulesets"])
ROUNDS = 2


def play(refs, agent, *, seed=1, rounds=ROUNDS, scenario=None, orders=None):
    setup = GameSetup(refs=list(refs), seed=seed, rounds=rounds, default_agent=agent)
    text = yaml.safe_dump(scenario, sort_keys=False) if scenario is not None else None
    game = build_game(WORKSPACE, setup, scenario_text=text)
    for player, plan in (orders or {}).items():
        game.agents[player] = ScriptedAgent(player, plan)
    return game, game.run(rounds)


def events(game, kind):
    return [e for e in game.state.events if e.get("kind") == kind]


def hooks_run(game) -> set[str]:
    return {e["name"] for e in events(game, "hook")}


def logged(game, text) -> list[str]:
    return [e["message"] for e in events(game, "log") if text in e["message"]]


def assert_finished(game, result, rounds=ROUNDS):
    assert result["rounds_played"] == rounds
    assert "winner" in result and result["reason"]
    assert set(result["scores"]) >= {"Axis", "Allies"}
    assert events(game, "battle"), "no battle was fought"


@pytest.mark.parametrize("refs", [["aa50/base@1"], ["g40/base@1"]], ids=["aa50", "g40"])
@pytest.mark.parametrize("agent", ["random", "heuristic"])
def test_the_bases_play_to_a_result(refs, agent):
    game, result = play(refs, agent)
    assert_finished(game, result)
    # the rules' own battle steps ran
    steps = {e["name"] for e in events(game, "phase") if e.get("stage") == "start"}
    assert {"battle_start", "submarine_fire", "attacker_fire", "defender_fire", "research", "repair"} <= steps


def test_aa50_house_rules_act_in_play():
    game, result = play(["aa50/house-rules@1"], "random")
    assert_finished(game, result)
    ran = hooks_run(game)
    assert {"convoy_raids_at_income", "detection_before_opening_fire", "declare_d_day",
            "artillery_opens_the_land_battle"} <= ran
    # convoy raids take their toll from the UK's income (the 1942 setup has German subs by the UK)
    assert logged(game, "convoy raids take"), "no convoy raid was logged"


def test_g40_house_rules_act_in_play():
    game, result = play(["g40/house-rules@1"], "heuristic")
    assert_finished(game, result)
    ran = hooks_run(game)
    assert {"uk_collect_income", "uk_research_applies_to_both", "scramble_after_combat_move",
            "return_before_noncombat_move", "kamikaze_before_the_first_round"} <= ran
    # the UK's two economies collect apart
    assert logged(game, "British collects") and logged(game, "UK_Pacific collects")


def test_aa50_a_bombing_raid_plays_the_raid_step_and_counts_as_economic_attack():
    orders = {"British": [{"round": 1, "combat": [{"from": "United Kingdom", "type": "bomber", "count": 1,
                                                   "to": "Germany", "kind": "bomb"}]}]}
    game, _ = play(["aa50/house-rules@1"], "scripted", rounds=1, orders=orders)
    assert [e["space"] for e in events(game, "raid")] == ["Germany"]
    assert logged(game, "bombing raid on Germany")
    assert "bombing_counts_as_economic_attack" in hooks_run(game)


def test_g40_a_bombing_raid_plays_the_raid_step():
    orders = {"British": [{"round": 1, "combat": [{"from": "United Kingdom", "type": "bomber", "count": 1,
                                                   "to": "Western Germany", "kind": "bomb"}],
                           "answers": {"bombing_raid.target": "industrial_complex"}}]}
    game, _ = play(["g40/house-rules@1"], "scripted", rounds=1, orders=orders)
    assert [e["space"] for e in events(game, "raid")] == ["Western Germany"]
    raid_steps = [e for e in events(game, "phase") if e.get("name") == "bombing_raid" and e.get("stage") == "start"]
    assert len(raid_steps) == 1
    # the complex's own AA rolled at the bomber; the bombing's damage (one die, g40/bombing) is the
    # complex's damage on the board
    (bombed,) = logged(game, "bomb the industrial_complex of Western Germany")
    damage = int(bombed.rsplit(": ", 1)[1].split()[0])
    assert 0 <= damage <= 6
    assert game.state.factories["Western Germany"].damage == damage
