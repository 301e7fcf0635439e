"""The heuristic agent's quick battle simulation: SIM_TRIALS battles of plain dice, each unit
firing at its value (the ruleset's `advice firepower`), casualties the cheapest first with units
that can absorb a hit first. It knows nothing of a battle's other steps; the exact chain
(battle_odds.py) checks what it guesses. Its dice come from the agent's own generator, never the
game's."""

from __future__ import annotations

import random

SIM_TRIALS = 60      # the quick simulation's battles per estimate (the fallback of the exact odds)


def simulate(a_vals: tuple, d_vals: tuple, rng: random.Random) -> int:
    """In how many of SIM_TRIALS battles of attackers `a_vals` against defenders `d_vals` (each a
    (fire value, cost, hit points) of a unit) the attackers destroy the defenders, rolled by `rng`."""
    getrandbits = rng.getrandbits
    wins = 0
    for _ in range(SIM_TRIALS):
        a = [[v, c, h] for v, c, h in a_vals]
        dd = [[v, c, h] for v, c, h in d_vals]
        a_ordered = d_ordered = False  # whether a side is in casualty order (`take`)
        for _round in range(12):
            a_hits = hits(getrandbits, a)
            d_hits = hits(getrandbits, dd)
            d_ordered = take(dd, a_hits, d_ordered)
            a_ordered = take(a, d_hits, a_ordered)
            if not a or not dd:
                break
        if not dd and a:
            wins += 1
    return wins


def hits(getrandbits, side: list[list]) -> int:
    """How many units of a simulated side ([fire value, cost, hits left]) hit: a die for each, in
    order. Each die is drawn as CPython's `Random.randint(1, 6)` draws it (three random bits, drawn
    again while they make 6 or 7), so the numbers and the generator's state after are the same as
    randint's (tests/runtime/test_quick_simulation.py), at a third of the cost: the quick simulation
    throws most of a heuristic game's dice."""
    hits = 0
    for unit in side:
        r = getrandbits(3)
        while r >= 6:
            r = getrandbits(3)
        if r + 1 <= unit[0]:
            hits += 1
    return hits


def _casualty_key(unit: list):
    return unit[2] <= 1, unit[1]


def take(side: list[list], hits: int, in_order: bool = False) -> bool:
    """Remove casualties: units that can absorb a hit first, then the cheapest; whether the side
    is left in that order. The side is sorted as before every hit (a stable sort) only when it may
    be out of order: at first (unless `in_order`), and after a hit that changed the first unit's
    place, a unit brought down to its last hit point; a removed one leaves the rest in order."""
    if hits <= 0 or not side:
        return in_order
    if not in_order:
        side.sort(key=_casualty_key)
    while True:
        first = side[0]
        first[2] -= 1
        hits -= 1
        if first[2] <= 0:
            side.pop(0)
            if hits <= 0 or not side:
                return True
        elif first[2] == 1:
            if hits <= 0:
                return False
            side.sort(key=_casualty_key)
        elif hits <= 0:
            return True
