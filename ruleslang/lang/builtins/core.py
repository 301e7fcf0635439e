"""The core built-in functions: numbers, collections, text, names, dice and odds, players and sides.

A type rule receives the type checker and the call's argument nodes, so it can give arguments the
type they are expected to have (a text literal becomes a space when a space is expected) and type
the parameter of a `x => ...` argument. An implementation receives the evaluation context first,
then the argument values. Nothing else of Python is reachable from rule text.

Aggregates over `for` generators (sum, count, any, all, min, max) are compiled as folds by the
compiler; their entries here type them and implement them over ready-made collections.
"""

from __future__ import annotations

import math
from fractions import Fraction

from ruleslang.lang.syntax.expressions import Call, Comprehension, Name
from ruleslang.lang import types as T
from ruleslang.base.errors import EvalError
from ruleslang.base.suggest import did_you_mean
from ruleslang.lang.builtins.spec import PLAYERS, Builtin, elements, need, no_kwargs, registrar, signature
from ruleslang.lang.scope import Resolution
from ruleslang.lang.values import EnumValue, LSet, UnitValue, bounded_sum, display_text, normalize_number, sort_key

BUILTINS: dict[str, Builtin] = {}
builtin = registrar(BUILTINS)


def _numeric_or_collection(tc, call: Call, what: str) -> T.Type:
    """min/max: several numbers, one collection, or a generator."""
    no_kwargs(tc, call)
    if len(call.args) == 0:
        tc.error("T302", f"{what} needs at least one argument", call.span)
        return T.ANY
    if len(call.args) == 1:
        elem = tc.check_collection(call.args[0])
        if elem is None:
            return T.ANY
        if not (T.is_numeric(elem)):
            tc.error("T301", f"{what} expects numbers, found {elem}", call.args[0].span)
        return elem
    result: T.Type = T.INT
    for node in call.args:
        t = tc.check(node)
        if not T.is_numeric(T.strip_optional(t)):
            tc.error("T301", f"{what} expects numbers, found {t}", node.span)
            continue
        result = T.join(result, T.strip_optional(t)) or T.NUMBER
    return result

# ----------------------------------------------------------------------------------- numbers


def _minmax_impl(pick):
    def impl(ctx, *args):
        values = args[0] if len(args) == 1 else args
        items = list(values.items if isinstance(values, LSet) else values)
        if not items:
            raise EvalError("E505", f"{pick.__name__} of an empty collection")
        for v in items:
            need(v, "a number")
        return pick(items)
    return impl


builtin("min", "min(a, b, ...) or min(collection): the smallest number")(
    (lambda tc, call: _numeric_or_collection(tc, call, "min"), _minmax_impl(min)))
builtin("max", "max(a, b, ...) or max(collection): the largest number")(
    (lambda tc, call: _numeric_or_collection(tc, call, "max"), _minmax_impl(max)))


def _check_sum(tc, call):
    no_kwargs(tc, call)
    if len(call.args) != 1:
        tc.error("T302", f"sum takes one collection or generator, found {len(call.args)} arguments", call.span)
        for a in call.args:
            tc.check(a)
        return T.INT
    elem = tc.check_collection(call.args[0])
    if elem is None:
        return T.ANY
    elem = T.strip_optional(elem)
    if not T.is_numeric(elem):
        tc.error("T301", f"sum expects numbers, found {elem}", call.args[0].span)
        return T.INT
    return elem if elem != T.ANY else T.INT


def _sum_impl(ctx, values):
    return bounded_sum(need(v, "a number") for v in (values.items if isinstance(values, LSet) else values))


builtin("sum", "sum(collection) or sum(e for x in s where c): the total")((_check_sum, _sum_impl))


def _check_count(tc, call):
    no_kwargs(tc, call)
    if len(call.args) != 1:
        tc.error("T302", f"count takes one collection or generator, found {len(call.args)} arguments", call.span)
        return T.INT
    elem = tc.check_collection(call.args[0])
    arg = call.args[0]
    if elem == T.BOOL and isinstance(arg, Comprehension) and arg.kind == "gen":
        tc.warn("T330", "count counts every value, true or false; to count where a condition holds, "
                        "put the condition after 'where'", arg.element.span,
                hint="for example: count(i for i in 1..n where d6 <= 2)")
    return T.INT


builtin("count", "count(collection) or count(x for x in s where c): how many")(
    (_check_count, lambda ctx, values: len(values)))


