"""The heuristic agent's quick battle simulation: SIM_TRIALS battles of plain dice, each unit
firing at its value (the ruleset's `advice firepower`), casualties the cheapest first with units
that can absorb a hit first. It knows nothing of a battle's other steps; the exact chain
(battle_odds.py) checks what it guesses. Its dice come from the agent's own generator, never the
game's.

Speed (issue 15): most of its battles are small (about six units), so what costs is the work
around each die, not the die. A die is three random bits (as `hits` draws it), and a battle
whose units all take one hit (`_one_hit_trials`: most of them) is followed as two fixed orders
of each side's fire values and a count of its fallen, instead of lists copied in every trial
and sorted on the first hit. tests/runtime/test_quick_simulation.py checks every answer and the
generator's state after against the plain form (randint for each die, sides sorted before every
hit)."""

from __future__ import annotations

import itertools
import math
import random
from bisect import bisect_right
from fractions import Fraction
from functools import lru_cache
from operator import itemgetter

_FIRE, _COST, _HIT_POINTS = itemgetter(0), itemgetter(1), itemgetter(2)  # of a (fire value, cost, hit points)
SIM_TRIALS = 60      # the quick simulation's battles per estimate (the fallback of the exact odds)
ROUNDS = 12          # the most rounds a simulated battle lasts
# `reckon` works out battles of at most this many states (each side's hits taken, from none to all
# its hit points: (the attack's + 1) * (the defence's + 1)); a larger one costs more to reckon than
# SIM_TRIALS trials cost to throw (benchmarks: docs/performance.md, "Session 23: the quick model
# reckoned")
RECKON_STATES = 48
RECKON_KEPT = 4096   # the battles `reckon` keeps its answers of (most estimates ask a few hundred)


def outmatched(a_vals: tuple, d_vals: tuple, ratio: float) -> bool:
    """Whether attackers `a_vals` are far weaker than defenders `d_vals` (each a (fire value, cost,
    hit points, ...) of a unit): a side's strength taken by Lanchester's square law as its fire
    values' sum times its hit points' sum, the attack's under `ratio` of the defence's."""
    return (sum(map(_FIRE, a_vals)) * sum(map(_HIT_POINTS, a_vals))
            < ratio * sum(map(_FIRE, d_vals)) * sum(map(_HIT_POINTS, d_vals)))


def landless(a_vals: tuple, d_vals: tuple, margin: float) -> bool:
    """Whether attackers `a_vals` (each a (fire value, cost, hit points, takes)) would destroy
    defenders `d_vals` only with no unit that takes territory left, by Lanchester's square law
    even were the attack `margin` times as strong: a side's strength its fire values' sum times
    its units' count (as `outmatched`, of sides whose units all take one hit; else False, not
    judged); an attack no stronger than the defence loses all its units, a stronger one the share
    1 - sqrt(1 - defence / attack) of them, here more than those that fall in casualty order (the
    cheapest first, as `_one_hit_trials` takes them) up to and with its last unit that takes
    territory."""
    if not a_vals or not d_vals or max(map(_HIT_POINTS, a_vals)) > 1 or max(map(_HIT_POINTS, d_vals)) > 1:
        return False
    na = len(a_vals)
    attack, defence = margin * sum(map(_FIRE, a_vals)) * na, sum(map(_FIRE, d_vals)) * len(d_vals)
    if attack <= defence:
        return True
    # the units that fall up to and with the last taker (`_takers_left`)
    a_sorted = sorted(a_vals, key=_COST)
    left = _takers_left(a_sorted)
    return na * (1 - math.sqrt(1 - defence / attack)) > left


