"""The host: what an evaluation may not own itself. The seed and the dice, the record of every
roll, the step budget, and the event log.

Every die roll of a sampled evaluation goes through `Host.roll`, which records it with the rule
text that asked for it and hands it to `on_roll` when one is set (a game logs every die there,
in order with its other events). A roll keeps the span of that text; "file:line:col" is written
only when something reads it. The record keeps the last `MAX_KEPT_ROLLS` dice, so a long sampled
run does not grow without bound.
"""

from __future__ import annotations

import random
from collections import deque
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


class Host:
    """Owns the random generator (seeded), the dice record, the step budget and the log."""

    def __init__(self, seed: int | None = 0, budget: int = DEFAULT_STEP_BUDGET):
        self.seed = seed
        self.rng = random.Random(seed)  # where the dice come from (a test may load its own)
        self.rolls: deque[Roll] = deque(maxlen=MAX_KEPT_ROLLS)  # the last dice rolled, oldest first
        self.budget = budget
        self.steps = budget
        self.events: list[dict] = []
        # told of every die as it is rolled, with the span of the rule text that rolled it
        self.on_roll: Callable[[Roll, Span | None], None] | None = None

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
        value = self.rng.randint(1, sides)
        roll = Roll(sides, value, span)
        self.rolls.append(roll)
        if self.on_roll is not None:
            self.on_roll(roll, span)
        return value

    def roll_sum(self, count: int, sides: int, span: Span | None = None) -> int:
        """`count` dice of `sides` sides added up, each recorded."""
        return sum(self.roll(sides, span) for _ in range(count))

    def log(self, kind: str, **data) -> dict:
        """Record an event of evaluations without a game."""
        event = {"kind": kind, **data}
        self.events.append(event)
        return event
