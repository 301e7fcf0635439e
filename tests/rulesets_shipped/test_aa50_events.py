"""The log of a short seeded AA50 game under the house rules, read back and counted by kind of
event: national objectives are paid (one procedure run per objective, with its treasury event),
and China's units stay in the territories aa50/base@1 lets them enter."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest
import ruleslang
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