def settling(judge, trials: int = SIM_TRIALS, *, exact: bool = False) -> tuple[int, ...]:
    """For a caller that needs only `judge(wins / trials)` of an estimate (an answer that changes
    at a few counts of wins, such as a comparison with the odds an attack needs): for each count
    w of wins so far, how many more wins leave the answer as it is at w (`simulate`'s `settle`:
    the trials stop once no more than that many are left). `exact`: the judge is given the share
    as an exact Fraction (for a caller that compares it exactly), not a float."""
    answers = [judge(Fraction(w, trials) if exact else w / trials) for w in range(trials + 1)]
    same = [0] * (trials + 1)
    for w in range(trials - 1, -1, -1):
        same[w] = same[w + 1] + 1 if answers[w] == answers[w + 1] else 0
    return tuple(same)


def simulate(a_vals: tuple, d_vals: tuple, rng: random.Random, *, takes: bool = False,
             settle: tuple[int, ...] | None = None, trials: int = SIM_TRIALS, tally: bool = False) -> int:
    """In how many of SIM_TRIALS battles of attackers `a_vals` against defenders `d_vals` (each a
    (fire value, cost, hit points) of a unit) the attackers destroy the defenders, rolled by `rng`:
    each round every attacking unit, in its side's order, then every defending one throws a die
    (as `randint(1, 6)`; a hit at or below its value), then each side takes the other's hits
    (`take`). `takes`: each attacker is a (fire value, cost, hit points, takes) and a battle counts
    only when an attacker that takes territory (true `takes`) is left: the attack takes the space
    (air units do not; the cheapest fall first, so a few land units among air units often do not
    outlive the battle). `settle` (`settling`): the trials stop as soon as the trials left cannot
    change the caller's answer (no more than `settle[wins]` of them), and the wins so far are
    returned: the caller's judge answers the same of them as of all SIM_TRIALS. `trials`: that many
    battles instead of SIM_TRIALS (`settle` then indexed by the wins of these). `tally`: a battle
    whose units all take one hit draws each side's number of hits in a round at once
    (`_tallied_trials`) rather than a die for each unit: the same chances, other numbers."""
    loop = _trial_loop(a_vals, d_vals)
    if tally and loop is _one_hit_trials:
        return _tallied_trials(a_vals, d_vals, rng.random, takes, settle, trials)
    return loop(a_vals, d_vals, rng.getrandbits, takes, settle, trials)


def _trial_loop(a_vals: tuple, d_vals: tuple):
    """The loop that fights battles of `a_vals` against `d_vals`: `_one_hit_trials` where both
    sides have units and each of them takes one hit, else `_trials`."""
    # (the tests over the sides' units are made in C: most estimates are of a few units, where a
    # Python-level loop per side cost a tenth of an estimate's set-up); a side empty from the start
    # goes to `_trials`, as `_one_hit_trials` looks for a battle's end only after a hit
    if a_vals and d_vals and max(map(_HIT_POINTS, a_vals)) <= 1 and max(map(_HIT_POINTS, d_vals)) <= 1:
        return _one_hit_trials
    return _trials


@lru_cache(maxsize=RECKON_KEPT)
def _hits_below(thresholds: tuple[int, ...]) -> tuple[float, ...]:
    """The chances of at most 0, 1, ... n - 1 hits of n units whose dice hit under `thresholds`
    (sorted): a number drawn uniformly in [0, 1) is the number of hits of their round as the count
    of these it is not under (`bisect_right`). The chance of at most n hits, 1, is left out, so
    that the sums' rounding never makes a round of n + 1 hits."""
    return tuple(itertools.accumulate(_hit_chances(thresholds)))[:len(thresholds)]


def _thresholds(vals) -> tuple:
    """Each unit's fire value as the dice that hit it: a die r (0-5, three random bits) hits at
    value v when r + 1 <= v, that is when r < floor(v)."""
    return tuple(map(math.floor, map(_FIRE, vals)))  # (a whole number is its own floor)


