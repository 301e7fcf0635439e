"""What the exact chain keeps of its steps' work: results kept under what computing them read
(`Kept`), and a transition kept as the changes it made to the sides (`as_changes`, `apply_changes`),
so that a state that agrees with an earlier one on what a step read takes the earlier state's
transition (runtime/odds/steps.py, makings.py).
"""

from __future__ import annotations

from ruleslang.runtime.odds.watch import EVERYTHING, ROUND, split_of

WHOLE = "whole state"  # in a transition's changes: the successor's records are given whole


class Kept:
    """Results kept under what computing them read: an aspect set of the state (watch.py) and the
    state's projection on it (with the round class when the round was read). Looked up in the
    order the aspect sets were first seen. `project(state, aspects, split)`, what of the state the
    aspects name, is the chain's, handed in with each call: held here, it would make every chain
    a cycle that only the garbage collector frees (`Chain.solve`)."""

    __slots__ = ("seen", "known")

    def __init__(self):
        self.seen: list[frozenset] = []
        self.known: dict[tuple, object] = {}

    def find(self, project, key: tuple, split: int, rclass: int):
        """(what it read, what was kept) for a state that agrees with `key` on what it read, or None."""
        known = self.known
        for aspects in self.seen:
            found = known.get((aspects, project(key, aspects, split), rclass if ROUND in aspects else None))
            if found is not None:
                return aspects, found
        return None

    def keep(self, project, key: tuple, split: int, rclass: int, aspects: frozenset, value) -> None:
        """Keep `value`, computed from state `key`, which read `aspects`."""
        if aspects not in self.seen:
            self.seen.append(aspects)
        self.known[(aspects, project(key, aspects, split), rclass if ROUND in aspects else None)] = value

    def keep_changes(self, project, key: tuple, split: int, rclass: int, out: dict, aspects: frozenset) -> None:
        """Keep transition `out` from `key` as changes (`changes`); kept for this state alone when a
        side changed that the computation did not read whole. Gives the aspects it is kept under."""
        changes = as_changes(key, split, out, aspects)
        if changes is None:
            aspects = frozenset((EVERYTHING, ROUND))
            changes = as_changes(key, split, out, aspects)
        self.keep(project, key, split, rclass, aspects, changes)
        return aspects


def as_changes(key: tuple, split: int, out: dict, aspects: frozenset) -> list | None:
    """The transition `out` from state `key` as changes: (the attacker's records after, or None
    when unchanged; the defender's; the counters written after; probability) per successor
    (WHOLE and the records after when the step read everything). None when a side the step did
    not read whole changed (the transition is then kept whole)."""
    if EVERYTHING in aspects:
        return [(WHOLE, k2[0], k2[1], p) for k2, p in out.items()]
    full = {side for kind, side in aspects if kind == "full"}
    before = (key[0][:split], key[0][split:])
    changes = []
    for (records, counters), p in out.items():
        s2 = split_of(records)
        after = (records[:s2], records[s2:])
        sides = []
        for i, side in enumerate(("attacker", "defender")):
            if side in full:
                sides.append(after[i])
            elif after[i] != before[i]:
                return None
            else:
                sides.append(None)
        changes.append((sides[0], sides[1], counters, p))
    return changes


def apply_changes(key: tuple, split: int, changes: list) -> dict:
    """The successors of state `key` by the changes of a transition kept for a state like it."""
    records = key[0]
    out: dict = {}
    for attackers, defenders, counters, p in changes:
        if attackers is WHOLE:  # the whole state (a transition kept for this state only)
            k2 = (defenders, counters)
        else:
            k2 = ((records[:split] if attackers is None else attackers)
                  + (records[split:] if defenders is None else defenders), counters)
        out[k2] = out.get(k2, 0) + p
    return out
