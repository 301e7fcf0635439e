"""Exact distributions, folded over partial states (dynamic programming).

A distribution is held as integer weights over one total (`XDist`): combining independent
values multiplies weights and totals, so no fraction is built until the end. Equal outcomes
(equal partial states of a fold) are merged at every step, which is what keeps "the best 3 of
15 dice" polynomial: the states are the sorted top-3 tuples, never the 6^15 roll sequences.
"""

from __future__ import annotations

from fractions import Fraction
from math import gcd
from typing import Any, Callable, Iterable

from ruleslang.base.errors import EvalError
from ruleslang.base.limits import MAX_DIST_SUPPORT
from ruleslang.lang.values import Dist, normalize_number


class XDist:
    """Outcomes with integer weights; the probability of v is weights[v] / total."""

    __slots__ = ("weights", "total")

    def __init__(self, weights: dict, total: int):
        self.weights = weights
        self.total = total

    def items(self):
        return self.weights.items()

    def to_dist(self) -> Dist:
        return Dist({v: normalize_number(Fraction(w, self.total)) for v, w in self.weights.items()})

    def reduced(self) -> "XDist":
        g = self.total
        for w in self.weights.values():
            g = gcd(g, w)
            if g == 1:
                return self
        return XDist({v: w // g for v, w in self.weights.items()}, self.total // g)

    def __repr__(self) -> str:
        return f"XDist({self.weights}, /{self.total})"


def point(value) -> XDist:
    return XDist({value: 1}, 1)


_BUDGET_HINT = ("working this out exactly costs more than the budget (outcomes x sides per die): "
                "sample it instead (--seed N, without --exact), or raise the budget with --budget")


def _charge(ctx, span, work: int) -> None:
    """Spend `work` steps of the budget on exact evaluation; E501 says how to get an answer instead."""
    try:
        ctx.host.spend(span, work)
    except EvalError as e:
        e.hint = _BUDGET_HINT
        raise


def charge_both(ctx, span, first: int, second: int) -> None:
    """`_charge` of `first`, then of `second` (the two charges of a kept `lift`, of a counted trial:
    one call rather than two, the work worked out by the caller)."""
    try:
        ctx.host.spend(span, first)
        ctx.host.spend(span, second)
    except EvalError as e:
        e.hint = _BUDGET_HINT
        raise


def _guard(weights: dict, ctx, span) -> None:
    if len(weights) > MAX_DIST_SUPPORT:
        raise EvalError("E511", f"the exact distribution has more than {MAX_DIST_SUPPORT} outcomes", span,
                        hint="fold the values with an aggregate (sum, count, max, best k of) instead of "
                             "building whole lists of random values")


def dice(count: int, sides: int, ctx, span) -> XDist:
    """The sum of `count` dice with `sides` sides, by repeated convolution; each convolution's work
    (outcomes x sides) is charged to the budget before it is done."""
    acc = {0: 1}
    for _ in range(count):
        _charge(ctx, span, len(acc) * sides)
        nxt: dict = {}
        for s, w in acc.items():
            for face in range(1, sides + 1):
                nxt[s + face] = nxt.get(s + face, 0) + w
        _guard(nxt, ctx, span)
        acc = nxt
    return XDist(acc, sides ** count)


def lift(dists: list[XDist], f: Callable, ctx, span) -> XDist:
    """f applied to independent values: the product of the distributions, merged by result."""
    if len(dists) == 2 and (len(dists[0].weights) == 1 or len(dists[1].weights) == 1):
        return _lift_one(dists[0], dists[1], f, ctx, span)
    acc: dict = {(): 1}
    total = 1
    for d in dists:
        _charge(ctx, span, len(acc) * len(d.weights))  # before the work, so a huge product never starts
        nxt: dict = {}
        for args, w in acc.items():
            for v, wv in d.weights.items():
                key = args + (v,)
                nxt[key] = nxt.get(key, 0) + w * wv
        _guard(nxt, ctx, span)
        acc = nxt
        total *= d.total
    out: dict = {}
    for args, w in acc.items():
        r = f(*args)
        out[r] = out.get(r, 0) + w
    _guard(out, ctx, span)
    return XDist(out, total).reduced()


def _lift_one(a: XDist, b: XDist, f: Callable, ctx, span) -> XDist:
    """`lift` of two values, one of them (at least) sure: the same work charged, the same weights
    in the same order, without the product's tuples (a die compared with a unit's value)."""
    charge_lift(a, b, ctx, span)
    out: dict = {}
    if len(a.weights) == 1:
        ((x, wx),) = a.weights.items()
        for y, wy in b.weights.items():
            r = f(x, y)
            out[r] = out.get(r, 0) + wx * wy
    else:
        ((y, wy),) = b.weights.items()
        for x, wx in a.weights.items():
            r = f(x, y)
            out[r] = out.get(r, 0) + wx * wy
    _guard(out, ctx, span)
    return XDist(out, a.total * b.total).reduced()


def charge_lift(a: XDist, b: XDist, ctx, span) -> None:
    """The work `lift` of two values, one of them sure, charges (also when its result is kept)."""
    _charge(ctx, span, len(a.weights))
    _charge(ctx, span, len(a.weights) * len(b.weights))


def mixture(parts: Iterable[tuple[int, int, XDist]], ctx, span) -> XDist:
    """Sum over i of (w_i / t_i) * D_i: a branch taken with probability w_i/t_i leads to D_i."""
    parts = [(w, t, d) for w, t, d in parts if w]
    if not parts:
        return XDist({}, 1)
    if len(parts) == 1 and parts[0][0] == parts[0][1]:  # a branch taken for sure: its distribution
        return parts[0][2].reduced()
    # Common denominator of all branch totals times the inner totals.
    denom = 1
    for w, t, d in parts:
        q = t * d.total
        denom = denom * q // gcd(denom, q)
    _charge(ctx, span, sum(len(d.weights) for _, _, d in parts))
    out: dict = {}
    for w, t, d in parts:
        scale = w * (denom // (t * d.total))
        for v, wv in d.weights.items():
            out[v] = out.get(v, 0) + wv * scale
    _guard(out, ctx, span)
    return XDist(out, denom).reduced()


def bind(d: XDist, k: Callable[[Any], XDist], ctx, span) -> XDist:
    """For each outcome v of d, continue with k(v); the result is the weighted mixture."""
    if len(d.weights) == 1:
        (v,) = d.weights
        return k(v)
    return mixture(((w, d.total, k(v)) for v, w in d.weights.items()), ctx, span)


class Fold:
    """An aggregate as a fold: a start state, a step per element, a finish."""

    def __init__(self, init, step: Callable, finish: Callable | None = None):
        self.init = init
        self.step = step
        self.finish = finish


SKIP = object()  # an element the `where` condition left out


class Counting:
    """The state of a `count` over independent elements, each counted with a probability (a sum
    of Bernoulli trials: "the dice of these units under their values"), kept as one list of
    weights (`weights[i]`: the weight of the count `low + i`, over `total`) rather than a
    distribution folded and mixed per element. It charges the budget, checks the size and ends
    with the distribution that folding each element in (`fold_step`) and mixing the branches of
    its condition (`mixture`) gives: the same weights over the same total, in the same order."""

    __slots__ = ("weights", "total", "low")

    def __init__(self):
        self.weights = [1]
        self.total = 1
        self.low = 0

    def sure(self, ctx, span) -> None:
        """An element counted for sure (folded in as `fold_step` does)."""
        _charge(ctx, span, len(self.weights))
        self.low += 1

    def trial(self, w_true: int, total: int, ctx, span) -> None:
        """An element counted with probability `w_true / total` (0 < w_true <= total): the fold of
        the counted branch, then its mixture with the other (none when it is counted for sure)."""
        weights = self.weights
        n = len(weights)
        if w_true == total:
            _charge(ctx, span, n)
            self.low += 1
            return
        charge_both(ctx, span, n, 2 * n)
        w_false = total - w_true
        out = [w * w_false for w in weights]
        out.append(0)
        for i, w in enumerate(weights, 1):
            out[i] += w * w_true
        if len(out) > MAX_DIST_SUPPORT:
            _guard(out, ctx, span)
        self.weights = out
        self.total *= total

    def result(self) -> XDist:
        """The distribution of the count (reduced, as a fold's is)."""
        low = self.low
        return XDist({low + i: w for i, w in enumerate(self.weights)}, self.total).reduced()


def fold_step(acc: XDist, element: XDist, fold: Fold, ctx, span) -> XDist:
    """Merge one independent element (possibly SKIP) into the accumulated states."""
    _charge(ctx, span, len(acc.weights) * len(element.weights))
    out: dict = {}
    step = fold.step
    for s, ws in acc.weights.items():
        for v, wv in element.weights.items():
            s2 = s if v is SKIP else step(s, v)
            out[s2] = out.get(s2, 0) + ws * wv
    _guard(out, ctx, span)
    return XDist(out, acc.total * element.total).reduced()


def fold_finish(acc: XDist, fold: Fold, ctx, span) -> XDist:
    if fold.finish is None:
        return acc
    out: dict = {}
    for s, w in acc.weights.items():
        r = fold.finish(s)
        out[r] = out.get(r, 0) + w
    return XDist(out, acc.total)


def top_k_step(k: int, largest: bool) -> Callable:
    """Keep the k largest (or smallest) values seen, as a sorted tuple."""
    def step(state: tuple, v):
        merged = sorted(state + (v,), reverse=largest)
        return tuple(merged[:k])
    return step
