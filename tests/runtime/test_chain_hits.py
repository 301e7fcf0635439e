"""A hit inside the exact chain takes the short way and gives what the long way gives (issue 15).

The chain's host answers a `hit`'s casualty decision from the units (`BattleHost.casualties_chosen`:
no `Decision`, no message, no check of its own policy's answer) and marks each hit without a board
event (`BattleHost.unit_hit`); the long way is the one a game takes (`Battle._casualties` asking
`ask`, `GameServices.unit_hit` through `update_units`)."""

from __future__ import annotations

import pytest

from ruleslang.runtime.game import GameServices
from ruleslang.runtime.odds.chain import Chain

from test_chain_bookkeeping import BATTLES, _chain


class _Counted(Chain):
    """A chain that counts the casualty decisions its host is asked (`ask`)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        host = self.host
        self.asked = 0
        ask = host.ask

        def counted(decision, check, fallback):
            self.asked += decision.kind == "casualties"
            return ask(decision, check, fallback)
        host.ask = counted


class _LongWay(_Counted):
    """A chain whose host makes every casualty decision and board event a game makes."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        host = self.host
        self.events = 0
        host.casualties_chosen = None  # `Battle.hit` asks the decision (`Battle._casualties`)

        def unit_hit(unit, hits):
            before = len(host.state.events)
            GameServices.unit_hit(host, unit, hits)
            self.events += len(host.state.events) - before
        host.unit_hit = unit_hit


@pytest.mark.parametrize("exact", [False, True], ids=["floats", "fractions"])
@pytest.mark.parametrize("battle", BATTLES, ids=["house-rules land", "AA gun", "sea"])
def test_a_hit_the_short_way_gives_what_the_long_way_gives(battle, exact):
    short, long_way = _chain(_Counted, *battle, exact=exact), _chain(_LongWay, *battle, exact=exact)
    result, expected = short.solve(), long_way.solve()
    assert result.ends == expected.ends  # floats too: the same sums in the same order
    assert (result.taken, result.rounds) == (expected.taken, expected.rounds)
    # the short way asked no decision and wrote no event; the long way made them
    assert short.asked == 0
    assert long_way.asked > 0 and long_way.events > 0
