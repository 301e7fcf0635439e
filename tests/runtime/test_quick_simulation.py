"""The heuristic agent's quick battle simulation draws the same dice and takes the same casualties
as the plain forms it replaced (issue 15): its decisions, and so the seeded game logs, are unchanged."""

from __future__ import annotations

import random

from ruleslang.runtime.agents.quick_battle import SIM_TRIALS, settling, simulate, hits as _hits, take as _take


def _hits_by_randint(rng: random.Random, side: list[list]) -> int:
    return sum(1 for unit in side if rng.randint(1, 6) <= unit[0])


def _take_sorting_every_hit(side: list[list], hits: int) -> None:
    while hits > 0 and side:
        side.sort(key=lambda u: (u[2] <= 1, u[1]))
        side[0][2] -= 1
        if side[0][2] <= 0:
            side.pop(0)
        hits -= 1


def _random_side(rng: random.Random) -> list[list]:
    return [[rng.randint(0, 4), rng.choice([3, 5, 6, 8, 12, 16, 24]), rng.choice([1, 1, 1, 2, 3])]
            for _ in range(rng.randint(0, 14))]


def test_hits_draw_the_dice_randint_draws():
    pick = random.Random(5)
    for seed in range(200):
        side = _random_side(pick)
        mine, theirs = random.Random(seed), random.Random(seed)
        for _ in range(5):
            assert _hits(mine.getrandbits, side) == _hits_by_randint(theirs, side)
        assert mine.getstate() == theirs.getstate()


def test_hits_compare_with_fire_values_that_are_not_whole():
    side = [[2.5, 3, 1], [0, 3, 1], [6, 3, 1], [1.0, 3, 1]]
    for seed in range(50):
        assert _hits(random.Random(seed).getrandbits, side) == _hits_by_randint(random.Random(seed), side)


def test_take_removes_the_same_units_in_the_same_order():
    pick = random.Random(11)
    for _ in range(2000):
        side = _random_side(pick)
        mine, theirs = [list(u) for u in side], [list(u) for u in side]
        in_order = False
        for _ in range(4):
            hits = pick.randint(0, 6)
            in_order = _take(mine, hits, in_order)
            _take_sorting_every_hit(theirs, hits)
            assert mine == theirs  # the order too: the next round's dice are thrown in it
            if in_order:
                assert mine == sorted(mine, key=lambda u: (u[2] <= 1, u[1]))


def _simulate_plainly(a_vals: tuple, d_vals: tuple, rng: random.Random, takes: bool = False) -> int:
    """The quick simulation as it was written before its dice were drawn in bulk: randint for
    every die, the sides copied in every trial and sorted before every hit. `takes`: a battle
    counts only when an attacker that takes territory (its fourth field) is left."""
    wins = 0
    for _ in range(SIM_TRIALS):
        a, d = [list(u) for u in a_vals], [list(u) for u in d_vals]
        for _round in range(12):
            a_hits, d_hits = _hits_by_randint(rng, a), _hits_by_randint(rng, d)
            _take_sorting_every_hit(d, a_hits)
            _take_sorting_every_hit(a, d_hits)
            if not a or not d:
                break
        if not d and (any(unit[3] for unit in a) if takes else a):
            wins += 1
    return wins


def _battle(pick: random.Random, multi_hit: bool) -> tuple[tuple, tuple]:
    def side():
        return tuple(sorted((pick.choice([0, 1, 1, 2, 3, 4, 2.5, 7]), pick.choice([3, 5, 6, 8, 12, 16]),
                             pick.choice([1, 1, 2, 3]) if multi_hit else 1) for _ in range(pick.randint(0, 9))))
    return side(), side()


def test_simulate_throws_the_dice_the_plain_form_throws():
    """Every answer and the generator's state after (the agent's own generator goes on to its next
    estimate): sides of one-hit units (followed as fixed orders) and of units that absorb hits."""
    pick = random.Random(3)
    for seed in range(60):
        a_vals, d_vals = _battle(pick, multi_hit=seed % 3 == 0)
        mine, theirs = random.Random(seed), random.Random(seed)
        for _ in range(3):  # the generator carried from one estimate to the next
            assert simulate(a_vals, d_vals, mine) == _simulate_plainly(a_vals, d_vals, theirs)
        assert mine.getstate() == theirs.getstate()