def _tallied_trials(a_vals: tuple, d_vals: tuple, uniform, takes: bool = False,
                    settle: tuple[int, ...] | None = None, trials: int = SIM_TRIALS,
                    lost: list[int] | None = None) -> int:
    """`_one_hit_trials` with each side's hits of a round drawn at once: a side with i units fallen
    (in casualty order) throws as the multiset of its other units' fire values, whose number of
    hits has the chances `_hit_chances` works out; one number of `uniform` (`Random.random`) picks
    it (`_hits_below`), where `_one_hit_trials` draws a die for each unit. A round's order of fire
    does not change its number of hits, so the side's first order is not needed. Most of a
    heuristic game's quick battles are of this kind (SPARE "tally": the same chances as the dice,
    other numbers drawn)."""
    a_sorted = sorted(a_vals, key=_COST)
    a_sides = _fallen_tables(_thresholds(a_sorted))
    d_sides = _fallen_tables(_thresholds(sorted(d_vals, key=_COST)))
    return _one_hit_battles(d_vals, a_sorted, (a_sides[0], a_sides), (d_sides[0], d_sides),
                            None, takes, settle, trials, lost, uniform)


@lru_cache(maxsize=RECKON_KEPT)
def _fallen_tables(order: tuple[int, ...]) -> tuple[tuple[float, ...], ...]:
    """A side's chances of hits (`_hits_below`) with i of its units fallen, from 0, for its
    casualty order's dice thresholds `order`: the rest of the order from its (i+1)th unit on.
    Kept by the order: a plan's estimates ask the same defence for every number of attackers,
    and the doubt's stages the same battle again."""
    return tuple(_hits_below(tuple(sorted(order[i:]))) for i in range(len(order)))


def _one_hit_trials(a_vals: tuple, d_vals: tuple, getrandbits, takes: bool = False,
                    settle: tuple[int, ...] | None = None, trials: int = SIM_TRIALS,
                    lost: list[int] | None = None) -> int:
    """`_trials` for sides whose units all take one hit. Such a side throws in its first order
    until it first takes a hit, then in casualty order (`take`'s stable sort: the cheapest
    first), losing its first units in that order: it is two fixed orders and a count of the
    fallen. Each die is drawn as `hits` draws it, from the fire values made dice thresholds once
    (`_thresholds`). Both sides have units (`simulate` sends a battle with an empty side to
    `_trials`). `lost` (`exchange`): [the attack's, the defence's] costs of the units destroyed,
    added to."""
    # casualty order (`_casualty_key`): every unit takes one hit here, so the cheapest first (a
    # stable sort on the cost alone gives the same order)
    a_sorted = sorted(a_vals, key=_COST)
    a_order = _thresholds(a_sorted)
    d_order = _thresholds(sorted(d_vals, key=_COST))

    def dice(side: tuple) -> int:
        # (`hits` of thresholds: a die r hits under t when r < t)
        count = 0
        for t in side:
            r = getrandbits(3)
            while r >= 6:
                r = getrandbits(3)
            if r < t:
                count += 1
        return count
    # what fires with i fallen: the side's casualty order from its (i+1)th unit on, made once here
    # rather than sliced at every hit of every trial
    return _one_hit_battles(d_vals, a_sorted,
                            (_thresholds(a_vals), [a_order[i:] for i in range(len(a_order))]),
                            (_thresholds(d_vals), [d_order[i:] for i in range(len(d_order))]),
                            dice, takes, settle, trials, lost)


def _takers_left(a_sorted: list) -> int:
    """How many of an attack's units in casualty order (`a_sorted`, each with its `takes` fourth) are
    up to and with its last unit that takes territory: the attack takes the space while fewer than
    that many have fallen (0: none takes territory)."""
    return next((len(a_sorted) - i for i, u in enumerate(reversed(a_sorted)) if u[3]), 0)


