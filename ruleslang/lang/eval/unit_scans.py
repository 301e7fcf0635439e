"""A loop over `units(...)` whose condition first compares each unit's hits with a number: the
values made of the units that pass that test alone.

`for u in units(owner: current_player()) where hits(u) > 0: set hits(u) to 0` (the repair that
ends every turn) made a value of every unit of the player to read one number of each, and nearly
none is damaged. The board's own record of a unit holds the same hits as its value, so the units
are tested there first (`units_scan`), and the loop goes through the values of those that pass,
testing its whole condition on each as before.

What stays as the loop had it: the budget spends a step per unit of the collection, the steps of
the units passed over spent before the next unit the loop looks at (or after the last), so it
runs out, when it does, before the same unit's statements with the same error; a unit of a type
no ruleset declares fails (E531) as the values of the whole collection do. A context other than a
game's own (a watch that notes what is read of each unit) makes every value, as `units(...)` does.
"""

from __future__ import annotations

import operator

from ruleslang.lang.builtins.board import units_chosen
from ruleslang.lang.builtins.registry import REGISTRY as BUILTINS
from ruleslang.lang.eval.context import EvalContext
from ruleslang.lang.syntax.expressions import Call, Compare, Field

COMPARISONS = {">": operator.gt, ">=": operator.ge, "<": operator.lt, "<=": operator.le, "==": operator.eq,
               "!=": operator.ne}
_FLIPPED = {">": "<", ">=": "<=", "<": ">", "<=": ">=", "==": "==", "!=": "!="}


def units_scan(ctx, test, bound, *args, **filters) -> tuple[list, int]:
    """`units(*args, **filters)` for a loop that looks only at the units whose hits pass
    `test(hits, bound)`: a list of (steps, value), the steps to spend before looking at that value
    (the units passed over since the one before, and this one), and the steps of the units after
    the last."""
    if ctx.__class__ is not EvalContext:
        return [(1, value) for value in BUILTINS["units"].impl(ctx, *args, **filters)], 0
    chosen = units_chosen(ctx, *args, **filters)
    known = ctx.unittype_values
    picked, steps, last = [], [], -1
    for i, unit in enumerate(chosen):
        if unit.type not in known:
            ctx.values_of_units(chosen)  # fails (E531) as the values of all of them fail
        if test(unit.hits, bound):
            picked.append(unit)
            steps.append(i - last)
            last = i
    return list(zip(steps, ctx.values_of_units(picked))), len(chosen) - 1 - last


def hits_test(gen, var_slot: int, term) -> tuple[str, int] | None:
    """For a loop's first test `hits(u) OP n` (or `u.hits OP n`, or `n OP hits(u)`) on its unit `u`
    in frame slot `var_slot`, with `n` a whole number the generator folds: (OP as the unit's hits
    on its left, n); else None."""
    if not isinstance(term, Compare) or term.op not in COMPARISONS:
        return None
    for side, other, op in ((term.left, term.right, term.op), (term.right, term.left, _FLIPPED[term.op])):
        bound = gen.expr(other).const
        if type(bound) is int and _hits_of(gen, side, var_slot):
            return op, bound
    return None


def _hits_of(gen, node, var_slot: int) -> bool:
    """Whether `node` reads the hits of the unit in `var_slot`: `hits(u)` or `u.hits`."""
    if isinstance(node, Field):
        fi = gen.info.fields.get(id(node))
        return fi is not None and fi.kind == "unit" and fi.name == "hits" and gen.local_slot(node.obj) == var_slot
    if isinstance(node, Call) and len(node.args) == 1 and not node.kwargs:
        info = gen.info.calls.get(id(node))
        return (info is not None and info.kind == "builtin" and info.name == "hits"
                and gen.local_slot(node.args[0]) == var_slot)
    return False
