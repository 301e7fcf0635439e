"""What a branching run (`branching.py`) holds in its frames and hands to its world: the world's
protocol, a `let` not evaluated yet (`Lazy`), a rolled value not looked at yet (`Deferred`), a
`hit` handed to the world (`DeferredHit`), and the keys values are kept under (`content`)."""

from __future__ import annotations

from typing import Any, Protocol

from ruleslang.base.errors import EvalError
from ruleslang.lang.eval.operations import items_of
from ruleslang.lang.values import UnitValue


class World(Protocol):
    """What a branching run saves at a roll and restores before each outcome's continuation: the
    state of the battle and the counters (the effects of the statements it follows). A world may
    also have `remember(key, compute)`: `compute()`, the distribution of a rolled expression, or
    the one kept under `key` (the expression and the values of the locals it reads) when the world
    knows that it read nothing else of the game."""

    def snapshot(self) -> Any:
        """The current state of everything the effects change."""

    def restore(self, saved: Any) -> None:
        """Put back a state `snapshot` gave."""

    # A world that defers effects also has: `deferring` (true while a run's effects are deferred),
    # `deferred()` (how many it holds) and `defer(hit)` (take a `DeferredHit`). A world may also
    # have `hold(stmt, unit_ids)`: it saves and restores those units (their hits, whether they are
    # on the board), so `remove` and `set`/`change` of `hits` of them are followed; it raises
    # where it does not.


class Lazy:
    """A `let` not evaluated yet (a run whose world defers its effects): its expression, the frame
    as it was at the `let`, the slots it reads, and how many effects had been deferred before it."""

    __slots__ = ("node", "f", "env", "reads", "epoch")

    def __init__(self, node, f, env: list, reads: tuple, epoch: int):
        self.node, self.f, self.env, self.reads, self.epoch = node, f, env, reads, epoch


class DeferredHit:
    """A `hit` a run handed to its world instead of making it: the statement, the number of hits,
    whether its casualties leave at once, the frame its units and chooser are read from (`reads`:
    the slots they read), and how many effects were deferred before it. `desc`: the world's key."""

    __slots__ = ("stmt", "count", "now", "env", "units", "chooser", "reads", "epoch", "desc")

    def __init__(self, stmt, count: int, now: bool, env: list, units, chooser, reads: tuple, epoch: int):
        self.stmt, self.count, self.now, self.env = stmt, count, now, env
        self.units, self.chooser, self.reads, self.epoch = units, chooser, reads, epoch
        self.desc = None


class Deferred:
    """A rolled value not looked at yet: its outcomes, (value, probability) pairs."""

    __slots__ = ("outcomes",)

    def __init__(self, outcomes: list):
        self.outcomes = outcomes


def cannot_follow(stmt, why: str) -> EvalError:
    """E546: a statement a branching run cannot follow, named and located."""
    text = stmt.span.text.splitlines()[0] if stmt.span is not None and stmt.span.text else type(stmt).__name__
    return EvalError("E546", f"the exact battle chain cannot follow '{text.strip()}': {why}", stmt.span,
                     hint="estimate by sampling the real battle instead (ruleslang odds --sample N)")


def content(value):
    """A value as a key: a unit by everything it holds (its id and hits too), a list by its items, a
    `Lazy` by its expression and frame."""
    # (the kinds a step's rolled expressions read most, a list of units and a plain value, tested
    # first by their exact types; lists made and turned into tuples: cheaper than generators')
    t = type(value)
    if t is list or t is tuple:
        return tuple([_unit_content(v) if isinstance(v, UnitValue) else content(v) for v in value])
    if t is int or t is str or t is bool:
        return value
    if isinstance(value, UnitValue):
        return _unit_content(value)
    if isinstance(value, (tuple, list)):
        return tuple([content(v) for v in value])
    if t is Lazy:
        return ("lazy", id(value.node), value.epoch, tuple([content(value.env[s]) for s in value.reads]))
    return value


_slot_hits = UnitValue.hits.__get__  # a unit's hits as held (a watched unit's property notes a read)


def _unit_content(value: UnitValue) -> tuple:
    """A unit as a key (`content`): everything it holds."""
    return ("unit", value.id, value.type, value.owner, value.space, _slot_hits(value), value.moved, value.flags)


def any_deferred(env: list, slots: tuple) -> bool:
    """Whether a slot of `slots` holds a rolled value not looked at yet (`Deferred`)."""
    for s in slots:
        if type(env[s]) is Deferred:
            return True
    return False


def unit_ids(value) -> list[int]:
    """The ids of the unit or units `value` holds."""
    if isinstance(value, UnitValue):
        return [value.id]
    return [u.id for u in items_of(value)]
