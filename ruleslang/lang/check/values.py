"""Checker stages for value definitions: their order of use, their signatures, then their bodies.

Tables and die tables are value definitions too; their rows are checked in `tables`.
"""

from __future__ import annotations

from typing import Any

from ruleslang.base.limits import MAX_CALL_DEPTH
from ruleslang.lang import types as T
from ruleslang.lang.check import tables
from ruleslang.lang.check.state import CheckState
from ruleslang.lang.check.typecheck import Frame
from ruleslang.lang.scope import Symbol
from ruleslang.lang.syntax import ast
from ruleslang.lang.syntax.expressions import Call, ForClause, Lambda, Name
from ruleslang.lang.syntax.statements import Choose, ForStmt, Let
from ruleslang.lang.syntax.declarations import (ConstantDecl, CounterDecl, DieTableDecl, FormulaDecl, ModifiersDecl,
                                                Param, TableDecl)

VALUE_KINDS = ("formula", "modifiers", "constant", "table", "die table")


def _references(state: CheckState, decl) -> list[tuple[str, Any]]:
    """The global value definitions `decl` uses (for ordering and recursion).

    Locals may shadow globals, so names the declaration binds itself are not references;
    nor are names in a tag position (`has_tag(u, x)`, `units(..., tag: x)`).
    """
    local: set[str] = set()
    skip: set[int] = set()
    nodes = list(ast.walk(decl))  # walked twice: the names bound, then the names used
    for node in nodes:
        if isinstance(node, Param):
            local.add(node.name.text)
        elif isinstance(node, (Let, Choose)):
            local.add(node.name.text)
        elif isinstance(node, (ForClause, ForStmt)):
            local.add(node.var.text)
        elif isinstance(node, Lambda):
            local.add(node.param.text)
        elif isinstance(node, Call) and isinstance(node.func, Name):
            if node.func.id == "has_tag" and len(node.args) == 2:
                skip.add(id(node.args[1]))
            for k in node.kwargs:
                if k.name.text == "tag":
                    skip.add(id(k.value))
    out = []
    for node in nodes:
        if isinstance(node, Name) and node.id not in local and id(node) not in skip:
            sym = state.scope.symbols.get(node.id)
            if sym is not None and sym.kind in VALUE_KINDS:
                out.append((node.id, node))
    return out


def order(state: CheckState) -> None:
    """Value definitions, each after what it uses (into `state.order`); a cycle (recursion) is R220;
    a chain of definitions calling each other deeper than `MAX_CALL_DEPTH` is R222 (each call of a
    chain is a nested evaluation, so the limit bounds how deep any evaluation goes)."""
    names = [n for n, s in state.scope.symbols.items() if s.kind in VALUE_KINDS]
    graph = {n: _references(state, state.scope.symbols[n].decl) for n in names}
    ordered: list[str] = []
    visiting: dict[str, int] = {}
    reported: set[frozenset] = set()

    # A depth-first search with its own stack: a chain of thousands of definitions must reach R222,
    # not Python's recursion limit.
    for root in names:
        if visiting.get(root):
            continue
        path: list[str] = [root]
        pending = [iter(graph[root])]
        visiting[root] = 1
        while pending:
            step = next(pending[-1], None)
            if step is None:
                done = path.pop()
                pending.pop()
                visiting[done] = 2
                ordered.append(done)
                continue
            n = step[0]
            if visiting.get(n) == 2:
                continue
            if visiting.get(n) == 1:
                cycle = path[path.index(n):] + [n]
                key = frozenset(cycle)
                if key not in reported:
                    reported.add(key)
                    state.error("R220", "definitions use each other in a cycle (recursion is not allowed): "
                                + " -> ".join(cycle), step[1].span,
                                hint="rules are total: write the repetition with for, sum or a table")
                continue
            visiting[n] = 1
            path.append(n)
            pending.append(iter(graph[n]))
    state.order = ordered
    _call_depths(state, graph)


def _call_depths(state: CheckState, graph: dict[str, list]) -> None:
    """R222 at the call where a chain of definitions grows past MAX_CALL_DEPTH (reported once per chain)."""
    depth: dict[str, int] = {}
    for n in state.order:
        deps = [(depth.get(dep, 0), dep, node) for dep, node in graph[n]]
        deepest = max(deps, key=lambda d: d[0], default=(0, None, None))
        depth[n] = deepest[0] + 1
        if depth[n] == MAX_CALL_DEPTH + 1:
            chain = [n, deepest[1]]
            while len(chain) < 4 and graph[chain[-1]]:
                chain.append(max(graph[chain[-1]], key=lambda d: depth.get(d[0], 0))[0])
            state.error("R222", f"definitions call each other more than {MAX_CALL_DEPTH} deep: "
                        + " -> ".join(chain) + " -> ...", deepest[2].span,
                        hint="compute the value in fewer steps: a table, or let lines in one formula")


