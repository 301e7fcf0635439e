"""A seeded Global 1940 game under the house rules, read from its log: the powers declare war as
g40/base@1's politics allow, the United States enters the war as the rules say, no battle is
fought between powers at peace, and national objectives pay (one log line and one treasury
change each, none of the United States' before it is at war).
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import pytest

from ruleslang.runtime.saves import GameSetup, build_game
from ruleslang.workspace.compositions import Workspace

REPO = Path(__file__).resolve().parents[2]
WORKSPACE = Workspace([REPO / "rulesets"])
AXIS = {"Germans", "Italians", "Japanese"}
# g40/base@1's wars at the start (TripleA's relationshipInitialize)
ALLIES = {"British", "UK_Pacific", "ANZAC", "French", "Dutch", "Chinese"}
AT_START = {frozenset(p) for p in [("Germans", x) for x in ("British", "UK_Pacific", "ANZAC", "French", "Dutch")]
            + [("Italians", x) for x in ("British", "UK_Pacific", "ANZAC", "French", "Dutch")]
            + [("Japanese", "Chinese")]
            # the pro-Allied neutrals are the Axis's unfriendly neutrals, the pro-Axis ones the Allies'
            + [(a, "Neutral_Allies") for a in AXIS] + [(a, "Neutral_Axis") for a in ALLIES]}
OBJECTIVE = re.compile(r"^(\w+) national objective (\w+): (\d+) IPCs$")


@pytest.fixture(scope="module")
def game():
    setup = GameSetup(refs=["g40/house-rules@1"], seed=1, rounds=3, default_agent="heuristic")
    played = build_game(WORKSPACE, setup)
    result = played.run(3)
    assert result["rounds_played"] == 3
    return played


def walk(game):
    """The log in order, each event with the round it falls in and the wars in force then."""
    wars, round_ = set(AT_START), 0
    for e in game.state.events:
        if e["kind"] == "round":
            round_ = e["round"]
        elif e["kind"] == "counter" and e["name"] == "war_declared" and e["after"]:
            wars.add(frozenset(e["key"]))
        yield round_, frozenset(wars), e


def test_every_battle_is_between_powers_at_war(game):
    battles = [(wars, e) for _, wars, e in walk(game) if e["kind"] == "battle" and e.get("defender")]
    assert len(battles) > 10
    at_peace = [e for wars, e in battles if frozenset((e["attacker"], e["defender"])) not in wars
                and not (e["defender"] == "Neutral_Axis" and any(frozenset((e["attacker"], a)) in wars for a in AXIS))]
    assert at_peace == []
    # in this game the Axis attack neutrals too (after declaring war on the strict ones)
    assert {e["defender"] for _, e in battles} & {"Neutral_Allies", "Neutral_True", "Mongolians"}


def test_declarations_and_the_united_states_entering_the_war(game):
    logs = [(r, e["by"], e["message"]) for r, _, e in walk(game) if e["kind"] == "log"]
    declared = [(r, m) for r, by, m in logs if by == "declarations"]
    assert declared, "no power declared war"
    assert all(re.fullmatch(r"\w+ declares war on \w+", m) for _, m in declared)
    # the United States may declare war only from its fourth turn (or once attacked or provoked)
    assert not any(m.startswith("Americans declares") and r < 4 for r, m in declared)
    # at the end of its third turn the United States is at war with every Axis power: those not
    # at war with it yet enter the war then, by the rule's hook and in round 3
    entered = [(r, m) for r, by, m in logs if by == "us_enters_war"]
    attacked = {m.split()[0] for r, m in declared if m.endswith("declares war on Americans") and r <= 3}
    assert {m.split()[0] for _, m in entered} == AXIS - attacked
    assert {r for r, _ in entered} <= {3}
    final = list(walk(game))[-1][1]
    assert all(frozenset(("Americans", a)) in final for a in AXIS)


def test_national_objectives_pay(game):
    events = list(walk(game))
    paid = []
    for i, (r, wars, e) in enumerate(events):
        if e["kind"] == "log" and e["by"] == "national_objectives":
            power, objective, amount = OBJECTIVE.match(e["message"]).groups()
            # the treasury change just before the line pays the amount it states
            change = next(x for _, _, x in reversed(events[:i]) if x["kind"] == "treasury")
            assert (change["player"], change["amount"]) == (power, int(amount))
            paid.append((r, wars, power, objective))
    counts = Counter(power for _, _, power, _ in paid)
    # objectives of both sides pay
    assert sum(counts.values()) >= 10 and len(counts) >= 4, counts
    assert set(counts) & AXIS and set(counts) - AXIS, counts
    # the United States' objectives pay only while it is at war
    us = [(r, wars) for r, wars, power, _ in paid if power == "Americans"]
    assert us, "the United States never collected an objective"
    assert all(any(frozenset(("Americans", a)) in wars for a in AXIS) for _, wars in us)
    # a one-time objective is paid at most once
    once = Counter(o for _, _, _, o in paid if o == "soviet_berlin")
    assert once["soviet_berlin"] <= 1


def test_friendly_neutrals_are_taken_over_by_their_friends(game):
    taken = [re.fullmatch(r"(\w+) takes over (.+) from (\w+), with its units", e["message"]).groups()
             for _, _, e in walk(game) if e["kind"] == "log" and e["by"] == "friendly_neutrals"]
    assert taken, "no friendly neutral was taken over"
    for power, _, neutral in taken:
        if neutral == "Neutral_Axis":
            assert power in AXIS
        elif neutral == "Neutral_Allies":
            assert power not in AXIS
    # each take-over changed the territory's control from the neutral to the power
    changes = {(e["space"], e["before"], e["after"]) for _, _, e in walk(game) if e["kind"] == "control"}
    assert all((t, neutral, power) in changes for power, t, neutral in taken)
