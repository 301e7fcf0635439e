"""What the exact battle chain computes: the battle asked (`BattleSpec`), how each side orders
its losses (`CasualtyPolicy`), and the distribution of the battle's ends (`Result`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

# the outcomes of a battle, in the order they are reported
ATTACKER_WINS, DEFENDER_HOLDS, BOTH_DESTROYED, STALEMATE, ROUND_LIMIT, RETREAT = (
    "attacker wins", "defender holds", "both destroyed", "stalemate", "round limit", "attacker retreats")
OUTCOMES = (ATTACKER_WINS, DEFENDER_HOLDS, BOTH_DESTROYED, STALEMATE, ROUND_LIMIT, RETREAT)


@dataclass
class BattleSpec:
    """A battle to compute: the attacker's units (type -> count) against the defenders at `space`
    (the scenario's units there, or `defending` owned by `defender`). `round`: the round the
    battle is computed from (1: from its start; a later one: a battle in progress, from the start
    of that round, its `start` step and first round behind it); `hits`: (side, unit type) -> the
    hits taken by the damaged units of that type (one number per unit; the others undamaged)."""

    space: str
    attacker: str
    attacking: dict[str, int]
    defending: dict[str, int] | None = None
    defender: str | None = None
    came_from: list[str] = field(default_factory=list)
    amphibious_from: str | None = None
    round: int = 1
    hits: dict[tuple[str, str], tuple[int, ...]] = field(default_factory=dict)


@dataclass
class CasualtyPolicy:
    """How a side orders its losses: "cheapest", "keep-attackers", or a list of unit types."""

    kind: str = "cheapest"
    types: tuple[str, ...] = ()


@dataclass
class Result:
    """The distribution of a battle's ends: `ends` maps (outcome, survivors) to its probability,
    survivors as ((side, type, owner, hits), count) pairs; `taken`: the probability that the
    attacker takes the territory; `rounds`: the expected number of rounds fought."""

    spec: BattleSpec
    attacker: str
    defender: str | None
    initial: dict[str, dict[tuple[str, str], int]]
    costs: dict[str, int]
    ends: dict[tuple, Any]
    taken: Any
    rounds: Any
    states: int
    method: str = "exact"

    def outcome(self, name: str):
        """The probability of one outcome (ATTACKER_WINS, ...)."""
        return sum((p for (kind, _), p in self.ends.items() if kind == name), zero(self.taken))

    def expected_survivors(self, side: str) -> dict[tuple[str, str], Any]:
        """(type, owner) -> the expected number of that side's units left."""
        out: dict[tuple[str, str], Any] = {key: zero(self.taken) for key in self.initial[side]}
        for (_, survivors), p in self.ends.items():
            for (s, utype, owner, _hits), n in survivors:
                if s == side:
                    out[(utype, owner)] = out.get((utype, owner), zero(p)) + n * p
        return out

    def expected_loss(self, side: str):
        """The expected value (purchase cost) of the side's units destroyed."""
        left = self.expected_survivors(side)
        return sum(((self.initial[side][key] - left[key]) * self.costs[key[0]] for key in self.initial[side]),
                   zero(self.taken))


def zero(like):
    return 0.0 if isinstance(like, float) else Fraction(0)



def survivors(key: tuple) -> tuple:
    """The units left in state `key`, counted: ((side, type, owner, hits), count) pairs in order."""
    counts: dict = {}
    for side, _o, utype, owner, hits, *_ in key[0]:
        counts[(side, utype, owner, hits)] = counts.get((side, utype, owner, hits), 0) + 1
    return tuple(sorted(counts.items()))