def _one_hit_battles(d_vals: tuple, a_sorted: list, a_fire: tuple, d_fire: tuple, draw,
                     takes: bool, settle: tuple[int, ...] | None, trials: int, lost: list[int] | None,
                     uniform=None) -> int:
    """The trials of `_one_hit_trials` and `_tallied_trials`: each side a count of its fallen (the
    first units of its casualty order, `a_sorted` for the attack), its fire (`a_fire`, `d_fire`)
    its first side and its sides with i fallen, from 0, and `draw(side)` its number of hits in a
    round; with `uniform` (`_tallied_trials`: each side a table of its chances of hits) the number
    is `bisect_right(side, uniform())` instead. Answers as `_one_hit_trials`."""
    a_first, a_sides = a_fire
    d_first, d_sides = d_fire
    na, nd = len(a_sides), len(d_sides)
    # the attack wins while fewer than `left` of its units have fallen: all of them, or (`takes`)
    # all but those after its last unit that takes territory, in casualty order
    left = na if not takes else _takers_left(a_sorted)
    if lost is not None:  # (the costs of the first i fallen, in casualty order)
        a_costs = [0, *itertools.accumulate(map(_COST, a_sorted))]
        d_costs = [0, *itertools.accumulate(sorted(map(_COST, d_vals)))]
    wins = 0
    for rest in range(trials, 0, -1):
        if settle is not None and rest <= settle[wins]:
            break
        a_lost = d_lost = 0
        a_side, d_side = a_first, d_first
        for _round in range(ROUNDS):
            if uniform is not None:  # (drawn in line: a call fewer a side a round, most rounds drawn)
                a_hits = bisect_right(a_side, uniform())
                d_hits = bisect_right(d_side, uniform())
            else:
                a_hits = draw(a_side)
                d_hits = draw(d_side)
            # the battle ends when a side has lost all its units: tested only after a hit (a
            # round without one, a fifth of them, changes nothing); the defence's losses first,
            # then the attack's of the same round
            if a_hits:
                d_lost += a_hits
                if d_lost >= nd:
                    d_lost = nd
                    if d_hits:
                        a_lost = min(a_lost + d_hits, na)
                    break
                d_side = d_sides[d_lost]
            if d_hits:
                a_lost += d_hits
                if a_lost >= na:
                    a_lost = na
                    break
                a_side = a_sides[a_lost]
        if d_lost == nd and a_lost < left:
            wins += 1
        if lost is not None:
            lost[0] += a_costs[a_lost]
            lost[1] += d_costs[d_lost]
    return wins


def _trials(a_vals: tuple, d_vals: tuple, getrandbits, takes: bool = False,
            settle: tuple[int, ...] | None = None, trials: int = SIM_TRIALS,
            lost: list[int] | None = None) -> int:
    """In how many of `trials` battles of any units the attackers win (`takes`, `settle`: as
    `simulate`; `lost`: as `_one_hit_trials`)."""
    if lost is not None:
        a_cost, d_cost = sum(map(_COST, a_vals)), sum(map(_COST, d_vals))
    wins = 0
    for rest in range(trials, 0, -1):
        if settle is not None and rest <= settle[wins]:
            break
        a = list(map(list, a_vals))  # (copied in C: a copy per trial)
        dd = list(map(list, d_vals))
        a_ordered = d_ordered = False  # whether a side is in casualty order (`take`)
        for _round in range(ROUNDS):
            a_hits = hits(getrandbits, a)
            d_hits = hits(getrandbits, dd)
            if a_hits:  # (`take` of no hits changes nothing)
                d_ordered = take(dd, a_hits, d_ordered)
            if d_hits:
                a_ordered = take(a, d_hits, a_ordered)
            if not a or not dd:
                break
        if not dd and a and (not takes or any(unit[3] for unit in a)):
            wins += 1
        if lost is not None:
            lost[0] += a_cost - sum(map(_COST, a))
            lost[1] += d_cost - sum(map(_COST, dd))
    return wins


def exchange(a_vals: tuple, d_vals: tuple, rng: random.Random, trials: int,
             tally: bool = False) -> tuple[int, int, int]:
    """(wins, the attack's losses, the defence's losses) over `trials` battles fought as `simulate`
    fights them (without `takes`), rolled by `rng` as it rolls them (`tally`: as there): a side's
    losses are the costs (each unit's second value) of its units destroyed in each battle, summed
    (a unit left with a hit is not lost, as the exact chain's expected loss counts it:
    runtime/odds/results.py)."""
    lost = [0, 0]
    loop = _trial_loop(a_vals, d_vals)
    if tally and loop is _one_hit_trials:
        wins = _tallied_trials(a_vals, d_vals, rng.random, False, None, trials, lost)
    else:
        wins = loop(a_vals, d_vals, rng.getrandbits, False, None, trials, lost)
    return wins, lost[0], lost[1]


