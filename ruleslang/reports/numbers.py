"""Figures written for people: rates as percentages, intervals, signed differences, p-values."""

from __future__ import annotations


def pct(rate: float, digits: int = 1) -> str:
    """A rate in [0, 1] as a percentage: 0.7512 -> '75.1%'."""
    return f"{100 * rate:.{digits}f}%"


def pct_interval(low: float, high: float, digits: int = 1) -> str:
    """A rate's interval as percentages: '69.0–80.6%'."""
    return f"{100 * low:.{digits}f}–{100 * high:.{digits}f}%"


def num(value: float, digits: int = 2) -> str:
    """A number with `digits` decimals, a true minus sign for negatives."""
    return f"{value:.{digits}f}".replace("-", "−")


def signed(value: float, digits: int = 3) -> str:
    """A difference with its sign always shown: '+0.045', '−0.050'."""
    return f"{value:+.{digits}f}".replace("-", "−")


def interval(low: float, high: float, digits: int = 3) -> str:
    """An interval of numbers: '−0.089 to −0.011'."""
    return f"{num(low, digits)} to {num(high, digits)}"


def p_value(p: float) -> str:
    """A p-value as people read it: three decimals, '< 0.001' below that."""
    return "< 0.001" if p < 0.001 else f"{p:.3f}"
