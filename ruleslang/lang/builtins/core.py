"""The built-in functions of the language: an allow-list, each with a type rule and an implementation.

A type rule receives the type checker and the call's argument nodes, so it can give arguments the
type they are expected to have (a text literal becomes a space when a space is expected) and type
the parameter of a `x => ...` argument. An implementation receives the evaluation context first,
then the argument values. Nothing else of Python is reachable from rule text.

Aggregates over `for` generators (sum, count, any, all, min, max) are compiled as folds by the
compiler; their entries here type them and implement them over ready-made collections.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Callable

from ruleslang.lang.syntax import ast
from ruleslang.lang import types as T
from ruleslang.base.errors import EvalError
from ruleslang.lang.values import Dist, EnumValue, LSet, Record, UnitValue, normalize_number, sort_key


@dataclass(frozen=True)
class Builtin:
    name: str
    check: Callable  # (checker, call) -> Type
    impl: Callable  # (ctx, *args, **kwargs) -> value
    doc: str
    board: bool = False  # needs a board (a map and a position)
    kwargs: tuple[str, ...] = ()


REGISTRY: dict[str, Builtin] = {}


def builtin(name: str, doc: str, *, board: bool = False, kwargs: tuple[str, ...] = ()):
    def wrap(pair):
        check, impl = pair
        REGISTRY[name] = Builtin(name, check, impl, doc, board, kwargs)
        return pair
    return wrap


# ------------------------------------------------------------------------ type-rule helpers


def signature(params, result, *, kw: dict | None = None, min_args: int | None = None):
    """A type rule for fixed parameter types; `kw` maps keyword names to their types."""
    kw = kw or {}
    required = len(params) if min_args is None else min_args

    def check(tc, call: ast.Call) -> T.Type:
        args = call.args
        if not (required <= len(args) <= len(params)):
            want = f"{required}" if required == len(params) else f"{required} to {len(params)}"
            tc.error("T302", f"{tc.callee_name(call)} takes {want} argument(s), found {len(args)}", call.span)
        for node, ptype in zip(args, params):
            tc.expect(node, ptype)
        for extra in args[len(params):]:
            tc.check(extra)
        for k in call.kwargs:
            if k.name.text not in kw:
                allowed = ", ".join(kw) if kw else "none"
                tc.error("T303", f"{tc.callee_name(call)} has no argument named '{k.name.text}'", k.name.span,
                         hint=f"named arguments: {allowed}")
                tc.check(k.value)
            else:
                tc.expect(k.value, kw[k.name.text])
        return result(tc, call) if callable(result) else result

    return check


def _no_kwargs(tc, call: ast.Call) -> None:
    for k in call.kwargs:
        tc.error("T303", f"{tc.callee_name(call)} takes no named arguments", k.name.span)
        tc.check(k.value)


def _numeric_or_collection(tc, call: ast.Call, what: str) -> T.Type:
    """min/max: several numbers, one collection, or a generator."""
    _no_kwargs(tc, call)
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


def _need(value, what: str):
    if value is None:
        raise EvalError("E504", f"{what} is none here")
    return value


def _check_int(value) -> int:
    return normalize_number(value)


# ----------------------------------------------------------------------------------- numbers


def _minmax_impl(pick):
    def impl(ctx, *args):
        values = args[0] if len(args) == 1 else args
        items = list(values.items if isinstance(values, LSet) else values)
        if not items:
            raise EvalError("E505", f"{pick.__name__} of an empty collection")
        for v in items:
            _need(v, "a number")
        return pick(items)
    return impl


builtin("min", "min(a, b, ...) or min(collection): the smallest number")(
    (lambda tc, call: _numeric_or_collection(tc, call, "min"), _minmax_impl(min)))
builtin("max", "max(a, b, ...) or max(collection): the largest number")(
    (lambda tc, call: _numeric_or_collection(tc, call, "max"), _minmax_impl(max)))


def _check_sum(tc, call):
    _no_kwargs(tc, call)
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
    total = 0
    for v in (values.items if isinstance(values, LSet) else values):
        total += _need(v, "a number")
    return normalize_number(total)


builtin("sum", "sum(collection) or sum(e for x in s where c): the total")((_check_sum, _sum_impl))


def _check_count(tc, call):
    _no_kwargs(tc, call)
    if len(call.args) != 1:
        tc.error("T302", f"count takes one collection or generator, found {len(call.args)} arguments", call.span)
        return T.INT
    elem = tc.check_collection(call.args[0])
    arg = call.args[0]
    if elem == T.BOOL and isinstance(arg, ast.Comprehension) and arg.kind == "gen":
        tc.warn("T330", "count counts every value, true or false; to count where a condition holds, "
                        "put the condition after 'where'", arg.element.span,
                hint="for example: count(i for i in 1..n where d6 <= 2)")
    return T.INT


builtin("count", "count(collection) or count(x for x in s where c): how many")(
    (_check_count, lambda ctx, values: len(values)))


def _check_anyall(name):
    def check(tc, call):
        _no_kwargs(tc, call)
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
    _no_kwargs(tc, call)
    if len(call.args) != 1:
        tc.error("T302", f"{tc.callee_name(call)} takes one number", call.span)
        return T.NUMBER
    t = T.strip_optional(tc.check(call.args[0]))
    if not T.is_numeric(t):
        tc.error("T301", f"{tc.callee_name(call)} expects a number, found {t}", call.args[0].span)
    return t if T.is_numeric(t) else T.NUMBER


builtin("abs", "abs(x): the size of x without its sign")(
    (_num_to_num, lambda ctx, x: abs(_need(x, "a number"))))
builtin("floor", "floor(x): the whole number at or below x")(
    (signature([T.NUMBER], T.INT), lambda ctx, x: math.floor(_need(x, "a number"))))
builtin("ceil", "ceil(x): the whole number at or above x")(
    (signature([T.NUMBER], T.INT), lambda ctx, x: math.ceil(_need(x, "a number"))))


def _round_half_up(ctx, x):
    x = Fraction(_need(x, "a number"))
    return math.floor(x + Fraction(1, 2))


builtin("round", "round(x): the nearest whole number, halves rounded up")(
    (signature([T.NUMBER], T.INT), _round_half_up))

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
        _no_kwargs(tc, call)
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


def _items(c):
    return c.items if isinstance(c, LSet) else c


builtin("union", "union(a, b): everything in a or b")(
    (_check_setop("union"), lambda ctx, a, b: LSet(_items(a) + _items(b))))
builtin("intersection", "intersection(a, b): what is in both")(
    (_check_setop("intersection"), lambda ctx, a, b: LSet(x for x in _items(a) if x in set(_items(b)))))
builtin("difference", "difference(a, b): what is in a but not in b")(
    (_check_setop("difference"), lambda ctx, a, b: LSet(x for x in _items(a) if x not in set(_items(b)))))


def _check_sorted(tc, call):
    _no_kwargs(tc, call)
    if len(call.args) != 1:
        tc.error("T302", "sorted takes one collection", call.span)
        return T.ListType(T.ANY)
    return T.ListType(_elem_type_of_arg(tc, call.args[0]))


builtin("sorted", "sorted(c): the values in order, smallest first")(
    (_check_sorted, lambda ctx, c: tuple(sorted(_items(c), key=sort_key))))


def _check_to_set(tc, call):
    _no_kwargs(tc, call)
    if len(call.args) != 1:
        tc.error("T302", "set_of takes one collection", call.span)
        return T.SetType(T.ANY)
    return T.SetType(_elem_type_of_arg(tc, call.args[0]))


builtin("set_of", "set_of(list): the distinct values of a list, as a set")(
    (_check_to_set, lambda ctx, c: LSet(_items(c))))


def _check_table_ref(tc, call, name, result):
    _no_kwargs(tc, call)
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
    _no_kwargs(tc, call)
    if len(call.args) != 1:
        tc.error("T302", "text takes one value", call.span)
    for a in call.args:
        tc.check(a)
    return T.TEXT


def _text_impl(ctx, value):
    from ruleslang.lang.values import display_text

    return display_text(value)


builtin("text", "text(x): x written as text")((_check_text, _text_impl))

def _check_conversion(kind):
    def check(tc, call):
        _no_kwargs(tc, call)
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
        found = enum.lookup(_need(value, "a name"))
        if found is None:
            close = enum.suggest(value)
            raise EvalError("E533", f"there is no {kind} named '{value}'",
                            hint=f"did you mean {', '.join(close)}?" if close else None)
        return found
    return impl


for _kind in ("space", "player", "side", "unittype"):
    builtin(_kind, f"{_kind}(name): the {_kind} with this name (or alias)")(
        (_check_conversion(_kind), _conversion_impl(_kind)))

# ------------------------------------------------------------------------------- dice & odds


def _check_roll(tc, call):
    _no_kwargs(tc, call)
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
builtin("rolls", "rolls(): every die rolled so far in this evaluation (or test), in order")(
    (signature([], T.ListType(T.INT)), lambda ctx: tuple(r.value for r in ctx.host.rolls)))


def _check_probability(tc, call):
    _no_kwargs(tc, call)
    if len(call.args) != 1:
        tc.error("T302", "probability takes one true/false expression", call.span)
        return T.NUMBER
    tc.expect(call.args[0], T.BOOL)
    return T.NUMBER


def _check_expected(tc, call):
    _no_kwargs(tc, call)
    if len(call.args) != 1:
        tc.error("T302", "expected takes one number expression", call.span)
        return T.NUMBER
    t = T.strip_optional(tc.check(call.args[0]))
    if not T.is_numeric(t):
        tc.error("T301", f"expected needs a number expression, found {t}", call.args[0].span)
    return T.NUMBER


def _check_distribution(tc, call):
    _no_kwargs(tc, call)
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
    _no_kwargs(tc, call)
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

# ----------------------------------------------------------------------------------- the board


def _board_fn(name, doc, params, result, fn, *, kw=None, min_args=None):
    """A built-in that reads the board: `fn(ctx, *args)` calls `ctx.board` directly.

    Its arguments are never none here (the compiler guards arguments that may be none), a
    context without a board answers every query with a located E530, and the compiled call
    site turns the board's refusals (BoardError) into E534: no wrapper between rule and board.
    """
    builtin(name, doc, board=True, kwargs=tuple((kw or {}).keys()))(
        (signature(params, result, kw=kw, min_args=min_args), fn))


_OPT_PLAYER = T.OptionalType(T.PLAYER)
_SPACES = T.SetType(T.SPACE)
_PLAYERS = T.SetType(T.PLAYER)

_board_fn("controller", "controller(s): the player controlling space s now (none for sea zones)",
          [T.SPACE], _OPT_PLAYER,
          lambda ctx, s: ctx.player_value(ctx.board.controller(s.name)))
_board_fn("owner", "owner(s): the same as controller(s)", [T.SPACE], _OPT_PLAYER,
          lambda ctx, s: ctx.player_value(ctx.board.controller(s.name)))
_board_fn("controller_at_start", "controller_at_start(s): who controlled s at the start of this turn",
          [T.SPACE], _OPT_PLAYER,
          lambda ctx, s: ctx.player_value(ctx.board.controller_at_turn_start(s.name)))
_board_fn("original_owner", "original_owner(s): who owned s when the game began", [T.SPACE], _OPT_PLAYER,
          lambda ctx, s: ctx.player_value(ctx.board.original_owner(s.name)))
_board_fn("ipc", "ipc(s): the production value of space s", [T.SPACE], T.INT,
          lambda ctx, s: ctx.board.ipc(s.name))
_board_fn("is_land", "is_land(s): true for land territories", [T.SPACE], T.BOOL,
          lambda ctx, s: ctx.board.is_land(s.name))
_board_fn("is_sea", "is_sea(s): true for sea zones", [T.SPACE], T.BOOL,
          lambda ctx, s: ctx.board.is_sea(s.name))
_board_fn("neighbours", "neighbours(s): every space bordering s", [T.SPACE], _SPACES,
          lambda ctx, s: ctx.spaces(ctx.board.neighbours(s.name, "all")))
_board_fn("land_neighbours", "land_neighbours(s): the land territories bordering s", [T.SPACE], _SPACES,
          lambda ctx, s: ctx.spaces(ctx.board.neighbours(s.name, "land")))
_board_fn("sea_neighbours", "sea_neighbours(s): the sea zones bordering s", [T.SPACE], _SPACES,
          lambda ctx, s: ctx.spaces(ctx.board.neighbours(s.name, "sea")))


def _by(value) -> str:
    by = value if value is not None else "all"
    if by not in ("land", "sea", "all"):
        raise EvalError("E506", f"'by' is \"land\", \"sea\" or \"all\", not {by!r}")
    return by


_board_fn("within", "within(s, n, by: \"land\"|\"sea\"|\"all\"): spaces 1 to n steps from s",
          [T.SPACE, T.INT], _SPACES,
          lambda ctx, s, n, by=None: ctx.spaces(ctx.board.within(s.name, n, by=_by(by))),
          kw={"by": T.TEXT})
_board_fn("distance", "distance(a, b, by: ...): the fewest steps from a to b (none if unreachable)",
          [T.SPACE, T.SPACE], T.OptionalType(T.INT),
          lambda ctx, x, y, by=None: ctx.board.distance(x.name, y.name, by=_by(by)),
          kw={"by": T.TEXT})


def _check_connected(tc, call):
    _no_kwargs(tc, call)
    if len(call.args) != 2:
        tc.error("T302", "connected takes a space and a condition such as x => allied(controller(x), p)",
                 call.span)
        for a in call.args:
            tc.check(a)
        return _SPACES
    tc.expect(call.args[0], T.SPACE)
    tc.check_function_arg(call.args[1], (T.SPACE,), T.BOOL)
    return _SPACES


def _connected_impl(ctx, space, predicate):
    board = ctx.board
    values = ctx.space_values

    def pred(name: str) -> bool:
        return predicate(values[name]) is True

    key = getattr(predicate, "cache_key", None)
    return ctx.spaces(board.connected(space.name, pred, cache_key=key))


builtin("connected", "connected(s, x => cond): the land territories joined to s through land where cond holds",
        board=True)((_check_connected, _connected_impl))


def _check_units(tc, call):
    if len(call.args) > 1:
        tc.error("T302", "units takes at most one space (then owner:, type:, tag: to filter)", call.span)
    if call.args:
        tc.expect(call.args[0], T.SPACE)
    kinds = {"owner": T.PLAYER, "type": T.UNITTYPE, "tag": T.TAG}
    for k in call.kwargs:
        if k.name.text not in kinds:
            tc.error("T303", f"units has no argument named '{k.name.text}'", k.name.span,
                     hint="named arguments: owner, type, tag")
            tc.check(k.value)
            continue
        want = kinds[k.name.text]
        t = tc.check(k.value, want)
        if not (T.assignable(t, want) or T.assignable(t, T.SetType(want))):
            tc.error("T301", f"units {k.name.text}: expected a {want} or a set of them, found {t}", k.value.span)
    return T.ListType(T.UNIT)


def _as_names(value) -> tuple[str, ...] | None:
    if value is None:
        return None
    if isinstance(value, EnumValue):
        return (value.name,)
    return tuple(v.name for v in _items(value))


def _units_impl(ctx, space=None, owner=None, type=None, tag=None):
    board = ctx.board
    owners, types_, tags = _as_names(owner), _as_names(type), _as_names(tag)
    out = []
    for unit in board.units(space.name if space is not None else None):
        if owners is not None and unit.owner not in owners:
            continue
        if types_ is not None and unit.type not in types_:
            continue
        if tags is not None and not ctx.unit_has_any_tag(unit.type, tags):
            continue
        out.append(ctx.unit_value(unit))
    return tuple(out)


builtin("units", "units(s, owner: p, type: t, tag: g): the units in s (or on the whole board), filtered",
        board=True, kwargs=("owner", "type", "tag"))((_check_units, _units_impl))

_board_fn("factories", "factories(owner: p): the spaces holding a factory", [], _SPACES,
          lambda ctx, owner=None: ctx.spaces(f.space for f in ctx.board.factories(owner=owner.name if owner is not None
                                                                               else None)),
          kw={"owner": T.PLAYER})
_board_fn("has_factory", "has_factory(s): true when space s holds a factory", [T.SPACE], T.BOOL,
          lambda ctx, s: bool(ctx.board.factories(space=s.name)))
_board_fn("income", "income(p, economy: e): the player's income this turn (the sum of IPC values it controls, "
          "or the scenario's figure)", [T.PLAYER], T.INT,
          lambda ctx, p, economy=None: ctx.board.income(p.name, economy=economy), kw={"economy": T.TEXT})
_board_fn("treasury", "treasury(p, economy: e): the player's unspent money", [T.PLAYER], T.INT,
          lambda ctx, p, economy=None: ctx.board.treasury(p.name, economy=economy), kw={"economy": T.TEXT})
_board_fn("spaces", "spaces(): every space on the map", [], _SPACES, lambda ctx: ctx.spaces(ctx.board.spaces()))
_board_fn("territories", "territories(): every land territory", [], _SPACES,
          lambda ctx: ctx.spaces(ctx.board.spaces("land")))
_board_fn("sea_zones", "sea_zones(): every sea zone", [], _SPACES, lambda ctx: ctx.spaces(ctx.board.spaces("sea")))
_board_fn("capital", "capital(p): the player's capital (none if the map names none)", [T.PLAYER],
          T.OptionalType(T.SPACE), lambda ctx, p: ctx.space_value(ctx.board.map.player(p.name).capital))
_board_fn("current_player", "current_player(): whose turn it is", [], T.PLAYER,
          lambda ctx: ctx.player_value(ctx.board.current_player()))
_board_fn("round", "round(): the game round, from 1", [], T.INT, lambda ctx: ctx.board.round())


def _turn_index(ctx, p):
    order = ctx.board.turn_order()
    if p.name not in order:
        raise EvalError("E504", f"player {p.name} takes no turn")
    return order.index(p.name) + 1


builtin("turn_index", "turn_index(p): the player's place in the turn order, from 1")(
    (signature([T.PLAYER], T.INT), _turn_index))


def _factory_at_start(ctx, s):
    state = ctx.board.state
    at_start = getattr(state, "factories_at_turn_start", None)
    return s.name in (at_start if at_start is not None else state.factories)


def _factory_is_original(ctx, s):
    factory = ctx.board.state.factories.get(s.name)
    return factory is not None and bool(factory.flags.get("original", s.name in ctx.board.map.start.factories))


_board_fn("factory_owner", "factory_owner(s): who owns the factory in s (none when there is none)", [T.SPACE],
          T.OptionalType(T.PLAYER),
          lambda ctx, s: ctx.player_value(getattr(ctx.board.state.factories.get(s.name), "owner", None)))
_board_fn("factory_kind", "factory_kind(s): the kind of the factory in s (none when there is none, or the map's plain kind)",
          [T.SPACE], T.OptionalType(T.TEXT),
          lambda ctx, s: getattr(ctx.board.state.factories.get(s.name), "kind", None))
_board_fn("factory_damage", "factory_damage(s): the damage the factory in s has taken (0 when there is none)",
          [T.SPACE], T.INT,
          lambda ctx, s: getattr(ctx.board.state.factories.get(s.name), "damage", 0))
_board_fn("phase", "phase(): the name of the phase being played (none outside a game)", [], T.OptionalType(T.TEXT),
          lambda ctx: ctx.board.state.phase)
builtin("hits", "hits(u): the hits unit u has taken")(
    (signature([T.UNIT], T.INT), lambda ctx, u: u.hits))


def _moved_through(ctx, u, kind):
    if kind not in ("combat", "noncombat"):
        raise EvalError("E506", f"a move kind is \"combat\" or \"noncombat\", not {kind!r}")
    unit = ctx.board_unit(u.id)
    names = unit.flags.get("passed_" + kind, ()) if unit is not None else ()
    return tuple(ctx.space_values[n] for n in names)


def _carried_by(ctx, u):
    state = ctx.board.state
    unit = ctx.board_unit(u.id)
    if unit is None:
        return None
    carrier = unit.flags.get("unloaded_from")
    if carrier is None:
        carrier = next((c.id for c in state.units if unit.id in c.cargo), None)
    found = next((c for c in state.units if c.id == carrier), None) if carrier is not None else None
    return ctx.unit_value(found) if found is not None else None


_board_fn("moved_through", "moved_through(u, \"combat\" | \"noncombat\"): the spaces unit u entered in this "
          "turn's combat (or non-combat) move, in order, the last where it stopped", [T.UNIT, T.TEXT],
          T.ListType(T.SPACE), _moved_through)
_board_fn("carried_by", "carried_by(u): the transport unit u is aboard, or the one it came ashore from this "
          "turn (none when there is none or it is gone)", [T.UNIT], T.OptionalType(T.UNIT), _carried_by)
builtin("factory_at_start", "factory_at_start(s): true when a factory stood in s when this turn began")(
    (signature([T.SPACE], T.BOOL), _factory_at_start))
builtin("factory_is_original", "factory_is_original(s): true when s holds a factory the game began with")(
    (signature([T.SPACE], T.BOOL), _factory_is_original))


def _battle(ctx):
    battle = getattr(ctx, "battle", None)
    if battle is None:
        raise EvalError("E535", "there is no battle here: this is only known during a battle step")
    return battle


builtin("contested", "contested(): the spaces where battles are to be fought this combat phase")(
    (signature([], _SPACES), lambda ctx: ctx.spaces(tuple(getattr(ctx, "contested_spaces", ())))))
builtin("battle_space", "battle_space(): where the current battle is fought")(
    (signature([], T.SPACE), lambda ctx: ctx.space_values[_battle(ctx).space]))
builtin("attacker", "attacker(): the player attacking in the current battle")(
    (signature([], T.PLAYER), lambda ctx: ctx.player_values[_battle(ctx).attacker]))
builtin("defender", "defender(): the player defending in the current battle (none when the space is empty)")(
    (signature([], T.OptionalType(T.PLAYER)),
     lambda ctx: ctx.player_value(_battle(ctx).defender)))


def _battle_units(ctx, side):
    battle = _battle(ctx)
    if side not in ("attacker", "defender"):
        raise EvalError("E506", f"a battle side is \"attacker\" or \"defender\", not {side!r}")
    return tuple(ctx.unit_value(u) for u in battle.units(side))


builtin("battle_units", "battle_units(\"attacker\" | \"defender\"): the units still fighting on that side")(
    (signature([T.TEXT], T.ListType(T.UNIT)), _battle_units))
builtin("battle_round", "battle_round(): the round of the current battle, from 1")(
    (signature([], T.INT), lambda ctx: _battle(ctx).round))
builtin("is_amphibious", "is_amphibious(): true when the current battle is an amphibious assault")(
    (signature([], T.BOOL), lambda ctx: bool(_battle(ctx).amphibious)))
builtin("support_units", "support_units(): the attacker's ships offshore of an amphibious assault (they may bombard)")(
    (signature([], T.ListType(T.UNIT)), lambda ctx: tuple(ctx.unit_value(u) for u in _battle(ctx).support_units())))
builtin("retreat_options", "retreat_options(): where the attackers may retreat to")(
    (signature([], _SPACES), lambda ctx: ctx.spaces(tuple(_battle(ctx).retreat_options()))))


def _check_values(tc, call):
    _no_kwargs(tc, call)
    arg = call.args[0] if len(call.args) == 1 else None
    sym = tc.scope.symbols.get(arg.id) if isinstance(arg, ast.Name) else None
    if sym is None or sym.kind != "enum":
        tc.error("T301", "values(...) takes the name of an enumeration", call.span)
        return T.ListType(T.ANY)
    tc.info.names[id(arg)] = _enum_resolution(sym.name)
    return T.ListType(T.EnumType(sym.name))


def _enum_resolution(name):
    from ruleslang.lang.check.typecheck import Resolution

    return Resolution("const", value=name)


builtin("values", "values(E): every member of enumeration E, in order")(
    (_check_values, lambda ctx, name: tuple(ctx.enums[name].members)))


def _side_of(ctx, p):
    side = ctx.side_of(p.name)
    if side is None:
        raise EvalError("E504", f"player {p.name} belongs to no side")
    return side


builtin("side_of", "side_of(p): the side player p plays on")(
    (signature([T.PLAYER], T.SIDE), _side_of))
builtin("members", "members(s): the players of side s")(
    (signature([T.SIDE], _PLAYERS), lambda ctx, s: LSet(ctx.side_members(_need(s, "a side").name))))
builtin("allied", "allied(a, b): true when players a and b are on the same side (or are the same player)")(
    (signature([T.PLAYER, T.PLAYER], T.BOOL),
     lambda ctx, a, b: a is not None and b is not None and (a == b or ctx.side_of(a.name) is not None
                                                            and ctx.side_of(a.name) == ctx.side_of(b.name))))
builtin("enemies", "enemies(p): the players on other sides")(
    (signature([T.PLAYER], _PLAYERS), lambda ctx, p: LSet(ctx.enemies_of(p.name))))
builtin("players", "players(): every player, in turn order")(
    (signature([], T.ListType(T.PLAYER)), lambda ctx: tuple(ctx.enums["player"].members)))
builtin("unit_types", "unit_types(): every unit type")(
    (signature([], T.ListType(T.UNITTYPE)), lambda ctx: tuple(ctx.enums["unittype"].members)))


def _check_has_tag(tc, call):
    _no_kwargs(tc, call)
    if len(call.args) != 2:
        tc.error("T302", "has_tag takes a unit (or unit type) and a tag", call.span)
        return T.BOOL
    t = T.strip_optional(tc.check(call.args[0]))
    if t not in (T.UNIT, T.UNITTYPE) and not isinstance(t, T.AnyType):
        tc.error("T301", f"has_tag expects a unit or unit type, found {t}", call.args[0].span)
    tc.expect(call.args[1], T.TAG)
    return T.BOOL


def _has_tag_impl(ctx, thing, tag):
    type_name = thing.type.name if isinstance(thing, UnitValue) else _need(thing, "a unit type").name
    return ctx.unit_has_any_tag(type_name, (_need(tag, "a tag").name,))


builtin("has_tag", "has_tag(u, tag): true when unit (or unit type) u carries the tag")((_check_has_tag, _has_tag_impl))


def record_of(pairs) -> Record:
    return Record(pairs)


def dist_of(weights: dict) -> Dist:
    return Dist(weights)