def _check_anyall(name):
    def check(tc, call):
        no_kwargs(tc, call)
        if len(call.args) != 1:
            tc.error("T302", f"{name} takes one collection or generator", call.span)
            return T.BOOL
        elem = tc.check_collection(call.args[0])
        if elem is not None and elem not in (T.BOOL, T.ANY):
            tc.error("T301", f"{name} expects true/false values, found {elem}", call.args[0].span)
        return T.BOOL
    return check


builtin("any", "any(c for x in s): true when some value is true")(
    (_check_anyall("any"), lambda ctx, values: any(values)))
builtin("all", "all(c for x in s): true when every value is true")(
    (_check_anyall("all"), lambda ctx, values: all(values)))


def _num_to_num(tc, call):
    no_kwargs(tc, call)
    if len(call.args) != 1:
        tc.error("T302", f"{tc.callee_name(call)} takes one number", call.span)
        return T.NUMBER
    t = T.strip_optional(tc.check(call.args[0]))
    if not T.is_numeric(t):
        tc.error("T301", f"{tc.callee_name(call)} expects a number, found {t}", call.args[0].span)
    return t if T.is_numeric(t) else T.NUMBER


builtin("abs", "abs(x): the size of x without its sign")(
    (_num_to_num, lambda ctx, x: abs(need(x, "a number"))))
builtin("floor", "floor(x): the whole number at or below x")(
    (signature([T.NUMBER], T.INT), lambda ctx, x: math.floor(need(x, "a number"))))
builtin("ceil", "ceil(x): the whole number at or above x")(
    (signature([T.NUMBER], T.INT), lambda ctx, x: math.ceil(need(x, "a number"))))

# -------------------------------------------------------------------------------- collections


def _elem_type_of_arg(tc, node) -> T.Type:
    t = T.strip_optional(tc.check(node))
    elem = T.element_type(t)
    if elem is None:
        tc.error("T301", f"expected a set or list, found {t}", node.span)
        return T.ANY
    return elem


def _check_setop(name):
    def check(tc, call):
        no_kwargs(tc, call)
        if len(call.args) != 2:
            tc.error("T302", f"{name} takes two collections", call.span)
            return T.SetType(T.ANY)
        a = _elem_type_of_arg(tc, call.args[0])
        b = _elem_type_of_arg(tc, call.args[1])
        joined = T.join(a, b)
        if joined is None:
            tc.error("T301", f"{name} of a set of {a} and a set of {b}", call.span)
            return T.SetType(T.ANY)
        return T.SetType(joined)
    return check


builtin("union", "union(a, b): everything in a or b")(
    (_check_setop("union"), lambda ctx, a, b: LSet(elements(a) + elements(b))))


def _kept(a, b, keep: bool):
    """The values of `a` that are (`keep`) or are not in `b`, as a set: `b`'s values hashed once,
    and a part of a set `a`, in its order, taken without sorting it again."""
    members = b.members() if isinstance(b, LSet) else set(b)
    if isinstance(a, LSet):
        return LSet.of_ordered(tuple([x for x in a.items if (x in members) is keep]))
    return LSet(x for x in a if (x in members) is keep)


builtin("intersection", "intersection(a, b): what is in both")(
    (_check_setop("intersection"), lambda ctx, a, b: _kept(a, b, True)))
builtin("difference", "difference(a, b): what is in a but not in b")(
    (_check_setop("difference"), lambda ctx, a, b: _kept(a, b, False)))


def _check_sorted(tc, call):
    no_kwargs(tc, call)
    if len(call.args) != 1:
        tc.error("T302", "sorted takes one collection", call.span)
        return T.ListType(T.ANY)
    return T.ListType(_elem_type_of_arg(tc, call.args[0]))


builtin("sorted", "sorted(c): the values in order, smallest first")(
    (_check_sorted, lambda ctx, c: c.items if isinstance(c, LSet) else tuple(sorted(c, key=sort_key))))


def _check_to_set(tc, call):
    no_kwargs(tc, call)
    if len(call.args) != 1:
        tc.error("T302", "set_of takes one collection", call.span)
        return T.SetType(T.ANY)
    return T.SetType(_elem_type_of_arg(tc, call.args[0]))


builtin("set_of", "set_of(list): the distinct values of a list, as a set")(
    (_check_to_set, lambda ctx, c: LSet(elements(c))))


