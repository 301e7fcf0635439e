"""Checking statement blocks: the bodies of phases, steps, hooks, constraints and block-form `check` declarations.

Used by the stages that own bodies; a `choose` records its decision, named after the body's owner.
"""

from __future__ import annotations

from ruleslang.lang import types as T
from ruleslang.lang.builtins.board import SETTABLE_PROPERTIES
from ruleslang.lang.compose.previous import is_hidden_name
from ruleslang.lang.check.state import RUNNABLE_KINDS, CheckState
from ruleslang.lang.check.typecheck import Frame
from ruleslang.lang.syntax.expressions import Call, Name
from ruleslang.lang.syntax.statements import (AddEffect, Block, ChangeEffect, Choose, ForStmt, HitEffect, IfStmt, Let,
                                              LogEffect, MoveEffect, RemoveEffect, Require, RetreatEffect, RunEffect,
                                              SetEffect, SubmergeEffect, WinEffect)


def owner_body(state: CheckState, name: str, owner, block: Block, params) -> None:
    """Check the body `block` of `owner` (named `name`) in a new frame holding `params` (ident, type)."""
    frame = Frame(id(owner), state.info)
    state.info.frames[id(owner)] = frame.size
    state.tc.frame = frame
    for ident, typ in params:
        state.declare_local(frame, ident, typ)
    state.current_owner = name
    block_in(state, block, frame)
    state.current_owner = None
    state.tc.frame = None


def block_in(state: CheckState, block: Block, frame: Frame) -> None:
    """Check `block` in a nested scope of `frame`."""
    frame.push()
    for stmt in block.stmts:
        _stmt(state, stmt, frame)
    frame.pop()


def _stmt(state: CheckState, stmt, frame: Frame) -> None:
    tc = state.tc
    if isinstance(stmt, Let):
        t = tc.check(stmt.value)
        state.declare_local(frame, stmt.name, t)
    elif isinstance(stmt, Choose):
        _choose(state, stmt, frame)
    elif isinstance(stmt, Require):
        tc.expect(stmt.cond, T.BOOL)
        if stmt.message is not None:
            tc.expect(stmt.message, T.TEXT)
    elif isinstance(stmt, IfStmt):
        for cond, block in stmt.branches:
            tc.expect(cond, T.BOOL)
            block_in(state, block, frame)
        if stmt.else_block is not None:
            block_in(state, stmt.else_block, frame)
    elif isinstance(stmt, ForStmt):
        it = T.strip_optional(tc.check(stmt.iterable))
        elem = T.element_type(it)
        if elem is None:
            state.error("T301", f"'for' needs a set or a list to go through, found {it}", stmt.iterable.span)
            elem = T.ANY
        frame.push()
        state.declare_local(frame, stmt.var, elem)
        if stmt.condition is not None:
            tc.expect(stmt.condition, T.BOOL)
        block_in(state, stmt.body, frame)
        frame.pop()
    elif isinstance(stmt, ChangeEffect):
        t = _settable(state, stmt.target, "change")
        amount = tc.check(stmt.amount)
        if t is not None and not T.is_numeric(T.strip_optional(t)):
            state.error("T324", f"'change ... by' adds to a number; {stmt.target.span.text} holds {t}",
                        stmt.target.span, hint="use 'set ... to' instead")
        elif not T.is_numeric(T.strip_optional(amount)):
            state.error("T301", f"expected a number to change by, found {amount}", stmt.amount.span)
    elif isinstance(stmt, SetEffect):
        t = _settable(state, stmt.target, "set")
        if t is not None:
            tc.expect(stmt.value, t)
        else:
            tc.check(stmt.value)
    elif isinstance(stmt, AddEffect):
        tc.expect(stmt.count, T.INT)
        tc.expect(stmt.unit_type, T.UNITTYPE)
        tc.expect(stmt.space, T.SPACE)
        if stmt.owner is not None:
            tc.expect(stmt.owner, T.PLAYER)
    elif isinstance(stmt, RemoveEffect):
        _units_arg(state, stmt.units, "remove")
    elif isinstance(stmt, MoveEffect):
        _units_arg(state, stmt.units, "move")
        tc.expect(stmt.to, T.SPACE)
    elif isinstance(stmt, LogEffect):
        tc.expect(stmt.message, T.TEXT)
    elif isinstance(stmt, WinEffect):
        t = tc.check(stmt.winner, T.SIDE)
        if not (T.assignable(t, T.SIDE) or T.assignable(t, T.PLAYER)):
            state.error("T301", f"'win' names a side or a player, found {t}", stmt.winner.span)
        if stmt.reason is not None:
            tc.check(stmt.reason)
    elif isinstance(stmt, HitEffect):
        tc.expect(stmt.count, T.INT)
        _units_arg(state, stmt.units, "hit")
        tc.expect(stmt.chooser, T.PLAYER)
    elif isinstance(stmt, SubmergeEffect):
        _units_arg(state, stmt.units, "submerge")
    elif isinstance(stmt, RetreatEffect):
        tc.expect(stmt.to, T.SPACE)
    elif isinstance(stmt, RunEffect):
        target = state.scope.symbols.get(stmt.name.text)
        # a hook or constraint an override replaced and runs (`run previous`: lang/compose/previous.py)
        replaced = (target is not None and target.kind in ("hook", "constraint")
                    and is_hidden_name(stmt.name.text))
        if not replaced and (target is None or target.kind not in RUNNABLE_KINDS):
            state.error("R201", f"'{stmt.name.text}' is not a phase or step to run", stmt.name.span)


