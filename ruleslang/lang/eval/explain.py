"""Explanations: what a modifier list or formula added up to, and how.

A modifier list explains itself term by term (see `program.CompiledProgram._modifiers`); a formula
shows the value of each `let` line and of each call in its body, then the total.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ruleslang.lang.syntax import ast
from ruleslang.lang.syntax.expressions import Call, Comprehension, Lambda, Name
from ruleslang.lang.syntax.declarations import FormulaDecl
from ruleslang.lang.syntax.unparse import unparse
from ruleslang.lang.values import format_value


MAX_PARTS = 12  # the most calls and values a formula's explanation shows


@dataclass
class Term:
    """One term of a modifier list: its sign, its reason, whether it applied, and its value."""

    sign: str
    reason: str
    applied: bool
    value: Any

    def signed(self):
        """The term's value with its sign."""
        return -self.value if self.sign == "-" else self.value


@dataclass
class Explanation:
    """What a modifier list (or formula) added up to, term by term."""

    name: str
    terms: list[Term]
    total: Any
    parts: list[tuple[str, Any]] | None = None  # for formulas: (sub-expression, value)

    def one_line(self) -> str:
        """`-3 automatic; +1 three-ship group; total -2` (terms that applied only)."""
        if self.parts is not None:
            shown = "; ".join(f"{text} = {format_value(v)}" for text, v in self.parts)
            return f"{shown}; total {format_value(self.total)}" if shown else f"total {format_value(self.total)}"
        items = [f"{_signed_text(t.signed())} {t.reason}" for t in self.terms if t.applied]
        items.append(f"total {format_value(self.total)}")
        return "; ".join(items)


def _signed_text(v) -> str:
    text = format_value(v)
    return text if text.startswith("-") else "+" + text


def _parts_in(node, info) -> list:
    """The calls and global values inside `node` (not the node itself), in reading order, once each.

    Calls inside `x => ...` conditions and comprehensions are left out: they depend on the
    variable being bound, which has no single value to show.
    """
    if isinstance(node, (Lambda, Comprehension)):
        return []  # a body that is itself a comprehension: every call in it reads its variable
    found, seen = [], set()
    stack = list(c for c in ast.children(node) if not isinstance(c, ast.Ident))
    while stack and len(found) < MAX_PARTS:
        current = stack.pop(0)
        if isinstance(current, (Lambda, Comprehension)):
            continue
        shown = isinstance(current, Call) or (
            isinstance(current, Name) and getattr(info.names.get(id(current)), "kind", None) == "global")
        if shown and id(current) not in info.random:
            text = unparse(current)
            if text not in seen:
                seen.add(text)
                found.append(current)
        stack[0:0] = [c for c in ast.children(current) if not isinstance(c, ast.Ident)]
    return found


def formula_explainer(compiled, decl: FormulaDecl):
    """`fn(ctx, *args) -> Explanation` showing a formula's lets and sub-calls."""
    info = compiled.info
    ec = compiled.expr_compiler
    size = info.frames.get(id(decl), 1)
    nparams = len(decl.params or ())
    lets = [(let.name.text, ec.expr(let.value), info.slots[id(let.name)]) for let in decl.lets]
    parts = [(unparse(c), ec.expr(c)) for c in _parts_in(decl.body, info)]
    body = ec.expr(decl.body)

    def explain(ctx, *args):
        env = [ctx, *args] + [None] * (size - 1 - nparams)
        shown = []
        for name, f, slot in lets:
            env[slot] = f(env)
            shown.append((name, env[slot]))
        for text, f in parts:
            shown.append((text, f(env)))
        return Explanation(decl.name.text, [], body(env), shown)
    return explain
