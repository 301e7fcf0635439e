"""Balance by bid (`ruleslang balance`): the bid that brings a side's chance closest to one half.

The A&A community balances a game by a bid: extra IPCs of units the weaker side buys and places
before round 1. Its chance to come out on top (won, or ahead on score at the end) grows with the
bid, so the search is a bracketing one: the bid doubles from `step` until the side reaches one
half (or `max_bid`), then the bracket is halved down to `step`. Every bid is played on the same
seeds (paired), so the rates of two bids differ by the bid, not by the dice.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from ruleslang.compare import stats

TARGET = 0.5


@dataclass(frozen=True)
class Trial:
    """One bid played: its games, the side's count of games won or led, the rate with its interval."""

    bid: int
    games: int
    count: int

    @property
    def rate(self) -> dict:
        return stats.rate(self.count, self.games)

    def to_json(self) -> dict:
        return {"bid": self.bid, "games": self.games, **self.rate}


def search(play: Callable[[int], Trial], *, step: int, max_bid: int) -> list[Trial]:
    """The bids tried, in the order tried (`play(bid)` plays one): 0, then step, 2 step, 4 step ...
    until the side reaches one half or `max_bid`, then bisection of the bracket down to `step`."""
    tried = {0: play(0)}
    if tried[0].count / tried[0].games >= TARGET:
        return list(tried.values())
    low, high = 0, None
    bid = step
    while bid <= max_bid:
        tried[bid] = play(bid)
        if tried[bid].count / tried[bid].games >= TARGET:
            high = bid
            break
        low = bid
        bid = bid * 2 if bid * 2 <= max_bid or bid == max_bid else max_bid
        if bid == low:
            break
    if high is None:
        return list(tried.values())
    while high - low > step:
        middle = low + max(step, (high - low) // 2 // step * step)  # a whole number of steps above low
        if middle in tried or middle >= high:
            break
        tried[middle] = play(middle)
        if tried[middle].count / tried[middle].games >= TARGET:
            high = middle
        else:
            low = middle
    return list(tried.values())


def best(trials: list[Trial]) -> Trial:
    """The bid whose rate is closest to one half (the smaller bid on a tie)."""
    return min(trials, key=lambda t: (abs(t.count / t.games - TARGET), t.bid))