def _units_arg(state: CheckState, node, verb: str) -> None:
    t = T.strip_optional(state.tc.check(node))
    if not (t in (T.UNIT, T.ANY) or (T.element_type(t) in (T.UNIT, T.ANY) and T.element_type(t) is not None)):
        state.error("T301", f"'{verb}' takes a unit or a list or set of units, found {t}", node.span)


def _settable(state: CheckState, target, verb: str) -> T.Type | None:
    """The type held by a `change`/`set` target: a counter, treasury(p) or controller(s)."""
    tc = state.tc
    if isinstance(target, Name):
        sym = state.scope.symbols.get(target.id)
        if sym is not None and sym.kind == "counter" and not sym.decl.params:
            return tc.check(target)
    if isinstance(target, Call) and isinstance(target.func, Name):
        name = target.func.id
        sym = state.scope.symbols.get(name)
        if sym is not None and sym.kind == "counter":
            return tc.check(target)
        prop = SETTABLE_PROPERTIES.get(name)
        if prop is not None and sym is None and verb in prop.verbs:
            tc.check(target)
            return prop.type
    if not isinstance(tc.check(target), T.AnyType):  # an unknown name is reported already
        state.error("T324", f"cannot {verb} this: only counters, treasury(p), controller(s), factory_owner(s), "
                            "factory_kind(s), factory_damage(s) and hits(u) can be changed", target.span)
    return None


def _choose(state: CheckState, stmt: Choose, frame: Frame) -> None:
    tc = state.tc
    opts = T.strip_optional(tc.check(stmt.options))
    elem = T.element_type(opts)
    if elem is None:
        state.error("T301", f"choose ... of needs a set or a list of options, found {opts}", stmt.options.span)
        elem = T.ANY
    tc.expect(stmt.player, T.PLAYER)
    if stmt.count is not None:
        tc.expect(stmt.count, T.INT)
    if stmt.prompt is not None:
        tc.check(stmt.prompt)
    result = elem if stmt.mode == "one" else T.SetType(elem)
    state.declare_local(frame, stmt.name, result)
    if state.current_owner is not None:
        key = f"{state.current_owner}.{stmt.name.text}"
        state.decision_ids.setdefault(key, stmt)