def _check_table_ref(tc, call, name, result):
    no_kwargs(tc, call)
    if len(call.args) != 1:
        tc.error("T302", f"{name} takes the name of a table", call.span)
        return T.ANY
    t = tc.check(call.args[0])
    if not isinstance(t, T.TableRefType):
        if not isinstance(t, T.AnyType):
            tc.error("T301", f"{name} expects the name of a table, found {t}", call.args[0].span)
        return T.ANY
    return result(t)


builtin("rows", "rows(table): the table's rows as records (keys and columns), in order")(
    (lambda tc, call: _check_table_ref(tc, call, "rows", lambda t: T.ListType(t.row)),
     lambda ctx, table: table.rows_as_records(ctx)))
builtin("keys", "keys(table): the table's keys, in order")(
    (lambda tc, call: _check_table_ref(tc, call, "keys", lambda t: T.ListType(t.key)),
     lambda ctx, table: table.keys_list()))


def _check_text(tc, call):
    no_kwargs(tc, call)
    if len(call.args) != 1:
        tc.error("T302", "text takes one value", call.span)
    for a in call.args:
        tc.check(a)
    return T.TEXT


def _text_impl(ctx, value):
    return display_text(value)


builtin("text", "text(x): x written as text")((_check_text, _text_impl))

def _check_conversion(kind):
    def check(tc, call):
        no_kwargs(tc, call)
        if len(call.args) != 1:
            tc.error("T302", f"{kind} takes one name", call.span)
            return T.EnumType(kind)
        t = tc.check(call.args[0], T.EnumType(kind))
        if not (T.assignable(t, T.EnumType(kind)) or T.assignable(t, T.TEXT)):
            tc.error("T301", f"{kind}(...) takes a name, found {t}", call.args[0].span)
        return T.EnumType(kind)
    return check


def _conversion_impl(kind):
    def impl(ctx, value):
        if isinstance(value, EnumValue):
            return value
        enum = ctx.enums[kind]
        found = enum.lookup(need(value, "a name"))
        if found is None:
            raise EvalError("E533", f"there is no {kind} named '{value}'",
                            hint=did_you_mean(value, enum.spellings()))
        return found
    return impl


for _kind in ("space", "player", "side", "unittype"):
    builtin(_kind, f"{_kind}(name): the {_kind} with this name (or alias)")(
        (_check_conversion(_kind), _conversion_impl(_kind)))

# ------------------------------------------------------------------------------- dice & odds


def _check_roll(tc, call):
    no_kwargs(tc, call)
    if len(call.args) != 1:
        tc.error("T302", "roll takes the name of a die table", call.span)
        return T.ANY
    t = tc.check(call.args[0])
    if not isinstance(t, T.TableRefType) or not t.die:
        if not isinstance(t, T.AnyType):
            tc.error("T301", f"roll expects the name of a die table, found {t}", call.args[0].span)
        return T.ANY
    tc.mark_random(call)
    return tc.scope.symbols[t.table].rows_type


builtin("roll", "roll(die_table): roll the table's die and read the row")(
    (_check_roll, lambda ctx, table: table.lookup(ctx, (ctx.host.roll_sum(table.dice_count, table.sides),))))


builtin("winner", "winner(): the side that has won the game, or none")(
    (signature([], T.OptionalType(T.SIDE)), lambda ctx: ctx.winner[0] if ctx.winner else None))
builtin("rolls", "rolls(): every die rolled so far in this evaluation (or test), in order (the last 100,000)")(
    (signature([], T.ListType(T.INT)), lambda ctx: tuple(r.value for r in ctx.host.rolls)))


def _check_probability(tc, call):
    no_kwargs(tc, call)
    if len(call.args) != 1:
        tc.error("T302", "probability takes one true/false expression", call.span)
        return T.NUMBER
    tc.expect(call.args[0], T.BOOL)
    return T.NUMBER


def _check_expected(tc, call):
    no_kwargs(tc, call)
    if len(call.args) != 1:
        tc.error("T302", "expected takes one number expression", call.span)
        return T.NUMBER
    t = T.strip_optional(tc.check(call.args[0]))
    if not T.is_numeric(t):
        tc.error("T301", f"expected needs a number expression, found {t}", call.args[0].span)
    return T.NUMBER


def _check_distribution(tc, call):
    no_kwargs(tc, call)
    if len(call.args) != 1:
        tc.error("T302", "distribution takes one expression", call.span)
        return T.DistType(T.ANY)
    return T.DistType(tc.check(call.args[0]))


# probability/expected/distribution are compiled specially (their argument is evaluated exactly);
# these implementations take the argument's distribution.
builtin("probability", "probability(c): the exact chance that c is true")(
    (_check_probability, lambda ctx, dist: normalize_number(dist.probability(lambda v: v is True))))
