"""Loop filters on a space's own attributes, worked out once per collection of spaces.

`count(t for t in territories() where t.marked and controller(t) in members(s))`: the first
test reads nothing but an attribute of the space, which the program keeps for the whole process
(`CompiledProgram.space_attribute`), and the collection is the map's own, the same tuple on every
call. The rule asks it for every territory on every call (the bots' score what-ifs call such a
formula hundreds of times a game); here the spaces that pass those tests are found once per
collection and the loop goes through them alone, testing the rest of the condition.

What stays as the loop had it: the budget spends a step per element of the whole collection
before the loop starts (`_budgeted`); the rest of the condition is tested in the same order on
the same spaces; and an attribute whose reading fails (E533, or a default that fails) is read
again lazily, space by space, interleaved with the rest of the condition as the plain loop reads
it, so the error comes where and when it came.
"""

from __future__ import annotations

from ruleslang.lang.eval.operations import items_of
from ruleslang.lang.syntax.expressions import BoolOp, Call, Field, Not

# the built-ins whose answer is the map's own collection of spaces (`BoardQueries.spaces`, a
# tuple the board keeps, whose set the context keeps: the same object on every call)
_MAP_SPACES = frozenset(("territories", "spaces", "sea_zones"))
_KEPT_LIMIT = 32  # collections kept a filter (a game's context makes its own sets: one or two a game)


class SpaceFilter:
    """The spaces of a collection whose attributes pass `terms` ((attribute, negated) pairs, each
    a `SpaceAttribute` of the call site, its value taken for its truth, or its negation's), kept
    by the collection (held, so its id is not reused)."""

    __slots__ = ("terms", "kept")

    def __init__(self, terms: tuple):
        self.terms = terms
        self.kept: dict[int, tuple] = {}

    def where(self, value, ctx, host, span):
        """The elements of `value` (a collection of spaces) that pass the terms, in order, with a
        step of the budget spent per element of `value` (as `_budgeted`)."""
        items = value if type(value) is tuple else items_of(value)
        host.steps -= len(items)
        if host.steps < 0:
            host.out_of_budget(span)
        found = self.kept.get(id(items))
        if found is not None and found[0] is items:
            return found[1]
        try:
            chosen = tuple([x for x in items if self.holds(ctx, x)])
        except Exception:
            # read again as the loop reads it: the failing space's error raised in its turn
            return (x for x in items if self.holds(ctx, x))
        if len(self.kept) >= _KEPT_LIMIT:
            self.kept.clear()
        self.kept[id(items)] = (items, chosen)
        return chosen

    def holds(self, ctx, space) -> bool:
        """Whether every term holds for `space`, read in order up to the first that does not."""
        name = space.name
        for values, negated in self.terms:
            value = values[name] if name in values else values.read(ctx, name)
            if (not value) is not negated:
                return False
        return True


def conjuncts(node) -> list:
    """The terms of an `and` chain, left to right (`a and b and c` is `(a and b) and c`)."""
    if isinstance(node, BoolOp) and node.op == "and":
        return conjuncts(node.left) + conjuncts(node.right)
    return [node]


def space_terms(gen, clause) -> tuple[list, list] | None:
    """For a loop `for x in S where A1 and ... and B...` (`clause`) whose collection S is one of
    the map's (`territories()`, `spaces()`, `sea_zones()`) and whose first tests Ai read only an
    attribute of x (or its negation): the attribute tests as (field node, negated) pairs and the
    rest of the condition's terms; None for any other loop."""
    call = clause.iterable
    if clause.condition is None or not isinstance(call, Call) or call.args or call.kwargs:
        return None
    info = gen.info.calls.get(id(call))
    if info is None or info.kind != "builtin" or info.name not in _MAP_SPACES:
        return None
    slot = gen.info.slots[id(clause.var)]
    terms = conjuncts(clause.condition)
    tests = []
    for term in terms:
        negated = isinstance(term, Not)
        field = term.operand if negated else term
        if not isinstance(field, Field) or gen.local_slot(field.obj) != slot:
            break
        fi = gen.info.fields.get(id(field))
        if fi is None or fi.kind != "space":
            break
        tests.append((field, negated))
    if not tests:
        return None
    return tests, terms[len(tests):]
