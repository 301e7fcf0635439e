"""The heuristic agent's rule decisions (the `Advising` part of HeuristicAgent): a `choose` decision
is answered as the ruleset's `advice` on its id says, fed the estimates the advice asks for
(`win_chance`: the chance of the battle being fought, by the exact chain where the quick
simulation leaves the advice's answer in doubt), else by the look-ahead (lookahead.py), else by
the options' types alone. The methods read the agent's estimates (heuristic.py) through `self`.
"""

from __future__ import annotations

from fractions import Fraction
from functools import lru_cache

from ruleslang.lang.check.advice import OPTIONS
from ruleslang.runtime.agents.lookahead import MARGIN, candidates
from ruleslang.runtime.agents.quick_battle import SIM_TRIALS, outmatched, settling
from ruleslang.runtime.decisions import Decision

ADVICE_MARGIN = 0.25  # a retreat question's quick estimate is taken as this far from the chain's at most
# ... and with the part "advice" (heuristic.py's SPARE) this far: of the retreat questions the chain
# answered with ADVICE_MARGIN (seeds 1-40), the quick estimate +-0.15 settled 273 (188 chain runs, 4.7
# a game), where the advice fed the chain's answer differed in 6 (0.1: 359, 12; 0.05: 466, 26)
ADVICE_NEAR = 0.15
# ... and with the part "glance" this far where the quick estimate is reckoned (worked out exactly
# for a small battle, not thrown: the agent's `_reckons`): of the retreat questions the chain
# answered with ADVICE_NEAR whose estimate was reckoned (seeds 1-100: 740, the reckoned chance equal
# to the chain's in 672), the reckoned chance +-0.05 settled 458 (about 7 ms of chain answers a
# game), where the advice fed the chain's answer differed in 4 (0.02: 536, 16; 0.1: 167, 2)
GLANCE_NEAR = 0.05
# ... and with the part "trust" the reckoned estimate is the answer wherever it lies: of the 179
# retreat questions the chain answered after a reckoned estimate in 79 compare games (seeds 0-39,
# house rules and base; 2.3 a game, about 5 ms of chain a game), the advice fed the reckoned
# estimate answered otherwise than fed the chain's in 8
# ... and with the part "sure" a question whose standing sides the square law finds lopsided (one
# side's strength under SURE_RATIO of the other's: quick_battle.py's `outmatched`) is answered
# without an estimate, the weaker side taken as winning no trial where the advice answers the same
# fed any chance from none to SURE_WINS of SIM_TRIALS wins: of 1,361 retreat questions in 20 compare
# games (games 0-9, both variants), the attack was under half the defence in 42 (their estimates at
# most 0.174) and at least twice it in 962 (at least 0.5, where most thrown estimates stop; all
# "stay"); in 160 (games 0-79) the part answered 7,964 of 11,042, none otherwise than the estimate
SURE_RATIO = 0.55
SURE_WINS = 24


