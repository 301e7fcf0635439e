"""Explaining a formula: the value of each `let` line and of each call in its body, then the total.

(A modifier list explains itself term by term; see `program.CompiledProgram._modifiers`.)
"""

from __future__ import annotations

from . import ast
from .program import Explanation
from .unparse import unparse


def _calls_in(node) -> list:
    """The calls in `node` that are not inside another call, in reading order."""
    found = []
    stack = [node]
    while stack:
        current = stack.pop(0)
        if isinstance(current, ast.Call):
            found.append(current)
            continue
        if isinstance(current, (ast.Lambda, ast.Comprehension)):
            continue
        stack[0:0] = [c for c in ast.children(current) if not isinstance(c, ast.Ident)]
    return found


def formula_explainer(compiled, decl: ast.FormulaDecl):
    """`fn(ctx, *args) -> Explanation` showing a formula's lets and sub-calls."""
    info = compiled.info
    ec = compiled.expr_compiler
    size = info.frames.get(id(decl), 1)
    nparams = len(decl.params or ())
    lets = [(let.name.text, ec.expr(let.value), info.slots[id(let.name)]) for let in decl.lets]
    parts = [(unparse(c), ec.expr(c)) for c in _calls_in(decl.body) if id(c) not in info.random]
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