def signatures(state: CheckState) -> None:
    """Parameter and declared result types of formulas, modifier lists, constants, counters and tables."""
    for name, sym in state.scope.symbols.items():
        decl = sym.decl
        if isinstance(decl, (FormulaDecl, ModifiersDecl)):
            params = tuple(state.resolve_type(p.type) for p in decl.params) if decl.params is not None else None
            result = state.resolve_type(decl.result) if decl.result is not None else None
            if isinstance(decl, ModifiersDecl) and result is None:
                result = T.INT
            state.formula_types[name] = (params, result, False)
        elif isinstance(decl, ConstantDecl):
            result = state.resolve_type(decl.type) if decl.type is not None else None
            state.formula_types[name] = (None, result, False)
        elif isinstance(decl, CounterDecl):
            params = tuple(state.resolve_type(p.type) for p in decl.params)
            sym.type = state.resolve_type(decl.type)
            state.formula_types[name] = (params, sym.type, False)
        elif isinstance(decl, TableDecl):
            tables.table_signature(state, sym, decl)
        elif isinstance(decl, DieTableDecl):
            tables.die_table_signature(state, sym, decl)


def bodies(state: CheckState) -> None:
    """Each value definition's body, in `state.order` (so a use knows its definition's inferred type)."""
    for name in state.order:
        sym = state.scope.symbols[name]
        decl = sym.decl
        if isinstance(decl, FormulaDecl):
            _formula(state, sym, decl)
        elif isinstance(decl, ModifiersDecl):
            _modifiers(state, sym, decl)
        elif isinstance(decl, ConstantDecl):
            _constant(state, name, decl)
        elif isinstance(decl, TableDecl):
            tables.table(state, sym, decl)
        elif isinstance(decl, DieTableDecl):
            tables.die_table(state, sym, decl)


def _constant(state: CheckState, name: str, decl: ConstantDecl) -> None:
    _, declared, _ = state.formula_types[name]
    frame = Frame(id(decl), state.info)
    state.info.frames[id(decl)] = frame.size
    state.tc.frame = frame
    got = state.tc.expect(decl.value, declared) if declared is not None else state.tc.check(decl.value)
    state.tc.frame = None
    state.formula_types[name] = (None, declared or got, state.info.is_random(decl.value))


def _formula(state: CheckState, sym: Symbol, decl: FormulaDecl) -> None:
    params, declared, _ = state.formula_types[sym.name]
    frame = state.params_frame(decl, decl.params)
    state.tc.frame = frame
    state.lets(frame, decl.lets)
    got = state.tc.expect(decl.body, declared) if declared is not None else state.tc.check(decl.body)
    state.tc.frame = None
    random = any(state.info.is_random(x) for x in (decl.body, *[l.value for l in decl.lets]))
    state.formula_types[sym.name] = (params, declared or got, random)


def _modifiers(state: CheckState, sym: Symbol, decl: ModifiersDecl) -> None:
    params, result, _ = state.formula_types[sym.name]
    if not T.is_numeric(result):
        state.error("T301", f"a modifier list adds numbers; its type cannot be {result}", decl.result.span)
    frame = state.params_frame(decl, decl.params)
    state.tc.frame = frame
    random = False
    for item in decl.items:
        if isinstance(item, Let):
            state.lets(frame, [item])
            random = random or state.info.is_random(item.value)
            continue
        t = T.strip_optional(state.tc.check(item.value))
        if not T.is_numeric(t):
            state.error("T301", f"a modifier term must be a number, found {t}", item.value.span)
        elif t == T.NUMBER and result == T.INT:
            state.error("T301", "this term can be a fraction but the list adds whole numbers", item.value.span,
                        hint="round it (floor, ceil, round) or declare the list '-> number'")
        if item.condition is not None:
            state.tc.expect(item.condition, T.BOOL)
        state.tc.check(item.reason)
        random = random or state.info.is_random(item.value) or (
            item.condition is not None and state.info.is_random(item.condition))
    state.tc.frame = None
    state.formula_types[sym.name] = (params, result, random)