builtin("expected", "expected(x): the exact average of x")(
    (_check_expected, lambda ctx, dist: normalize_number(sum((Fraction(v) * p for v, p in dist.outcomes), Fraction(0)))))
builtin("distribution", "distribution(x): every outcome of x with its exact probability")(
    (_check_distribution, lambda ctx, dist: dist))


def _check_chance(tc, call):
    no_kwargs(tc, call)
    if len(call.args) != 2:
        tc.error("T302", "chance takes a distribution and a value", call.span)
        return T.NUMBER
    t = tc.check(call.args[0])
    if not isinstance(t, (T.DistType, T.AnyType)):
        tc.error("T301", f"chance expects a distribution, found {t}", call.args[0].span)
        tc.check(call.args[1])
        return T.NUMBER
    tc.expect(call.args[1], t.element if isinstance(t, T.DistType) else T.ANY)
    return T.NUMBER


builtin("chance", "chance(dist, v): the probability of outcome v in a distribution")(
    (_check_chance, lambda ctx, dist, v: normalize_number(dist.probability(lambda x: x == v))))

# ------------------------------------------------------------------------- players and sides


def _check_values(tc, call):
    no_kwargs(tc, call)
    arg = call.args[0] if len(call.args) == 1 else None
    sym = tc.scope.symbols.get(arg.id) if isinstance(arg, Name) else None
    if sym is None or sym.kind != "enum":
        tc.error("T301", "values(...) takes the name of an enumeration", call.span)
        return T.ListType(T.ANY)
    tc.info.names[id(arg)] = _enum_resolution(sym.name)
    return T.ListType(T.EnumType(sym.name))


def _enum_resolution(name):
    return Resolution("const", value=name)


builtin("values", "values(E): every member of enumeration E, in order")(
    (_check_values, lambda ctx, name: tuple(ctx.enums[name].members)))


def _side_of(ctx, p):
    side = ctx.side_of(p.name)
    if side is None:
        raise EvalError("E504", f"player {p.name} belongs to no side")
    return side


def _allied(ctx, a, b):
    if a is None or b is None:
        return False
    if a == b:
        return True
    # `ctx.side_of` of each, read from the program's table without its calls: the rules ask it of
    # every unit in their loops (a side the rules do not declare as a value is allied to no one)
    sides = ctx.compiled.side_of_player
    side = sides.get(a.name)
    return side is not None and side in ctx.side_values and side == sides.get(b.name)


builtin("side_of", "side_of(p): the side player p plays on")(
    (signature([T.PLAYER], T.SIDE), _side_of))
builtin("members", "members(s): the players of side s")(
    (signature([T.SIDE], PLAYERS), lambda ctx, s: ctx.compiled.side_member_set(need(s, "a side").name)))
builtin("allied", "allied(a, b): true when players a and b are on the same side (or are the same player)")(
    (signature([T.PLAYER, T.PLAYER], T.BOOL),
     _allied))
builtin("enemies", "enemies(p): the players on other sides")(
    (signature([T.PLAYER], PLAYERS), lambda ctx, p: LSet.of_enums(ctx.enemies_of(p.name))))
builtin("players", "players(): every player, in turn order")(
    (signature([], T.ListType(T.PLAYER)), lambda ctx: tuple(ctx.enums["player"].members)))
builtin("unit_types", "unit_types(): every unit type")(
    (signature([], T.ListType(T.UNITTYPE)), lambda ctx: tuple(ctx.enums["unittype"].members)))


def _check_has_tag(tc, call):
    no_kwargs(tc, call)
    if len(call.args) != 2:
        tc.error("T302", "has_tag takes a unit (or unit type) and a tag", call.span)
        return T.BOOL
    t = T.strip_optional(tc.check(call.args[0]))
    if t not in (T.UNIT, T.UNITTYPE) and not isinstance(t, T.AnyType):
        tc.error("T301", f"has_tag expects a unit or unit type, found {t}", call.args[0].span)
    tc.expect(call.args[1], T.TAG)
    return T.BOOL


def _has_tag_impl(ctx, thing, tag):
    type_name = thing.type.name if isinstance(thing, UnitValue) else need(thing, "a unit type").name
    return ctx.unit_has_any_tag(type_name, (need(tag, "a tag").name,))


builtin("has_tag", "has_tag(u, tag): true when unit (or unit type) u carries the tag")((_check_has_tag, _has_tag_impl))
