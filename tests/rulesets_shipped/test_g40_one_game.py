"""Issue 12's done-when game: one seeded 10-round game under g40/house-rules@1 with heuristic
agents, its log written and read back, and each kind of event the house rules bring counted in
that one game: the UK's two economies buying apart and moving as one power, escorts and
interceptors in bombing raids, national objectives paid, declarations of war and the United
States entering the war, kamikaze strikes and scrambles.

The game takes about 9 s of CPU on this machine (ten rounds of ten powers), so it is played once
for the module and every test reads the same log.
"""

from __future__ import annotations

import re
from collections import Counter

import pytest
from game_logs import played_log
ROUNDS = 10
# a seed in which every kind of event below happens: of seeds 1-12, only 11 once the odds left the
# powers at peace out of a sea battle's defence (seed 6 before)
SEED = 11
AXIS = {"Germans", "Italians", "Japanese"}
UK = ("British", "UK_Pacific")


@pytest.fixture(scope="module")
def log(tmp_path_factory) -> list[dict]:
    """The events of the game, each with the round and the player whose turn it falls in, as its
    log file holds them (game_logs.py)."""
    return played_log(["g40/house-rules@1"], SEED, ROUNDS, tmp_path_factory.mktemp("g40"))


def decisions(log: list[dict], decision_id: str) -> list[dict]:
    return [e for e in log if e["kind"] == "decision" and e.get("id") == decision_id]


def messages(log: list[dict], by: str) -> list[dict]:
    return [e for e in log if e["kind"] == "log" and e["by"] == by]


def unit_types(log: list[dict]) -> dict[int, str]:
    """Unit id -> type, from the starting state and the units added since."""
    types = {}
    for e in log:
        if e["kind"] == "start":
            types.update((u["id"], u["type"]) for u in e["units"])
        elif e["kind"] == "add_units":
            types.update((i, e["unit_type"]) for i in e["ids"])
    return types


def test_the_uk_economies_buy_apart_and_move_together(log):
    purchases = Counter(e["player"] for e in log if e["kind"] == "purchase")
    assert purchases["British"] == ROUNDS and purchases["UK_Pacific"] == ROUNDS
    # each economy pays from its own treasury: a purchase's cost leaves the buyer's treasury
    for i, e in enumerate(log):
        if e["kind"] == "purchase" and e["player"] in UK and e["spent"]:
            change = next(x for x in reversed(log[:i]) if x["kind"] == "treasury")
            assert (change["player"], change["amount"]) == (e["player"], -e["spent"])
    # the Pacific economy mobilizes British units, and every UK unit moves in British's turn
    pacific = [e for e in log if e["kind"] == "place" and e["player"] == "UK_Pacific"]
    assert pacific and all(e["owner"] == "British" for e in pacific)
    moves = Counter(e["_turn"] for e in log if e["kind"] == "move_units")
    assert moves["UK_Pacific"] == 0 and moves["British"] > 100


def test_escorts_fly_with_raids_and_interceptors_meet_them(log):
    types = unit_types(log)
    raiding = Counter(types[e["ids"][0]] for e in log if e["kind"] == "move_units" and e.get("flags", {}).get("bombing"))
    assert raiding["fighter"] >= 1, raiding          # fighters fly only as escorts (g40/base's `escorts`)
    committed = [e for e in decisions(log, "bombing_raid.committed") if e["answer"]]
    assert committed
    battles = [e["message"] for e in messages(log, "bombing_raid") if e["message"].startswith("air battle over")]
    assert len(battles) == len(committed)            # an air battle wherever interceptors were committed


def test_national_objectives_pay_both_sides(log):
    paid = Counter(re.match(r"(\w+) national objective", e["message"]).group(1)
                   for e in messages(log, "national_objectives"))
    assert sum(paid.values()) >= 30, paid
    assert set(paid) & AXIS and set(paid) - AXIS, paid


def test_declarations_of_war_and_the_united_states_entry(log):
    declared = [e for e in decisions(log, "declarations.declared") if e["answer"]]
    lines = messages(log, "declarations")
    assert declared and len(lines) == sum(len(e["answer"]) for e in declared)
    # the United States is at war with every Axis power at the end of its third turn: those that
    # did not declare war on it before enter it then
    entered = messages(log, "us_enters_war")
    assert entered and {(e["_round"], e["_turn"]) for e in entered} == {(3, "Americans")}
    early = {e["player"] for e in declared if e["_round"] <= 3 and "Americans" in e["answer"]}
    assert {e["message"].split()[0] for e in entered} == AXIS - early


def test_kamikaze_tokens_are_spent(log):
    struck = [e for e in decisions(log, "kamikaze_strikes.n") if e["answer"]]
    assert struck and all(e["_turn"] in {"Americans", "British", "ANZAC"} for e in struck)
    spent = [(e["before"], e["after"]) for e in log if e["kind"] == "counter" and e["name"] == "suicide_attack_tokens"]
    assert [b - a for b, a in spent] == [e["answer"] for e in struck]
    assert spent[-1][1] >= 0 and len(messages(log, "kamikaze_strikes")) >= len(struck)


def test_fighters_scramble(log):
    sent = [e for e in decisions(log, "scramble.sent") if e["answer"]]
    assert sent
    lines = messages(log, "scramble")
    assert len(lines) == sum(len(e["answer"]) for e in sent)
    # the defender scrambles, in the attacker's turn
    assert all(e["player"] != e["_turn"] for e in sent)
