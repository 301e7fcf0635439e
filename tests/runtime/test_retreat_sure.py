"""The part "sure" of the heuristic agent's SPARE (advising.py's `_sure_win_chance`): a retreat
question whose standing sides the square law finds lopsided (one side's strength under SURE_RATIO
of the other's) is answered without an estimate where the advice answers the same across the band
of SURE_WINS; a thrown estimate's seed is drawn all the same, so later estimates roll as before."""

from __future__ import annotations

from fractions import Fraction

from game_fixtures import retreat_question
from ruleslang.runtime.agents import advising
from ruleslang.runtime.agents.advising import SURE_WINS, _sure_answer
from ruleslang.runtime.agents.heuristic import SPARE, HeuristicAgent
from ruleslang.runtime.agents.quick_battle import SIM_TRIALS

WITHOUT = tuple(part for part in SPARE if part != "sure")


def _asked(attackers: dict, defenders: dict, spare: tuple, monkeypatch) -> tuple:
    """(the answer to the retreat question, the estimates it made, the agent's generator's state after)."""
    made = [0]
    estimate = advising.Advising._estimate_win_chance

    def counting(self, *args, **kwargs):
        made[0] += 1
        return estimate(self, *args, **kwargs)

    monkeypatch.setattr(advising.Advising, "_estimate_win_chance", counting)
    agent, answer, _ = retreat_question(attackers, defenders, spare=spare)
    return answer, made[0], agent.rng.getstate()


def test_sure_is_a_part_of_the_default():
    assert "sure" in SPARE
    assert "sure" in HeuristicAgent(1, "Germans").spare
    assert "sure" not in HeuristicAgent(1, "Germans", spare=WITHOUT).spare


def test_a_lopsided_small_battle_is_answered_without_an_estimate(monkeypatch):
    # six armour against an infantry (18 x 6 against 2 x 1): stay, as the reckoned estimate says
    assert _asked({"armour": 6}, {"infantry": 1}, WITHOUT, monkeypatch)[:2] == (False, 1)
    assert _asked({"armour": 6}, {"infantry": 1}, SPARE, monkeypatch)[:2] == (False, 0)


def test_a_lopsided_battle_too_large_to_reckon_draws_its_seed_all_the_same(monkeypatch):
    # twelve armour against four infantry: thrown without the part (its generator's seed drawn
    # from the agent's), answered without an estimate with it; the agent's dice after are the same
    without = _asked({"armour": 12}, {"infantry": 4}, WITHOUT, monkeypatch)
    with_part = _asked({"armour": 12}, {"infantry": 4}, SPARE, monkeypatch)
    assert without[:2] == (False, 1) and with_part[:2] == (False, 0)
    assert with_part[2] == without[2]
    # (a question that draws nothing leaves the generator as it was made)
    assert with_part[2] != HeuristicAgent(1, "Germans").rng.getstate()


def test_an_even_battle_is_estimated(monkeypatch):
    # an armour against an armour: neither side is under SURE_RATIO of the other
    assert _asked({"armour": 1}, {"armour": 1}, SPARE, monkeypatch)[:2] == (True, 1)


def test_an_outmatched_attack_is_estimated_where_the_band_does_not_settle_the_advice(monkeypatch):
    # an infantry against six (1 x 1 against 12 x 6): the shipped advice (retreat below 0.35)
    # answers otherwise at none and at SURE_WINS of SIM_TRIALS (0.4): estimated (and retreats)
    assert SURE_WINS / SIM_TRIALS > 0.35
    assert _asked({"infantry": 1}, {"infantry": 6}, SPARE, monkeypatch)[:2] == (True, 1)


class _Advice:
    """An advice on a chance alone, below `threshold`."""

    counters = frozenset()

    def __init__(self, threshold: float):
        self.threshold = threshold

    def fn(self, ctx, chance):
        return chance < self.threshold


class _Game:
    ctx = None


def test_the_band_settles_a_side_where_the_advice_answers_alike_across_it():
    edge = Fraction(SURE_WINS, SIM_TRIALS)
    # retreat below a half: the stronger side's chance from 1 - edge to 1, the weaker's from 0 to edge
    assert _sure_answer(_Advice(0.5), _Game(), True) == 1
    assert _sure_answer(_Advice(0.5), _Game(), False) == 0
    # retreat below 0.35: the weaker side is not settled (0.4 stays, 0 retreats)
    assert _sure_answer(_Advice(0.35), _Game(), False) is None
    assert _sure_answer(_Advice(float(1 - edge) + 0.01), _Game(), True) is None