def reckonable(a_vals: tuple, d_vals: tuple) -> bool:
    """Whether `reckon` works out the battle of `a_vals` against `d_vals` (RECKON_STATES)."""
    return (sum(map(_HIT_POINTS, a_vals)) + 1) * (sum(map(_HIT_POINTS, d_vals)) + 1) <= RECKON_STATES


@lru_cache(maxsize=RECKON_KEPT)
def reckon(a_vals: tuple, d_vals: tuple, takes: bool = False) -> tuple[float, float, float]:
    """(the chance that the attack wins, the costs the attack loses, the costs the defence loses, on
    average) of the battle `simulate` fights (`takes`: as there), worked out exactly rather than
    thrown: the chance that `simulate`'s trials tend to, but for its ROUNDS (a battle here goes on
    until a side is destroyed, or forever where neither side can hit: not won, its losses as they
    stand). Each side's state is the number of hits it has taken (`take` removes casualties in an
    order that hits alone decide), so the battle is a chain of (attack's hits taken, defence's
    hits taken), each taken in turn: a state's chance is what flows into it over the chance of a
    round that changes nothing there, spread over the states its sides' hits lead to."""
    a_states, d_states = _side_states(a_vals, takes), _side_states(d_vals, False)
    na, nd = len(a_states) - 1, len(d_states) - 1  # (a side with all its hits taken is destroyed)
    mass = [[0.0] * (nd + 1) for _ in range(na + 1)]
    mass[0][0] = 1.0
    for i in range(na):
        row = mass[i]
        a_hits = a_states[i][0]
        for j in range(nd):
            m = row[j]
            if not m:
                continue
            d_hits = d_states[j][0]
            stay = a_hits[0] * d_hits[0]
            if stay >= 1.0:  # (neither side can hit: the battle stands here; counted below)
                continue
            row[j] = 0.0
            m /= 1.0 - stay
            for x, px in enumerate(a_hits):
                if px:
                    column = j + x if j + x < nd else nd
                    mx = m * px
                    for y, py in enumerate(d_hits):
                        if py and (x or y):
                            mass[i + y if i + y < na else na][column] += mx * py
    # every chance is left in a state no round leaves: a side destroyed, or neither able to hit
    won = a_lost = d_lost = 0.0
    for i, row in enumerate(mass):
        a_cost = a_states[i][1]
        for j, m in enumerate(row):
            if m:
                if j == nd and i < na and a_states[i][2]:
                    won += m
                a_lost += m * a_cost
                d_lost += m * d_states[j][1]
    return min(won, 1.0), a_lost, d_lost  # (the sums' rounding may pass 1 by a hair)


