"""Checker stage for rule tests: each line's names (options, facts, decisions, phases, actions) and types."""

from __future__ import annotations

from ruleslang.base.suggest import did_you_mean
from ruleslang.lang import types as T
from ruleslang.lang.check.state import RUNNABLE_KINDS, CheckState
from ruleslang.lang.check.typecheck import Frame
from ruleslang.lang.syntax.statements import Let
from ruleslang.lang.syntax.declarations import (Expect, ExpectAction, ExpectError, TestAnswer, TestBattle, TestFact,
                                                TestOption, TestRun, TestScenario)


def check(state: CheckState) -> None:
    """Every rule test, each in a frame of its own."""
    for test in state.ruleset.tests:
        frame = Frame(id(test), state.info)
        state.info.frames[id(test)] = frame.size
        state.tc.frame = frame
        for line in test.lines:
            _test_line(state, line, frame)
        state.tc.frame = None


def _symbol_of_kind(state: CheckState, ident, kinds, what: str, hint: str | None = None):
    """The definition `ident` names when it is of one of `kinds`; else R201 (with a
    did-you-mean among the definitions of those kinds, or `hint`) and None."""
    sym = state.scope.symbols.get(ident.text)
    if sym is not None and sym.kind in kinds:
        return sym
    suggestion = did_you_mean(ident.text, [n for n, s in state.scope.symbols.items() if s.kind in kinds], n=3)
    state.error("R201", f"'{ident.text}' is not {what}", ident.span,
                hint=suggestion or hint)
    return None


def _test_line(state: CheckState, line, frame: Frame) -> None:
    tc = state.tc
    if isinstance(line, TestOption):
        sym = _symbol_of_kind(state, line.name, ("option",), "an option")
        if sym is None:
            tc.check(line.value)
        else:
            tc.expect(line.value, sym.type)
    elif isinstance(line, TestAnswer):
        key = line.target.text
        stmt = state.decision_ids.get(key)
        if stmt is None:
            suggestion = did_you_mean(key, list(state.decision_ids), n=3)
            state.error("R201", f"no decision named '{key}'", line.target.span,
                        hint=suggestion or
                        "a decision is named procedure.variable, after 'let variable = choose ...'")
            tc.check(line.value)
        else:
            want = state.info.types.get(id(stmt.options))
            elem = T.element_type(T.strip_optional(want)) if want is not None else None
            expected = elem if stmt.mode == "one" else T.SetType(elem or T.ANY)
            tc.expect(line.value, expected or T.ANY)
    elif isinstance(line, Let):
        t = tc.check(line.value)
        state.declare_local(frame, line.name, t)
    elif isinstance(line, TestRun):
        _symbol_of_kind(state, line.phase, RUNNABLE_KINDS, "a phase or step")
        if line.player is not None:
            tc.expect(line.player, T.PLAYER)
    elif isinstance(line, TestFact):
        sym = _symbol_of_kind(state, line.name, ("fact",), "a fact", "declare it: fact NAME: TYPE")
        if sym is None:
            tc.check(line.value)
        else:
            tc.expect(line.value, sym.type)
    elif isinstance(line, TestBattle):
        tc.expect(line.space, T.SPACE)
        tc.expect(line.attacker, T.PLAYER)
        if line.sea_zone is not None:
            tc.expect(line.sea_zone, T.SPACE)
    elif isinstance(line, Expect):
        tc.expect(line.expr, T.BOOL)
    elif isinstance(line, ExpectError):
        if isinstance(line.expr, TestRun):
            _test_line(state, line.expr, frame)
        else:
            tc.check(line.expr)
    elif isinstance(line, ExpectAction):
        _expect_action(state, line)
    elif isinstance(line, TestScenario) and line.changes is not None:
        pass  # scenario changes are data, validated against the scenario schema when the test runs


def _expect_action(state: CheckState, line: ExpectAction) -> None:
    """`expect allowed/refused ACTION(...)`: an action of the host, given its values."""
    tc = state.tc
    actions = state.capabilities.actions
    action = actions.get(line.action.text)
    if action is None:
        if not state.capabilities.hosted:
            state.unhosted("an action of a host runtime", f"'{line.action.text}'", line.action.span)
        else:
            state.error("R201", f"'{line.action.text}' is not an action", line.action.span,
                        hint="actions: " + ", ".join(actions))
        for a in line.args:
            tc.check(a)
        return
    if len(line.args) != len(action):
        state.error("T302", f"action {line.action.text} takes {len(action)} values "
                            f"({', '.join(n for n, _ in action)})", line.span)
    for a, (_, t) in zip(line.args, action):
        tc.expect(a, t)
