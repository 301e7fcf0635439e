"""The host: what an evaluation may not own itself. The seed and the dice, the record of every
roll, the step budget, and the event log.

Every die roll of a sampled evaluation goes through `Host.roll`, which records it with the rule
text that asked for it and hands it to `on_roll` when one is set (a game logs every die there,
in order with its other events). A roll keeps the span of that text; "file:line:col" is written
only when something reads it. The record keeps the last `MAX_KEPT_ROLLS` dice, so a long sampled
run does not grow without bound, and keeps each as a plain (sides, value, span) triple: the `Roll`
objects `rolls` hands out are made when they are read.

The die is drawn as `random.Random.randint(1, sides)` draws it (the same values from the same
state), without its layers of Python calls (`_randint_by_bits`); a generator of another kind (a test's
loaded dice) is asked for `randint` itself.
"""

from __future__ import annotations

import random
from collections import deque
from collections.abc import Sequence
from typing import Callable

from ruleslang.base.errors import EvalError
from ruleslang.base.limits import DEFAULT_STEP_BUDGET, MAX_KEPT_ROLLS
from ruleslang.base.source import Span


class Roll:
    """One die rolled: its sides, its value, and the rule text that rolled it (`span`).

    A plain class with slots, not a frozen dataclass: one is made for every die, and a frozen
    dataclass's constructor cost as much as drawing the die."""

    __slots__ = ("sides", "value", "span")

    def __init__(self, sides: int, value: int, span: Span | None):
        self.sides = sides
        self.value = value
        self.span = span  # the rule text that rolled

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Roll) and (self.sides, self.value, self.span) == (other.sides, other.value, other.span)

    def __hash__(self) -> int:
        return hash((self.sides, self.value, self.span))

    def __repr__(self) -> str:
        return f"Roll(sides={self.sides!r}, value={self.value!r}, span={self.span!r})"

    @property
    def where(self) -> str:
        """"file:line:col" of the rule that rolled ("-" when none is known)."""
        span = self.span
        return f"{span.source.display_name}:{span.line}:{span.column}" if span is not None else "-"


def _randint_by_bits(rng: random.Random, sides: int) -> int:
    """`rng.randint(1, sides)` for a `random.Random`, drawn the way CPython's randint draws it
    (`randrange` -> `_randbelow_with_getrandbits`: k = sides.bit_length() bits until one is below
    `sides`), in one Python call instead of four."""
    k = sides.bit_length()
    getrandbits = rng.getrandbits
    r = getrandbits(k)
    while r >= sides:
        r = getrandbits(k)
    return r + 1


def _draws_as_randint() -> bool:
    """Whether `_randint_by_bits` gives what this Python's `randint` gives (checked once, on a few
    hundred draws of several die sizes: a Python that draws otherwise keeps `randint`, so seeded
    games stay the same games)."""
    a, b = random.Random(20261126), random.Random(20261126)
    return all(_randint_by_bits(a, sides) == b.randint(1, sides)
               for sides in (1, 2, 3, 5, 6, 8, 10, 12, 20, 100, 1 << 40) for _ in range(32))


_Random = random.Random if _draws_as_randint() else None


class RollRecord(Sequence):
    """The dice a host kept, oldest first, as `Roll`s made when they are read (the host keeps
    each die as a (sides, value, span) triple: building an object per die cost as much as
    drawing it)."""

    __slots__ = ("_kept",)

    def __init__(self, kept: deque):
        self._kept = kept

    def __len__(self) -> int:
        return len(self._kept)

    def __getitem__(self, i):
        if isinstance(i, slice):
            return [Roll(*t) for t in list(self._kept)[i]]
        return Roll(*self._kept[i])

    def __iter__(self):
        for t in self._kept:
            yield Roll(*t)

    def __repr__(self) -> str:
        return f"RollRecord({list(self)!r})"


class Host:
    """Owns the random generator (seeded), the dice record, the step budget and the log."""

    def __init__(self, seed: int | None = 0, budget: int = DEFAULT_STEP_BUDGET, rng=None):
        self.seed = seed
        # where the dice come from (a test may load its own; `rng`: one given, no generator seeded)
        self.rng = random.Random(seed) if rng is None else rng
        # the last dice rolled, oldest first, as (sides, value, span): `rolls` shows them as `Roll`s
        self.rolls = ()
        self.budget = budget
        self.steps = budget
        self.events: list[dict] = []
        # told of every die as it is rolled, with the span of the rule text that rolled it
        self.on_roll: Callable[[Roll, Span | None], None] | None = None

    @property
    def rng(self) -> random.Random:
        """Where the dice come from."""
        return self._rng

    @rng.setter
    def rng(self, rng) -> None:
        # (a die is the commonest call of sampled rules: `roll` draws it by the generator's
        # `getrandbits`, bound here once, where that draws as `randint` does; else by `randint`)
        self._rng = rng
        self._bits = rng.getrandbits if type(rng) is _Random else None

    @property
    def rolls(self) -> RollRecord:
        """The last `MAX_KEPT_ROLLS` dice rolled, oldest first."""
        return RollRecord(self._kept)

    @rolls.setter
    def rolls(self, rolls) -> None:
        # a caller starting a new record (`host.rolls = []`): kept bounded as before
        self._kept = deque(((r.sides, r.value, r.span) for r in rolls), maxlen=MAX_KEPT_ROLLS)
        self._keep = self._kept.append  # (bound once: `roll` keeps every die)

    def reset_budget(self, budget: int | None = None) -> None:
        """Start a new top-level evaluation with a full budget."""
        if budget is not None:
            self.budget = budget
        self.steps = self.budget

    def spend(self, span: Span | None, n: int = 1) -> None:
        """Spend `n` steps of the budget (E501 at `span` when it runs out)."""
        self.steps -= n
        if self.steps < 0:
            self.out_of_budget(span)

    def out_of_budget(self, span: Span | None):
        """Refuse to go on: the budget is spent (E501 at `span`)."""
        raise EvalError("E501", f"evaluation stopped after {self.budget} steps (its budget)", span,
                        hint="a rule that loops over very large collections or expands too many dice "
                             "outcomes; narrow it, or raise the budget with --budget")

    def roll(self, sides: int, span: Span | None = None) -> int:
        """One die: 1..sides, recorded."""
        bits = self._bits
        if bits is not None and sides > 0:
            # `_randint_by_bits` in line: a die is the commonest call of sampled rules
            k = sides.bit_length()
            r = bits(k)
            while r >= sides:
                r = bits(k)
            value = r + 1
        else:
            value = self._rng.randint(1, sides)
        self._keep((sides, value, span))
        if self.on_roll is not None:
            self.on_roll(Roll(sides, value, span), span)
        return value

    def roll_sum(self, count: int, sides: int, span: Span | None = None) -> int:
        """`count` dice of `sides` sides added up, each recorded."""
        return sum(self.roll(sides, span) for _ in range(count))

    def log(self, kind: str, **data) -> dict:
        """Record an event of evaluations without a game."""
        event = {"kind": kind, **data}
        self.events.append(event)
        return event