@lru_cache(maxsize=RECKON_KEPT)
def reckon_apart(a_vals: tuple, d_vals: tuple) -> tuple[float, float, float]:
    """`reckon` (without `takes`) of a battle in which some units of one side and some of the other
    never hit each other: each unit a (fire value, cost, hit points, apart), an `apart` unit's hits
    taken only by the other side's units that are not apart, before the side's other hits (which
    any unit takes), each side's casualties in `take`'s order. A state is what is left of each
    side; a round that leaves both as they were is thrown again, as in `reckon`, and one that can
    change nothing ends the battle (not won, its losses as they stand)."""
    a_cost, d_cost = sum(map(_COST, a_vals)), sum(map(_COST, d_vals))
    kept: dict[tuple, tuple[float, float, float]] = {}

    def left(a: tuple, d: tuple) -> tuple[float, float, float]:
        # (the chance the attack wins from here, the costs each side has left at the end)
        found = kept.get((a, d))
        if found is not None:
            return found
        if not a or not d:
            found = (1.0 if a else 0.0, sum(map(_COST, a)), sum(map(_COST, d)))
        else:
            a_hits = [_apart_hits(a, True), _apart_hits(a, False)]
            d_hits = [_apart_hits(d, True), _apart_hits(d, False)]
            stay, moves = 0.0, []
            for (xa, pa), (xo, po), (ya, qa), (yo, qo) in itertools.product(*map(enumerate, a_hits + d_hits)):
                p = pa * po * qa * qo
                if p:
                    after = (_apart_take(a, ya, yo), _apart_take(d, xa, xo))
                    if after == (a, d):
                        stay += p
                    else:
                        moves.append((p, after))
            if not moves:
                found = (0.0, sum(map(_COST, a)), sum(map(_COST, d)))
            else:
                won = a_left = d_left = 0.0
                for p, after in moves:
                    w, al, dl = left(*after)
                    won, a_left, d_left = won + p * w, a_left + p * al, d_left + p * dl
                scale = 1.0 - stay
                found = (won / scale, a_left / scale, d_left / scale)
        kept[(a, d)] = found
        return found

    first = (tuple(sorted(a_vals, key=_casualty_key)), tuple(sorted(d_vals, key=_casualty_key)))
    won, a_left, d_left = left(*first)
    return min(won, 1.0), a_cost - a_left, d_cost - d_left


def _apart_hits(side: tuple, apart: bool) -> tuple[float, ...]:
    """The chances of 0, 1, ... hits of a side's units that are (or are not) `apart`."""
    return _hit_chances(tuple(sorted(math.floor(u[0]) for u in side if bool(u[3]) == apart)))


def _apart_take(side: tuple, apart_hits: int, hits: int) -> tuple:
    """A side of `reckon_apart` after the other side's hits: those of its apart units on the first
    units in `take`'s order that are not apart, then the rest on the first units."""
    if not apart_hits and not hits:
        return side
    units = list(map(list, side))
    for _ in range(apart_hits):
        unit = next((u for u in units if not u[3]), None)
        if unit is None:
            break
        _hit(units, unit)
    for _ in range(hits):
        if not units:
            break
        _hit(units, units[0])
    return tuple(map(tuple, units))


def _hit(units: list[list], unit: list) -> None:
    """One hit on `unit` of `units` (kept in `take`'s order): removed at its last hit point."""
    unit[2] -= 1
    if unit[2] <= 0:
        units.remove(unit)
    else:
        units.sort(key=_casualty_key)


@lru_cache(maxsize=RECKON_KEPT)
def _side_states(vals: tuple, takes: bool) -> tuple[tuple[tuple[float, ...], int, bool], ...]:
    """For each number of hits a side of `vals` has taken, from none to all its hit points: (the
    chances of each number of hits it throws, the costs of its units destroyed, whether a unit
    that takes territory is left (`takes`; else whether any unit is)), casualties taken as `take`
    takes them."""
    side = [[*unit[:3], unit[3] if takes else True] for unit in vals]
    total = sum(map(_COST, vals))
    states = []
    while True:
        states.append((_hit_chances(tuple(sorted(map(math.floor, map(_FIRE, side))))),
                       total - sum(map(_COST, side)), any(unit[3] for unit in side)))
        if not side:
            return tuple(states)
        take(side, 1)


@lru_cache(maxsize=RECKON_KEPT)
def _hit_chances(thresholds: tuple[int, ...]) -> tuple[float, ...]:
    """The chances of 0, 1, ... hits of units whose dice hit under `thresholds` (a die of six faces
    hits under t with the chance t / 6, as `hits` throws it)."""
    chances = [1.0]
    for t in thresholds:
        p = min(max(t, 0), 6) / 6
        if p:
            chances = [a * (1 - p) + b * p for a, b in zip(chances + [0.0], [0.0] + chances)]
    return tuple(chances)


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


def _casualty_key(unit):
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
