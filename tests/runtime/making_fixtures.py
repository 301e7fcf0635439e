"""What the tests of the hits made for every count share (tests/runtime/test_chain_shared_makings.py,
test_chain_makings_anywhere.py): a house-rules game, a chain that notes each such hit it makes, and
a chain's answer as its floats' exact digits."""

from __future__ import annotations

from functools import lru_cache

from ruleslang.runtime import saves
from ruleslang.runtime.odds.chain import Chain
from ruleslang.runtime.odds.makings import _EVERY
from ruleslang.runtime.odds.watch import split_of
from ruleslang.workspace.compositions import Workspace


@lru_cache(maxsize=None)
def house_rules_game():
    """A game of aar/house-rules@1 (seed 1, one round, heuristic agents), made once."""
    setup = saves.GameSetup(refs=["aar/house-rules@1"], scenario=None, seed=1, rounds=1, players={},
                            default_agent="heuristic", settings=[], orders=None)
    return saves.build_game(Workspace([]), setup)


class NotingChain(Chain):
    """A chain that notes each hit it makes for every count in `made`: (the chain's place in the
    sequence, the hit's statement, the side hit, that side's records before, the counters written).
    `by_place`: the records noted without their ids' place in the type order (a battle fought at
    other sites has other type orders)."""

    made: list = []
    place = 0
    by_place = False

    def _every_made(self, hit, key, round_class, most=_EVERY, before=()):
        found = super()._every_made(hit, key, round_class, most, before)
        if found is not None and found[0]:
            side = found[0][0][0]
            split = split_of(key[0])
            rows = key[0][:split] if side == "attacker" else key[0][split:]
            if self.by_place:
                rows = tuple(r[:1] + r[2:] for r in rows)
            self.made.append((self.place, id(hit.stmt), side, rows, key[1]))
        return found


def chain_floats(result) -> tuple:
    """A chain's answer: its states and every float it gives, by their exact digits."""
    return (result.states, [repr(p) for p in result.ends.values()], repr(result.taken), repr(result.rounds),
            repr(result.expected_loss("attacker")), repr(result.expected_loss("defender")))