class Advising:
    """The rule decisions of HeuristicAgent (a part of the class: it reads `spare`, `lookahead`,
    `battle_odds` and the quick estimates of heuristic.py)."""

    def _choose(self, d: Decision, game):
        """The answer the ruleset advises (an `advice` on the decision's id), else the best by
        look-ahead (lookahead.py), else a neutral one."""
        advice = game.compiled.advice(d.id) if d.id else None
        if advice is not None:
            answer = self._advised(advice, d, game)
            if answer is not _NO_ADVICE:
                if self.check_advice and self.lookahead is not None:
                    self._check_advice(d, game, answer)
                return answer
        if self.lookahead is None:
            return _neutral(d)
        return self.lookahead.choose(game, d, _neutral(d))

    def _check_advice(self, d: Decision, game, advised) -> None:
        """Count whether the look-ahead finds no answer better than the advised one by more than MARGIN."""
        values = self.lookahead.values(game, d, candidates(d, advised))
        if values is None:
            return
        tally = self.advice_checks.setdefault(d.id, [0, 0])
        tally[0 if max(values) <= values[0] + MARGIN else 1] += 1

    def _advised(self, advice, d: Decision, game):
        """The advised answer, or _NO_ADVICE when an estimate it needs cannot be made or the rules'
        answer is not a legal one here."""
        args = []
        for name in advice.params:
            if name == OPTIONS:
                value = tuple(d.options)
            elif name == "win_chance" and "retreat" in self.spare and len(advice.params) == 1:
                value = self._spared_win_chance(advice, d, game)
            else:
                value = getattr(self, "_estimate_" + name)(d, game)
            if value is None:
                return _NO_ADVICE
            args.append(value)
        answer = advice.fn(game.ctx, *args)
        if d.mode == "one":
            return answer if answer in d.options else _NO_ADVICE
        chosen = tuple(o for o in d.options if o in answer)
        fits = len(chosen) == d.count if d.mode == "exactly" else len(chosen) <= d.count
        return chosen if fits else _NO_ADVICE

    def _estimate_win_chance(self, d: Decision, game, *, chain: bool = True,
                             settle: tuple | None = None) -> Fraction | None:
        """The chance that the deciding player's side wins the battle being fought, from the round
        after the one just fought (the units standing, with their hits; battle_odds.py); with
        `chain` false, the quick simulation's alone, its trials stopped by `settle` (an advice
        and its margin: `_settling`) once the rest cannot change what `_spared_win_chance` does
        with the estimate."""
        battle = getattr(game.ctx, "battle", None)  # set while a battle is fought
        if battle is None:
            return None
        # what outlives this round (its casualties are still on the board until it ends); the
        # previous agent (odds="quick") counted them too, and is kept as it played
        sides = battle.standing if self.battle_odds is not None else battle.units
        attack, defence = sides("attacker"), sides("defender")
        found = None
        if self.battle_odds is not None and chain:
            # (where an assault comes from: asked of the chain alone, not of the quick estimate)
            support = battle.support_units() if battle.amphibious else []
            # the battle as it stands goes on from the next round: its start and first round are behind it
            found = self.battle_odds.chance(
                game, battle.attacker, attack, battle.space, defence=defence,
                amphibious_from=support[0].space if support else None, round_number=battle.round + 1)
        # the quick simulation's count as a fraction: an advice's threshold is compared exactly
        ours = game.allied(d.player, battle.attacker)
        if found is not None:
            won = Fraction(found)
        elif settle is not None and not chain:
            # (no "outmatched" 0: the count stays one the settling alone cut short)
            won = Fraction(self._wins(game, attack, defence, _settling(game, *settle, ours), outmatch=False)) / SIM_TRIALS
        else:
            won = Fraction(self._wins(game, attack, defence)) / SIM_TRIALS
        return won if ours else 1 - won

    def _spared_win_chance(self, advice, d: Decision, game) -> Fraction | None:
        """`_estimate_win_chance` for an advice on `win_chance` alone, without the chain when the
        quick simulation settles the answer: when the advice answers the same fed the quick
        estimate ADVICE_MARGIN (ADVICE_NEAR with the part "advice") lower and higher, the quick
        estimate is the answer (an advice on a chance, such as the shipped rulesets' retreat
        below a threshold, answers the same anywhere between); else the chain's. In seeded
        house-rules games the quick estimate settled the advice in 119 of 146 battles' first
        retreat questions, where the chain answered otherwise once. With the part "glance" (SPARE),
        a quick estimate worked out exactly (`_glanced`) is taken as GLANCE_NEAR from the chain's
        at most: the quick model then misses the chain only where the rules do what it does not
        follow (support fire, first strikes, what may hit what), not by its dice; with the part
        "trust" too, a reckoned estimate is the answer wherever it lies (GLANCE_NEAR or not: the
        chain is not asked). A thrown quick estimate stops its trials once the rest cannot change
        whether the band settles the advice, nor its answer (`_settling`): the estimate then
        answers as all its trials would have (its dice are its own: `_dice`), and the later
        estimates roll as they would have."""
        if "sure" in self.spare:
            sure = self._sure_win_chance(advice, d, game)
            if sure is not None:
                return sure
        margin = ADVICE_NEAR if "advice" in self.spare else ADVICE_MARGIN
        quick = self._estimate_win_chance(d, game, chain=False, settle=(advice, margin))
        if quick is None:
            return None
        if _settles(advice, game, quick, margin):
            return quick
        # (the narrower band only where the wider one leaves a doubt: an advice on a threshold
        # answers the same across the narrower wherever it does across the wider)
        if "glance" in self.spare and self._glanced(game) and ("trust" in self.spare
                                                               or _settles(advice, game, quick, GLANCE_NEAR)):
            return quick
        return self._estimate_win_chance(d, game)

    def _sure_win_chance(self, advice, d: Decision, game) -> Fraction | None:
        """With the part "sure" (SPARE, with "settled"): the chance `_spared_win_chance` answers
        without an estimate where the square law settles the advice (the battle's standing sides,
        as `_estimate_win_chance` reads them): a side far weaker than the other (`outmatched` by
        SURE_RATIO) is taken as winning none of the estimate's trials, the other all, where the
        advice answers the same fed the deciding side's chance anywhere from the weaker side
        winning none to SURE_WINS of SIM_TRIALS (`_sure_answer`); else None (the estimate is
        made). A quick estimate that would have been thrown has its generator's seed drawn all the
        same (`_dice`), so that the later estimates roll as they would have."""
        battle = game.ctx.battle
        if battle is None or self.sims is not None or "settled" not in self.spare:
            return None
        sides = battle.standing if self.battle_odds is not None else battle.units
        attack, defence = sides("attacker"), sides("defender")
        if not attack or not defence:
            return None  # (decided: the estimate costs nothing)
        # (in the sides' order: the square law and `_reckons` read sums alone)
        a_vals = [self._combatant(game, u, "attacker") for u in attack]
        d_vals = [self._combatant(game, u, "defender") for u in defence]
        if outmatched(a_vals, d_vals, SURE_RATIO):
            attack_wins = False
        elif outmatched(d_vals, a_vals, SURE_RATIO):
            attack_wins = True
        else:
            return None
        ours = game.allied(d.player, battle.attacker)
        won = _sure_answer(advice, game, attack_wins == ours)
        if won is None:
            return None
        if not self._reckons(a_vals, d_vals):
            self._dice()  # (the seed the thrown estimate would have drawn)
        return won

    def _glanced(self, game) -> bool:
        """Whether the quick estimate of the battle being fought (`_estimate_win_chance` without
        the chain: `_wins` of the sides standing) is worked out exactly (`_wins_reckoned`)."""
        battle = game.ctx.battle
        return self._wins_reckoned(game, battle.standing("attacker"), battle.standing("defender"))


