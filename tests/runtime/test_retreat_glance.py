"""The part "glance" of the heuristic agent's SPARE (advising.py's GLANCE_NEAR, `_glanced`): a retreat
question whose quick estimate is worked out exactly (a small battle the agent reckons) is settled
by that estimate within GLANCE_NEAR of the threshold, where ADVICE_NEAR leaves it in doubt; a
thrown estimate, or one nearer the threshold, still asks the chain."""

from __future__ import annotations

from game_fixtures import retreat_asked
from ruleslang.runtime.agents.heuristic import SPARE, HeuristicAgent

WITHOUT = tuple(part for part in SPARE if part != "glance")


_retreat_question = retreat_asked


def test_glance_is_a_part_of_the_default():
    assert "glance" in SPARE
    assert "glance" in HeuristicAgent(1, "Germans").spare


def test_a_reckoned_estimate_within_the_wider_band_settles_the_retreat_question():
    # (the shipped rulesets retreat below 35%) an infantry against an infantry (0.25), two against
    # two (about 0.27), four armour against six infantry (about 0.22): each reckoned, in doubt for
    # ADVICE_NEAR (the chain asked), settled for GLANCE_NEAR, with the chain's answer
    for attackers, defenders in (({"infantry": 1}, {"infantry": 1}), ({"infantry": 2}, {"infantry": 2}),
                                 ({"armour": 4}, {"infantry": 6})):
        assert _retreat_question(attackers, defenders, WITHOUT) == (True, 1, True)
        assert _retreat_question(attackers, defenders, SPARE) == (True, 0, True)


def test_a_reckoned_estimate_near_the_threshold_still_asks_the_chain():
    # an armour against an armour: 1/3, within GLANCE_NEAR of 0.35 (without the part "trust",
    # which takes the reckoned estimate wherever it lies: test_retreat_trust.py)
    glance = tuple(part for part in SPARE if part != "trust")
    assert _retreat_question({"armour": 1}, {"armour": 1}, glance) == (True, 1, True)


def test_a_thrown_estimate_still_asks_the_chain():
    # six armour against eight infantry: too large to reckon, its thrown estimate
    # within ADVICE_NEAR of the threshold: the exact odds are asked, as without the part (and
    # found over their budget here, so the answer is the thrown estimate's, which turns on its
    # dice: not asserted)
    assert _retreat_question({"armour": 6}, {"infantry": 8}, SPARE)[1:] == (1, False)
    assert _retreat_question({"armour": 6}, {"infantry": 8}, WITHOUT)[1] == 1


def test_without_reckon_no_estimate_is_glanced():
    # the part needs "reckon" (and "settled"): without it the estimate is thrown
    for part in ("reckon", "settled"):
        spare = tuple(other for other in SPARE if other != part)
        assert _retreat_question({"infantry": 1}, {"infantry": 1}, spare)[2] is False
