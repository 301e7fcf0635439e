"""The quick estimates' tables made once and kept (issue 15, session 31): a tallied battle's chances
of hits for each count of a side's fallen (quick_battle.py's `_fallen_tables`), and what the land
attacks' doubt settles after each count of wins (attack_planning.py's `_doubt_more`, sliced from its
table of 0 wins), are what they were when made for every estimate; the numbers a tallied battle
draws and its answers are the same."""

from __future__ import annotations

import random
from bisect import bisect_right

from ruleslang.runtime.agents import quick_battle
from ruleslang.runtime.agents.attack_planning import DOUBT_ABOVE, DOUBT_BAND, DOUBT_BELOW, DOUBT_TRIALS, \
    _doubt_judge, _doubt_more
from ruleslang.runtime.agents.quick_battle import _fallen_tables, _hit_chances, _tallied_trials, settling


def test_a_sides_tables_are_its_chances_of_hits_with_each_count_fallen():
    """Table i holds the chances of at most 0, 1, ... hits of the units from the (i+1)th of the
    casualty order on (the order's thresholds, in any order of fire): a number drawn is their hits
    (a unit of threshold 0 never hits)."""
    order = (3, 1, 2, 2, 0)  # (a casualty order's dice thresholds: cheapest first)
    tables = _fallen_tables(order)
    assert len(tables) == len(order)
    for i, table in enumerate(tables):
        rest = sorted(order[i:])
        chances = _hit_chances(tuple(rest))
        assert len(table) == len(rest)
        assert table == tuple(sum(chances[:k + 1]) for k in range(len(rest)))
        assert bisect_right(table, table[0] / 2) == 0  # (a number drawn under the first: no hit)
    assert _fallen_tables(order) is tables  # (kept: made once for the order)


def test_tallied_battles_draw_and_answer_as_with_tables_made_for_each():
    """The kept tables change nothing: each battle wins as often, over the same numbers drawn (the
    generator stands where it stood), as with the tables made afresh for every estimate."""
    pick = random.Random(41)
    for seed in range(60):
        a_vals = tuple(sorted((pick.choice([0, 1, 2, 3, 4]), pick.choice([3, 5, 6, 10]), 1, pick.random() < 0.7)
                              for _ in range(pick.randint(1, 7))))
        d_vals = tuple(sorted((pick.choice([1, 2, 2, 4]), pick.choice([3, 6, 12]), 1)
                              for _ in range(pick.randint(1, 6))))
        kept, fresh = random.Random(seed), random.Random(seed)
        found = _tallied_trials(a_vals, d_vals, kept.random, takes=True)
        quick_battle._fallen_tables.cache_clear()
        again = _tallied_trials(a_vals, d_vals, fresh.random, takes=True)
        assert found == again and kept.getstate() == fresh.getstate()


def test_the_doubts_settling_after_some_wins_is_its_table_sliced():
    """`_doubt_more` of a count of wins answers as `settling` of the stage's judge does, indexed from
    that count (the stage's own wins), at each stage and band."""
    for needed in (0.55, 0.75):
        for band in ((DOUBT_ABOVE, DOUBT_BELOW), (DOUBT_BAND, DOUBT_BAND)):
            for trials in DOUBT_TRIALS:
                if trials == DOUBT_TRIALS[-1]:
                    def judge(quick):
                        return quick >= needed + band[0], quick < needed - band[1], quick >= needed
                else:
                    def judge(quick):
                        return _doubt_judge(quick, needed, trials)
                whole = settling(judge, trials)
                for wins in (0, 1, 59, 60, trials // 2, trials - 1, trials):
                    assert _doubt_more(needed, wins, trials, band) == whole[wins:]