def test_simulate_takes_counts_battles_a_unit_that_takes_outlives():
    """`takes=True`: the attackers carry a fourth field, whether they take territory; a battle counts
    only when one of those is left (the cheapest fall first, so a land unit among air units often is
    not). The dice and the generator's state after are the plain form's, and the dice are those of
    the same battle without `takes`, which counts every battle the attackers win."""
    pick = random.Random(7)
    fewer = 0
    for seed in range(60):
        a_vals, d_vals = _battle(pick, multi_hit=seed % 3 == 0)
        a_vals = tuple(sorted((*u, pick.random() < 0.4) for u in a_vals))
        mine, theirs = random.Random(seed), random.Random(seed)
        for _ in range(3):
            assert simulate(a_vals, d_vals, mine, takes=True) == _simulate_plainly(a_vals, d_vals, theirs, takes=True)
        assert mine.getstate() == theirs.getstate()
        takes = simulate(a_vals, d_vals, random.Random(seed), takes=True)
        wins = simulate(tuple(u[:3] for u in a_vals), d_vals, random.Random(seed))
        assert takes <= wins
        fewer += takes < wins
    assert fewer > 0  # battles won with no unit left that takes the space


def test_settling_tells_how_many_more_wins_leave_an_answer_as_it_is():
    # an answer that changes at 45 wins (0.75) and at 51 (0.85)
    settle = settling(lambda quick: (quick >= 0.75, quick >= 0.85))
    assert len(settle) == SIM_TRIALS + 1
    assert settle[0] == 44 and settle[44] == 0 and settle[45] == 5 and settle[50] == 0
    assert settle[51] == SIM_TRIALS - 51 and settle[SIM_TRIALS] == 0
    assert settling(lambda quick: True) == tuple(SIM_TRIALS - w for w in range(SIM_TRIALS + 1))


def test_settled_trials_give_the_answer_all_of_them_give():
    """With `settle`, the trials stop once those left cannot change the caller's answer: the count
    returned answers as the count of all SIM_TRIALS does, from the same dice, and the trials that
    were not needed are not thrown (the generator stops earlier)."""
    pick = random.Random(17)
    stopped = 0
    for seed in range(150):
        a_vals, d_vals = _battle(pick, multi_hit=seed % 3 == 0)
        takes = seed % 2 == 0
        if takes:
            a_vals = tuple(sorted((*u, pick.random() < 0.7) for u in a_vals))
        needed = pick.choice([0.25, 0.55, 0.75])
        def judge(quick, needed=needed):
            return quick >= needed + 0.1, quick < needed - 0.075, quick >= needed
        mine, full = random.Random(seed), random.Random(seed)
        settled = simulate(a_vals, d_vals, mine, takes=takes, settle=settling(judge))
        whole = simulate(a_vals, d_vals, full, takes=takes)
        assert judge(settled / SIM_TRIALS) == judge(whole / SIM_TRIALS)
        assert settled <= whole
        stopped += mine.getstate() != full.getstate()
    assert stopped > 50  # most estimates stop before the last trial


def test_more_trials_are_the_trials_after_the_first_thrown_with_the_same_dice():
    """`trials`: an estimate of that many battles; thrown after an estimate of SIM_TRIALS with the
    same generator going on, its wins and the first's are those of one estimate of both counts
    (the doubt's more trials, attack_planning.py's DOUBT_TRIALS), and `settling(judge, trials)`
    judges a count of that many."""
    pick = random.Random(23)
    for seed in range(40):
        a_vals, d_vals = _battle(pick, multi_hit=seed % 3 == 0)
        mine, theirs = random.Random(seed), random.Random(seed)
        first = simulate(a_vals, d_vals, mine)
        assert first + simulate(a_vals, d_vals, mine, trials=3 * SIM_TRIALS) == \
            simulate(a_vals, d_vals, theirs, trials=4 * SIM_TRIALS)
        assert mine.getstate() == theirs.getstate()
    settle = settling(lambda quick: quick >= 0.75, 4 * SIM_TRIALS)
    assert len(settle) == 4 * SIM_TRIALS + 1 and settle[0] == 179 and settle[180] == 4 * SIM_TRIALS - 180
