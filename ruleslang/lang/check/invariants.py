"""Checker stage for invariants: each `check "title"` declaration is a condition, or a block of `require` lines."""

from __future__ import annotations

from ruleslang.lang import types as T
from ruleslang.lang.check.state import CheckState
from ruleslang.lang.check.statements import owner_body
from ruleslang.lang.check.typecheck import Frame


def check(state: CheckState) -> None:
    """Every invariant of the ruleset: a condition is a bool; a block is checked like a phase's body."""
    for cd in state.ruleset.checks.values():
        decl = cd.decl
        if decl.expr is not None:
            frame = Frame(id(decl), state.info)
            state.info.frames[id(decl)] = frame.size
            state.tc.frame = frame
            state.tc.expect(decl.expr, T.BOOL)
            state.tc.frame = None
        else:
            owner_body(state, f"check {decl.title}", decl, decl.body, [])
