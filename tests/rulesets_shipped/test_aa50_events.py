"""The log of a short seeded AA50 game under the house rules, read back and counted by kind of
event: national objectives are paid (one procedure run per objective, with its treasury event),
and China's units stay in the territories aa50/base@1 lets them enter."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest
import ruleslang
import yaml
from ruleslang.runtime.agents.scripted import ScriptedAgent
from ruleslang.runtime.saves import GameSetup, build_game, write_log
from ruleslang.workspace.compositions import Workspace

REPO = Path(__file__).resolve().parents[2]
WORKSPACE = Workspace([REPO / "rulesets"])
ROUNDS = 3


@pytest.fixture(scope="module")
def house_rules_log(tmp_path_factory) -> list[dict]:
    """The start record and the events of a 3-round heuristic game under aa50/house-rules@1, as
    its log file holds them."""
    game = build_game(WORKSPACE, GameSetup(refs=["aa50/house-rules@1"], seed=1, rounds=ROUNDS,
                                           default_agent="heuristic"))
    game.run(ROUNDS)
    path = tmp_path_factory.mktemp("aa50") / "game.jsonl"
    write_log(str(path), game, None, finished=True)
    lines = path.read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines[1:]]


def procedure_spans(events: list[dict], name: str) -> list[list[dict]]:
    """The events inside each run of the procedure NAME (between its start and end)."""
    spans, current = [], None
    for e in events:
        if e.get("kind") == "phase" and e.get("name") == name:
            if e["stage"] == "start":
                current = []
            else:
                spans.append(current)
                current = None
        elif current is not None:
            current.append(e)
    return spans


def objective_table() -> dict[str, tuple[str, int]]:
    """Each objective's nation and value, read from the ruleset by the language."""
    rows = ruleslang.load("aa50/base@1").eval(
        "[{name: k, nation: national_objective(k).nation, value: national_objective(k).value} "
        "for k in sorted(keys(national_objective))]")
    return {row["name"]: (row["nation"], row["value"]) for row in rows}


def test_national_objectives_are_paid_and_logged(house_rules_log):
    table = objective_table()
    paid = procedure_spans(house_rules_log[1:], "national_objective_bonus")
    assert paid, "no national objective was paid in 3 rounds"
    per_nation = Counter()
    for span in paid:
        (message,) = [e["message"] for e in span if e["kind"] == "log"]
        (money,) = [e for e in span if e["kind"] == "treasury"]
        nation, rest = message.split(" meets the national objective ", 1)
        name = rest.rsplit(": ", 1)[0]
        # the objective is one of the nation's, and the treasury rose by its value
        assert table[name] == (nation, money["amount"]) and money["player"] == nation
        per_nation[nation] += 1
    # several powers of both sides meet objectives from the start (1942 setup)
    assert {"Germans", "Japanese", "British", "Americans"} <= set(per_nation)
    # an objective is paid at most once a turn: never more runs than turns times objectives
    turns = Counter(e["player"] for e in house_rules_log if e["kind"] == "turn")
    for nation, count in per_nation.items():
        assert count <= turns[nation] * sum(1 for n, _ in table.values() if n == nation)


def test_chinese_units_move_only_within_china(house_rules_log):
    allowed = set(ruleslang.load("aa50/base@1").eval("chinese_territories()"))
    start, events = house_rules_log[0], house_rules_log[1:]
    chinese = {u["id"] for u in start["units"] if u["owner"] == "Chinese"}
    chinese |= {i for e in events if e["kind"] == "add_units" and e["owner"] == "Chinese" for i in e["ids"]}
    moves = [e for e in events if e["kind"] == "move_units" and chinese & set(e["ids"])]
    assert moves, "China moved nothing in 3 rounds"
    for e in moves:
        assert set(e.get("path", [e["to"]])[1:] + [e["to"]]) <= allowed, e


def test_d_day_the_us_moves_a_uk_fighter_into_france_and_chooses_the_casualties():
    """A scripted D-Day: the UK declares it, the US sends a UK fighter (one the UK did not use)
    with its own bomber against France; the UK fighter fights in the US battle, and the UK having
    agreed, the US chooses the casualties of both."""
    scenario = {"map": "aa50-1942", "turn": {"round": 1, "player": "British"},
                "units": {"7 Sea Zone": None, "France": {"Germans": {"infantry": 4}},
                          "United Kingdom": {"British": {"fighter": 1, "infantry": 1}, "Americans": {"bomber": 1}}}}
    game = build_game(WORKSPACE, GameSetup(refs=["aa50/house-rules@1"], seed=3, rounds=1, default_agent="heuristic"),
                      scenario_text=yaml.safe_dump(scenario, sort_keys=False))
    fighter = next(u.id for u in game.state.units if u.space == "United Kingdom" and u.type == "fighter")
    bomber = next(u.id for u in game.state.units if u.space == "United Kingdom" and u.type == "bomber")
    game.agents["British"] = ScriptedAgent("British", [{"round": 1, "answers": {"declare_d_day.declare": True}}])
    game.agents["Americans"] = ScriptedAgent("Americans", [{"round": 1, "combat": [{"unit": fighter, "to": "France"},
                                                                                  {"unit": bomber, "to": "France"}],
                                                           "answers": {"d_day_casualty_agreement.agree": True}}])
    game.run(1)
    events = game.state.events
    moved = [e for e in events if e["kind"] == "move_units" and fighter in e["ids"]]
    assert moved and moved[0]["to"] == "France"
    (battle,) = [e for e in events if e["kind"] == "battle" and e["space"] == "France"]
    assert battle["attacker"] == "Americans" and battle["attacking"] == 2
    assert any("the UK and the US agree" in e.get("message", "") for e in events if e["kind"] == "log")
    # every hit on the attackers in France was chosen by the US, the UK fighter among the choices
    on_attackers = [e for e in events if e["kind"] == "hits" and e["space"] == "France" and e["side"] == "attacker"]
    assert on_attackers and all(e["by"] == "Americans" for e in on_attackers)
