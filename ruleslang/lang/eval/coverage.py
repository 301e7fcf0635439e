"""What rule tests reach: the definitions called and the table rows read while they run.

A `Coverage` is handed to a `CompiledProgram` made for the purpose (`ruleslang test --coverage`);
the program then wraps each definition's callable as it compiles it, and reads its tables through
`CoveredTable`. A program made without one runs exactly as before, with no extra work.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable


@dataclass
class Coverage:
    """The names of the definitions reached (formulas, modifier lists, hooks, phases, steps) and the
    rows of tables read, as (table name, row index)."""

    reached: set[str] = field(default_factory=set)
    rows: set[tuple[str, int]] = field(default_factory=set)

    def wrap(self, name: str, fn: Callable) -> Callable:
        """`fn`, recording `name` each time it is called."""
        reached = self.reached

        def covered(*args):
            reached.add(name)
            return fn(*args)
        return covered
