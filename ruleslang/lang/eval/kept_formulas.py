"""Formulas of their arguments alone, answered once per arguments for the program.

A formula that reads nothing of the game but its arguments (kind_reads.py
`reads_arguments_alone`: the program's members, constants it folded, the unit types' constant
attributes and the rows of tables whose every row is a constant) gives the same answer for the
same arguments in every game of its program, on every board. Rules ask some of them over and over:
a formula that walks a table's rows for those of a space, asked by a limit of every territory a
purchase or a placement is checked at, and of every row of the table by a purchase's check.

The answer is kept with the formula's callable (not the context: a watch of the exact chain,
runtime/odds/watch.py, reads any context attribute it does not know as a read of everything),
and given again with the budget's steps that working it out spent charged again: with fewer
steps left it is worked out, and fails where it would. An answer that raised is not kept (the
error is raised again by working it out again). Kept are only formulas whose parameters are
enumeration members, whole numbers, texts or truth values and whose answer is one of those, that
walk a collection (a formula of a comparison alone costs less than the look-up); nothing is kept
while coverage is noted (each call is a reach to note).
"""

from __future__ import annotations

from typing import Callable

from ruleslang.lang.eval.kind_reads import reads_arguments_alone
from ruleslang.lang.syntax import ast
from ruleslang.lang.syntax.declarations import FormulaDecl, NamedType
from ruleslang.lang.syntax.expressions import Call, Comprehension
from ruleslang.lang.values import EnumValue

# the answers kept: plain values, which no caller can change
_PLAIN = frozenset((int, bool, str, EnumValue))
_PLAIN_TYPES = frozenset(("int", "text", "bool", "territory", "seazone"))
# the most answers a formula keeps (arguments of numbers or texts are not bounded by the program)
_MOST = 4096


def keeps(compiled, decl) -> bool:
    """Whether formula `decl`'s answers are kept per arguments (see the module docstring)."""
    if compiled.coverage is not None or not isinstance(decl, FormulaDecl) or not decl.params:
        return False
    enums = compiled.scope.enums
    if not all(isinstance(p.type, NamedType) and (p.type.name in enums or p.type.name in _PLAIN_TYPES)
               for p in decl.params):
        return False
    return _walks(compiled, decl, set()) and reads_arguments_alone(compiled, decl)


def _walks(compiled, decl, seen: set) -> bool:
    """Whether `decl`, or a formula it calls, walks a collection (a comprehension)."""
    if id(decl) in seen:
        return False
    seen.add(id(decl))
    for part in [let.value for let in decl.lets] + [decl.body]:
        for node in ast.walk(part):
            if isinstance(node, Comprehension):
                return True
            if isinstance(node, Call):
                call = compiled.info.calls.get(id(node))
                callee = call.symbol.decl if call is not None and call.symbol is not None else None
                if call is not None and call.kind == "formula" and isinstance(callee, FormulaDecl) \
                        and _walks(compiled, callee, seen):
                    return True
    return False


def answer_kept(answers: dict, key, ctx, fn: Callable, args: tuple):
    """`fn(ctx, *args)` from `answers` under `key` when kept there and the budget has the steps
    working it out spent, which are charged again; else worked out (with fewer steps left it
    fails where it would) and kept with the steps it spent. An answer that raised is not kept."""
    found = answers.get(key)
    host = ctx.host
    if found is not None and host.steps >= found[1]:
        host.steps -= found[1]
        return found[0]
    before = host.steps
    value = fn(ctx, *args)
    answers[key] = (value, before - host.steps)
    return value


def kept(fn: Callable) -> Callable:
    """`fn(ctx, *args)` answered once per arguments, the steps it spent charged again on every
    call (see the module docstring). A formula that answers anything but a plain value (a list)
    is worked out on every call from then on."""
    answers: dict[tuple, tuple] = {}
    plain = [True]

    def kept_fn(ctx, *args):
        if not plain[0] or len(answers) >= _MOST:
            return fn(ctx, *args)
        value = answer_kept(answers, args, ctx, fn, args)
        if type(value) not in _PLAIN:
            plain[0] = False
            answers.clear()
        return value
    kept_fn.__wrapped__ = fn
    kept_fn.__dict__.update(fn.__dict__)  # (`generated_source`, for tests and tools/show_code.py)
    kept_fn.kept_answers = answers
    return kept_fn
