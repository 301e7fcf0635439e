"""The quick simulation's hits drawn at once (the heuristic agent's SPARE part "tally", issue 15):
a battle of one-hit units whose sides' hits of a round are each drawn by one number, by their
chances, wins as often and loses as much as the same battle thrown a die for each unit; the other
battles are thrown as before."""

from __future__ import annotations

import random
from bisect import bisect_right

import pytest

from ruleslang.runtime.agents import quick_battle
from ruleslang.runtime.agents.quick_battle import _tallied_trials, exchange, reckon, simulate

TRIALS = 20_000


def _one_hit_battle(pick: random.Random, takes: bool = False) -> tuple[tuple, tuple]:
    def side(attack: bool):
        return tuple(sorted((pick.choice([0, 1, 1, 2, 3, 4, 2.5]), pick.choice([3, 5, 6, 8, 12]), 1,
                             *((pick.random() < 0.7,) if attack and takes else ()))
                            for _ in range(pick.randint(1, 8))))
    return side(True), side(False)


@pytest.mark.parametrize("takes", [False, True])
def test_tallied_battles_win_as_often_as_battles_thrown_die_by_die(takes):
    """Over many trials each way, the two win the same share of battles (within five standard
    deviations of the difference of two shares), `takes` counted alike."""
    pick = random.Random(31 if takes else 29)
    for seed in range(12):
        a_vals, d_vals = _one_hit_battle(pick, takes)
        tallied = simulate(a_vals, d_vals, random.Random(seed), takes=takes, trials=TRIALS, tally=True)
        thrown = simulate(a_vals, d_vals, random.Random(seed + 1000), takes=takes, trials=TRIALS)
        p = (tallied + thrown) / (2 * TRIALS)
        assert abs(tallied - thrown) / TRIALS <= 5 * (2 * p * (1 - p) / TRIALS) ** 0.5 + 1e-9, (a_vals, d_vals)


def test_tallied_battles_tend_to_the_reckoned_chance():
    """Battles that end within a few rounds (units that hit often): the share of tallied wins is the
    exact chance `reckon` works out, within five standard deviations."""
    pick = random.Random(37)
    for seed in range(8):
        a_vals = tuple(sorted((pick.choice([3, 4, 5]), pick.choice([3, 8]), 1) for _ in range(pick.randint(1, 5))))
        d_vals = tuple(sorted((pick.choice([3, 4, 5]), pick.choice([3, 8]), 1) for _ in range(pick.randint(1, 5))))
        chance = reckon(a_vals, d_vals)[0]
        wins = simulate(a_vals, d_vals, random.Random(seed), trials=TRIALS, tally=True)
        assert abs(wins / TRIALS - chance) <= 5 * (chance * (1 - chance) / TRIALS) ** 0.5 + 1e-3, (a_vals, d_vals)


def test_tallied_exchange_loses_what_the_dice_lose():
    """`exchange` with `tally`: the mean costs each side loses are those of the battles thrown die by
    die (a battle's losses vary by about 20 at most here: the difference of two means of TRIALS
    battles, about 0.2, within five times that), and its wins are `simulate`'s with the same
    numbers drawn."""
    pick = random.Random(41)
    for seed in range(10):
        a_vals, d_vals = _one_hit_battle(pick)
        wins, a_lost, d_lost = exchange(a_vals, d_vals, random.Random(seed), TRIALS, tally=True)
        assert wins == simulate(a_vals, d_vals, random.Random(seed), trials=TRIALS, tally=True)
        _, a_thrown, d_thrown = exchange(a_vals, d_vals, random.Random(seed + 1000), TRIALS)
        for tallied, thrown in ((a_lost, a_thrown), (d_lost, d_thrown)):
            assert abs(tallied - thrown) / TRIALS <= 1.0, (a_vals, d_vals)


def test_tally_draws_other_numbers_only_for_one_hit_battles():
    """A battle with a unit that absorbs a hit is thrown die by die, tally or not: the same wins and
    the generator left as it was; a one-hit battle draws by `random`, not dice."""
    a_vals, d_vals = ((2, 3, 1), (4, 20, 2)), ((1, 3, 1), (2, 3, 1))
    mine, theirs = random.Random(5), random.Random(5)
    assert simulate(a_vals, d_vals, mine, tally=True) == simulate(a_vals, d_vals, theirs)
    assert mine.getstate() == theirs.getstate()
    one_hit = ((2, 3, 1), (4, 20, 1)), d_vals
    mine, theirs = random.Random(5), random.Random(5)
    simulate(*one_hit, mine, tally=True)
    simulate(*one_hit, theirs)
    assert mine.getstate() != theirs.getstate()


def test_a_side_that_cannot_hit_draws_no_hits():
    """Fire values of 0 on one side: the tallied battle never loses a unit of the other side, so an
    attack that cannot hit never wins and one that cannot be hit always does (within ROUNDS)."""
    zero = ((0, 3, 1), (0, 3, 1))
    strong = ((6, 3, 1),)
    assert simulate(zero, strong, random.Random(1), tally=True) == 0
    assert simulate(strong, zero, random.Random(1), tally=True) == 60


@pytest.mark.parametrize("takes", [False, True])
def test_tallied_hits_drawn_in_line_are_those_a_draw_function_gives(takes):
    """`_one_hit_battles` draws a tallied side's hits in line (`uniform`): the wins, the losses and
    the generator's state after are those of the same trials drawn through a `draw(side)` function
    (as it drew them before), so the quick estimates' answers and later dice are unchanged."""
    pick = random.Random(37 if takes else 41)
    for seed in range(20):
        a_vals, d_vals = _one_hit_battle(pick, takes)
        in_line, by_call = random.Random(seed), random.Random(seed)
        lost_in_line, lost_by_call = [0, 0], [0, 0]
        wins = _tallied_trials(a_vals, d_vals, in_line.random, takes, None, 300, lost_in_line)
        original = quick_battle._one_hit_battles

        def through_draw(*args):
            # the same trials with `uniform` given as a draw function, as before the in-line draw
            *head, uniform = args
            return original(*head[:4], lambda side: bisect_right(side, uniform()), *head[5:], None)
        try:
            quick_battle._one_hit_battles = through_draw
            expected = _tallied_trials(a_vals, d_vals, by_call.random, takes, None, 300, lost_by_call)
        finally:
            quick_battle._one_hit_battles = original
        assert (wins, lost_in_line) == (expected, lost_by_call), (a_vals, d_vals)
        assert in_line.getstate() == by_call.getstate()
