"""Checker stages for the turn: phases, steps, sequences, hooks and constraints; phases that run each other.

A phase or step has a body of statements, or names a runtime procedure of the host with its settings.
"""

from __future__ import annotations

from typing import Any

from ruleslang.base.suggest import did_you_mean
from ruleslang.lang import types as T
from ruleslang.lang.check import constraints
from ruleslang.lang.check.state import RUNNABLE_KINDS, CheckState
from ruleslang.lang.check.statements import block_in, owner_body
from ruleslang.lang.check.typecheck import Frame
from ruleslang.lang.syntax import ast
from ruleslang.lang.syntax.expressions import Lambda
from ruleslang.lang.syntax.statements import RunEffect
from ruleslang.lang.syntax.declarations import (ConstraintDecl, CustomProcedure, HookDecl, PhaseDecl,
                                                RuntimeProcedure, SequenceDecl, StepDecl)


def check(state: CheckState) -> None:
    """Phases, steps, sequences, hooks and constraints, in the order they are declared."""
    symbols = state.scope.symbols
    for name, sym in symbols.items():
        decl = sym.decl
        if isinstance(decl, (PhaseDecl, StepDecl)):
            _phase_or_step(state, name, decl)
        elif isinstance(decl, SequenceDecl):
            for item in decl.items:
                target = symbols.get(item.text)
                if target is None or target.kind not in RUNNABLE_KINDS:
                    suggestion = did_you_mean(item.text, [n for n, s in symbols.items()
                                                          if s.kind in RUNNABLE_KINDS], n=3)
                    state.error("R201", f"sequence {name}: '{item.text}' is not a phase or step", item.span,
                                hint=suggestion)
        elif isinstance(decl, HookDecl):
            _hook(state, name, decl)
        elif isinstance(decl, ConstraintDecl):
            constraints.constraint(state, name, decl)


def _phase_or_step(state: CheckState, name: str, decl) -> None:
    proc = decl.procedure
    if isinstance(proc, RuntimeProcedure):
        _runtime_settings(state, decl, proc)
        return
    owner_body(state, name, decl, proc.body, [])


def _runtime_settings(state: CheckState, decl, proc: RuntimeProcedure) -> None:
    """A `runtime NAME with {...}` phase or step: NAME is a procedure of the host, given the settings it needs."""
    caps = state.capabilities
    if not caps.hosted:
        state.unhosted(f"a {decl.kind} with a body of statements", f"'runtime {proc.name.text}'", proc.name.span)
        return
    known = caps.procedures.get(proc.name.text)
    if known is None:
        suggestion = did_you_mean(proc.name.text, list(caps.procedures), n=3)
        state.error("R201", f"'{proc.name.text}' is not a runtime procedure", proc.name.span,
                    hint=suggestion or
                    "runtime procedures: " + ", ".join(caps.procedures))
        return
    given = {i.text for i, _ in proc.config.fields} if proc.config is not None else set()
    missing = [f for f in caps.required.get(proc.name.text, ()) if f not in given]
    if missing:
        state.error("T325", f"runtime procedure {proc.name.text} needs the setting(s) {', '.join(missing)}",
                    proc.name.span, hint="for example: " + caps.examples.get(proc.name.text, ""))
    if proc.config is not None:
        settings = known[1]
        frame = Frame(id(proc), state.info)
        state.tc.frame = frame
        for ident, value in proc.config.fields:
            want = settings.get(ident.text)
            if want is None:
                state.error("T303", f"runtime procedure {proc.name.text} has no setting '{ident.text}'",
                            ident.span, hint="settings: " + (", ".join(settings) or "none"))
                if not isinstance(value, Lambda):
                    state.tc.check(value)
            elif isinstance(want, T.FnType):
                state.tc.check_function_arg(value, want.params, want.result)
            else:
                state.tc.expect(value, want)
        state.tc.frame = None


def _hook(state: CheckState, name: str, decl: HookDecl) -> None:
    target = state.scope.symbols.get(decl.target.phase.text)
    if target is None or target.kind not in RUNNABLE_KINDS:
        suggestion = did_you_mean(decl.target.phase.text, [n for n, s in state.scope.symbols.items()
                                                           if s.kind in RUNNABLE_KINDS], n=3)
        state.error("R201", f"hook {name}: '{decl.target.phase.text}' is not a phase or step",
                    decl.target.phase.span, hint=suggestion)
    if decl.target.step is not None:
        step = state.scope.symbols.get(decl.target.step.text)
        if step is None or step.kind != "step":
            state.error("R201", f"hook {name}: '{decl.target.step.text}' is not a step",
                        decl.target.step.span)
    frame = Frame(id(decl), state.info)
    state.info.frames[id(decl)] = frame.size
    state.tc.frame = frame
    if decl.players is not None:
        t = state.tc.check(decl.players, T.PLAYER)
        if not (T.assignable(t, T.PLAYER) or T.assignable(t, T.SetType(T.PLAYER))):
            state.error("T301", f"'for' names a player or a set of players, found {t}", decl.players.span)
    if decl.condition is not None:
        state.tc.expect(decl.condition, T.BOOL)
    state.current_owner = name
    block_in(state, decl.body, frame)
    state.current_owner = None
    state.tc.frame = None


def run_cycles(state: CheckState) -> None:
    """Phases that run each other (directly or through hooks) would never end: R221."""
    symbols = state.scope.symbols
    graph: dict[str, list[tuple[str, Any]]] = {}
    for name, sym in symbols.items():
        decl = sym.decl
        body = None
        if isinstance(decl, (PhaseDecl, StepDecl)) and isinstance(decl.procedure, CustomProcedure):
            body = decl.procedure.body
        elif isinstance(decl, HookDecl):
            body = decl.body
            graph.setdefault(decl.target.phase.text, []).append((name, decl.name))
        if body is not None:
            for node in ast.walk(body):
                if isinstance(node, RunEffect):
                    graph.setdefault(name, []).append((node.name.text, node))
    visiting: dict[str, int] = {}

    def visit(n, path):
        if visiting.get(n) == 2:
            return
        if visiting.get(n) == 1:
            cycle = path[path.index(n):] + [n]
            site = next((s for d, s in graph.get(path[-1], []) if d == n), None)
            state.error("R221", "phases run each other in a cycle: " + " -> ".join(cycle),
                        site.span if site is not None else None)
            return
        visiting[n] = 1
        path.append(n)
        for dep, _ in graph.get(n, []):
            visit(dep, path)
        path.pop()
        visiting[n] = 2

    for n in list(graph):
        visit(n, [])