_NO_ADVICE = object()  # the advice gives no answer here


def _settles(advice, game, chance: Fraction, margin: float) -> bool:
    """Whether `advice` answers the same fed `chance` less and plus `margin` (kept within 0 and 1)."""
    margin = _fraction(margin)
    low, high = max(chance - margin, _ZERO), min(chance + margin, _ONE)
    return advice.fn(game.ctx, low) == advice.fn(game.ctx, high)


def _settling(game, advice, margin: float, ours: bool) -> tuple[int, ...] | None:
    """`simulate`'s `settle` for a quick estimate that `_spared_win_chance` takes as the answer
    where `advice` answers the same across `margin` of it (the chain asked otherwise): for each
    count of wins, how many more leave both what the band settles and its answer as they are
    (`ours`: the count is of the deciding side's wins, else of the other side's). Made once for
    an advice that reads nothing of the game besides its arguments (`Advice.counters` empty); None
    for one that reads more (its answer may change with the game: every trial is thrown)."""
    if advice.counters != frozenset():
        return None
    key = (advice, margin, ours)
    found = _SETTLINGS.get(key)
    if found is None:
        def judged(share: Fraction):
            chance = share if ours else 1 - share
            return advice.fn(game.ctx, chance) if _settles(advice, game, chance, margin) else _NO_ADVICE
        found = _SETTLINGS[key] = settling(judged, exact=True)
    return found


_SETTLINGS: dict[tuple, tuple[int, ...]] = {}  # `_settling`'s, by (advice, margin, ours): a few a process


def _sure_answer(advice, game, stronger: bool) -> Fraction | None:
    """The deciding side's chance "sure" takes (1 when it is the `stronger` side, else 0) where
    `advice` answers the same fed any chance from there to SURE_WINS of SIM_TRIALS wins away;
    None where it does not. Kept for an advice that reads nothing of the game besides its
    arguments (`Advice.counters` empty), as `_settling`."""
    key = (advice, stronger)
    found = _SURE.get(key, _NO_ADVICE)
    if found is not _NO_ADVICE:
        return found
    edge = Fraction(SURE_WINS, SIM_TRIALS)
    low, high = (_ONE - edge, _ONE) if stronger else (_ZERO, edge)
    found = (_ONE if stronger else _ZERO) if advice.fn(game.ctx, low) == advice.fn(game.ctx, high) else None
    if advice.counters == frozenset():
        _SURE[key] = found
    return found


_SURE: dict[tuple, Fraction | None] = {}  # `_sure_answer`'s, by (advice, stronger): a few a process


# `_settles`'s margins (a few constants) as exact fractions, each made once, not once a question
_fraction = lru_cache(maxsize=None)(Fraction)
_ZERO, _ONE = Fraction(0), Fraction(1)


def _neutral(d: Decision):
    """The answer to a decision without advice, by the options' types alone: yes to a yes-or-no
    question, the most of a number, the first option, the first `count` of `choose N`, none of
    `choose up to N`."""
    options = d.options
    if d.mode == "one":
        if all(isinstance(o, bool) for o in options):
            return True
        if all(isinstance(o, int) for o in options):
            return max(options)
        return options[0]
    return tuple(options[: d.count]) if d.mode == "exactly" else ()
