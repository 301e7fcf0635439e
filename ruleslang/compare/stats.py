"""The statistics of a comparison (scipy): Wilson intervals of rates, t intervals of means, 10-90%
bands, and paired differences between variants with their intervals and p-values.

A difference is measured on matched games (game i of both variants shares its seed): the interval
is a t interval on the per-game differences; its p-value is McNemar's exact test for a rate (the
games where exactly one variant had the event) and the paired t test for a mean. The half-width
the same games would give as if unmatched (Welch) is computed beside it, so a reader sees how
much the pairing narrowed the interval.
"""

from __future__ import annotations

import math
from typing import Sequence

import numpy
from scipy import stats

LEVEL = 0.95
SIGNIFICANCE = 0.05
PAIRED_METHOD = "paired: McNemar exact test, t interval on the per-game differences"
PAIRED_MEAN_METHOD = "paired: t test and t interval on the per-game differences"


def rate(count: int, n: int) -> dict:
    """A rate with its Wilson 95% interval."""
    if n == 0:
        return {"count": 0, "rate": 0.0, "low": 0.0, "high": 1.0}
    ci = stats.binomtest(count, n).proportion_ci(LEVEL, method="wilson")
    return {"count": count, "rate": count / n, "low": float(ci.low), "high": float(ci.high)}


def _t(n: int) -> float:
    return float(stats.t.ppf((1 + LEVEL) / 2, n - 1))


def mean(values: Sequence[float]) -> dict:
    """A mean with its t 95% interval (one value: the interval is the value)."""
    n = len(values)
    if n == 0:
        return {"mean": 0.0, "low": 0.0, "high": 0.0}
    m = float(numpy.mean(values))
    if n == 1:
        return {"mean": m, "low": m, "high": m}
    half = _t(n) * float(numpy.std(values, ddof=1)) / math.sqrt(n)
    return {"mean": m, "low": m - half, "high": m + half}


def band(values: Sequence[float]) -> dict:
    """The mean and the 10% and 90% points of a set of values (linear interpolation)."""
    p10, p90 = numpy.percentile(values, [10, 90])
    return {"mean": float(numpy.mean(values)), "p10": float(p10), "p90": float(p90)}


def _halfwidth(values: Sequence[float]) -> float:
    n = len(values)
    return 0.0 if n < 2 else _t(n) * float(numpy.std(values, ddof=1)) / math.sqrt(n)


def _unpaired_halfwidth(a: Sequence[float], b: Sequence[float]) -> float:
    n = len(a)
    if n < 2:
        return 0.0
    return _t(n) * math.sqrt(float(numpy.var(a, ddof=1)) / n + float(numpy.var(b, ddof=1)) / len(b))


def paired_difference(a: Sequence[float], b: Sequence[float], *, binary: bool) -> dict:
    """The difference b - a over matched games: its mean, 95% interval, p-value, whether it is
    significant at 5%, the method, and the paired and unpaired half-widths."""
    d = [y - x for x, y in zip(a, b)]
    n = len(d)
    diff = float(numpy.mean(d)) if n else 0.0
    half = _halfwidth(d)
    if binary:
        only_b = sum(1 for x in d if x > 0)
        only_a = sum(1 for x in d if x < 0)
        p = 1.0 if only_a + only_b == 0 else float(stats.binomtest(only_b, only_a + only_b).pvalue)
        method = PAIRED_METHOD
    else:
        if half == 0.0:  # every game differs by the same amount (or there are too few)
            p = 1.0 if diff == 0 or n < 2 else 0.0
        else:
            p = float(stats.ttest_rel(b, a).pvalue)
        method = PAIRED_MEAN_METHOD
    return {"diff": diff, "low": diff - half, "high": diff + half, "p_value": min(1.0, p),
            "significant": p < SIGNIFICANCE, "method": method, "paired_halfwidth": half,
            "unpaired_halfwidth": _unpaired_halfwidth(a, b)}
