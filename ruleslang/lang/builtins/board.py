"""The board's built-in functions: spaces, control, units, factories, money and the turn; and the
board properties that `set` and `change` effects may write.

Board queries reach the board through the evaluation context (`ctx.board`), which turns the
board's names into language values.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from ruleslang.lang import types as T
from ruleslang.base.errors import EvalError
from ruleslang.lang.builtins.spec import (OPTIONAL_PLAYER, SPACES, Builtin, elements, no_kwargs, registrar,
                                          signature)
from ruleslang.lang.values import EnumValue, format_value

BUILTINS: dict[str, Builtin] = {}
builtin = registrar(BUILTINS)


def _board_fn(name, doc, params, result, fn, *, kw=None, min_args=None):
    """A built-in that reads the board: `fn(ctx, *args)` calls `ctx.board` directly.

    Its arguments are never none here (the compiler guards arguments that may be none), a
    context without a board answers every query with a located E530, and the compiled call
    site turns the board's refusals (BoardError) into E534: no wrapper between rule and board.
    """
    builtin(name, doc, board=True, kwargs=tuple((kw or {}).keys()))(
        (signature(params, result, kw=kw, min_args=min_args), fn))


_board_fn("controller", "controller(s): the player controlling space s now (none for sea zones)",
          [T.SPACE], OPTIONAL_PLAYER,
          lambda ctx, s: ctx.player_value(ctx.board.controller(s.name)))
_board_fn("owner", "owner(s): the same as controller(s)", [T.SPACE], OPTIONAL_PLAYER,
          lambda ctx, s: ctx.player_value(ctx.board.controller(s.name)))
_board_fn("controller_at_start", "controller_at_start(s): who controlled s at the start of this turn",
          [T.SPACE], OPTIONAL_PLAYER,
          lambda ctx, s: ctx.player_value(ctx.board.controller_at_turn_start(s.name)))
_board_fn("original_owner", "original_owner(s): who owned s when the game began", [T.SPACE], OPTIONAL_PLAYER,
          lambda ctx, s: ctx.player_value(ctx.board.original_owner(s.name)))
_board_fn("is_land", "is_land(s): true for land territories", [T.SPACE], T.BOOL,
          lambda ctx, s: ctx.board.is_land(s.name))
_board_fn("is_sea", "is_sea(s): true for sea zones", [T.SPACE], T.BOOL,
          lambda ctx, s: ctx.board.is_sea(s.name))
_board_fn("neighbours", "neighbours(s): every space bordering s", [T.SPACE], SPACES,
          lambda ctx, s: ctx.spaces(ctx.board.neighbours(s.name, "all")))
_board_fn("land_neighbours", "land_neighbours(s): the land territories bordering s", [T.SPACE], SPACES,
          lambda ctx, s: ctx.spaces(ctx.board.neighbours(s.name, "land")))
_board_fn("sea_neighbours", "sea_neighbours(s): the sea zones bordering s", [T.SPACE], SPACES,
          lambda ctx, s: ctx.spaces(ctx.board.neighbours(s.name, "sea")))


def _by(value) -> str:
    by = value if value is not None else "all"
    if by not in ("land", "sea", "all"):
        raise EvalError("E506", f"'by' is \"land\", \"sea\" or \"all\", not {by!r}")
    return by


def _check_within(tc, call):
    if len(call.args) != 2:
        tc.error("T302", f"within takes a space and a number of steps, found {len(call.args)} argument(s)", call.span)
    for node, ptype in zip(call.args, (T.SPACE, T.INT)):
        tc.expect(node, ptype)
    for extra in call.args[2:]:
        tc.check(extra)
    for k in call.kwargs:
        if k.name.text == "by":
            tc.expect(k.value, T.TEXT)
        elif k.name.text == "through":
            tc.check_function_arg(k.value, (T.SPACE,), T.BOOL)
        else:
            tc.error("T303", f"within has no argument named '{k.name.text}'", k.name.span,
                     hint="named arguments: by, through")
            tc.check(k.value)
    return SPACES


def _within_impl(ctx, s, n, by=None, through=None):
    if through is None:
        return ctx.spaces(ctx.board.within(s.name, n, by=_by(by)))
    values = ctx.space_values
    return ctx.spaces(ctx.board.within(s.name, n, by=_by(by), through=lambda name: through(values[name]) is True))


builtin("within", "within(s, n, by: \"land\"|\"sea\"|\"all\", through: x => cond): spaces 1 to n steps from s "
        "(with through: along paths whose spaces between s and the end satisfy cond)",
        board=True, kwargs=("by", "through"))((_check_within, _within_impl))
_board_fn("distance", "distance(a, b, by: ...): the fewest steps from a to b (none if unreachable)",
          [T.SPACE, T.SPACE], T.OptionalType(T.INT),
          lambda ctx, x, y, by=None: ctx.board.distance(x.name, y.name, by=_by(by)),
          kw={"by": T.TEXT})


def _check_connected(tc, call):
    no_kwargs(tc, call)
    if len(call.args) != 2:
        tc.error("T302", "connected takes a space and a condition such as x => allied(controller(x), p)",
                 call.span)
        for a in call.args:
            tc.check(a)
        return SPACES
    tc.expect(call.args[0], T.SPACE)
    tc.check_function_arg(call.args[1], (T.SPACE,), T.BOOL)
    return SPACES


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
    return tuple(v.name for v in elements(value))


def _units_impl(ctx, space=None, owner=None, type=None, tag=None):
    board = ctx.board
    # (a player and a unit type are most often one name: read without a call)
    owners = None if owner is None else (owner.name,) if owner.__class__ is EnumValue else _as_names(owner)
    types_ = None if type is None else (type.name,) if type.__class__ is EnumValue else _as_names(type)
    tags = _as_names(tag)
    where = space.name if space is not None else None
    # rules ask the same question many times between two changes of the board (a formula per
    # territory reading every unit of a player): the answer is kept until the units change, for
    # the context that made its values (a watch's own values note what is read of them)
    memo = board.unit_answers()
    make = ctx.unit_value
    key = ("units", getattr(make, "__self__", make), where, owners, types_, tags)
    found = memo.get(key)
    if found is not None:
        return found
    # (the values made in one pass: `EvalContext.values_of_units`; a watch's, which notes what is
    # read, makes each through its `unit_value`)
    chosen = _chosen(ctx, where, owners, types_, tags)
    found = memo[key] = ctx.values_of_units(chosen) if chosen else ()
    return found


def units_chosen(ctx, space=None, owner=None, type=None, tag=None):
    """The board's units `units(space, owner: ..., type: ..., tag: ...)` gives the values of, in its
    order (a caller that makes values only of some of them: lang/eval/unit_scans.py)."""
    owners = None if owner is None else (owner.name,) if owner.__class__ is EnumValue else _as_names(owner)
    types_ = None if type is None else (type.name,) if type.__class__ is EnumValue else _as_names(type)
    return _chosen(ctx, space.name if space is not None else None, owners, types_, _as_names(tag))


def _chosen(ctx, where, owners, types_, tags):
    """The board units in `where` (the whole board: None) of these owners, types and tags (None:
    any), by id: the board's own list when nothing is filtered (read it, do not change it)."""
    board = ctx.board
    # a space's own units read in place (most spaces hold few units, many none), not copied
    pool = board.units(where) if where is None else board.units_in(where)
    if not pool or (owners is None and types_ is None and tags is None):
        return pool
    if tags is None and (owners is None or types_ is None):
        # one filter, most often one owner (a player's units): one comparison a unit
        if types_ is None:
            return [u for u in pool if u.owner == owners[0]] if len(owners) == 1 else [u for u in pool if u.owner in owners]
        return [u for u in pool if u.type in types_]
    out = []
    tagged: dict[str, bool] = {}  # a type's tags asked once per question, not once per unit
    for unit in pool:
        if owners is not None and unit.owner not in owners:
            continue
        kind = unit.type
        if types_ is not None and kind not in types_:
            continue
        if tags is not None:
            ok = tagged.get(kind)
            if ok is None:
                ok = tagged[kind] = ctx.unit_has_any_tag(kind, tags)
            if not ok:
                continue
        out.append(unit)
    return out


builtin("units", "units(s, owner: p, type: t, tag: g): the units in s (or on the whole board), filtered",
        board=True, kwargs=("owner", "type", "tag"))((_check_units, _units_impl))

_board_fn("factories", "factories(owner: p): the spaces holding a factory", [], SPACES,
          lambda ctx, owner=None: ctx.spaces(f.space for f in ctx.board.factories(owner=owner.name if owner is not None
                                                                               else None)),
          kw={"owner": T.PLAYER})
_board_fn("has_factory", "has_factory(s): true when space s holds a factory", [T.SPACE], T.BOOL,
          lambda ctx, s: bool(ctx.board.factories(space=s.name)))
_board_fn("stated_income", "stated_income(p): the income figure the scenario (or a rule) states for the player, "
          "none when it states none (a ruleset's income formula computes it then)", [T.PLAYER],
          T.OptionalType(T.INT), lambda ctx, p: ctx.board.stated_income(p.name))
_board_fn("treasury", "treasury(p, economy: e): the player's unspent money", [T.PLAYER], T.INT,
          lambda ctx, p, economy=None: ctx.board.treasury(p.name, economy=economy), kw={"economy": T.TEXT})
_board_fn("spaces", "spaces(): every space on the map", [], SPACES, lambda ctx: ctx.spaces(ctx.board.spaces()))
_board_fn("territories", "territories(): every land territory", [], SPACES,
          lambda ctx: ctx.spaces(ctx.board.spaces("land")))
_board_fn("sea_zones", "sea_zones(): every sea zone", [], SPACES, lambda ctx: ctx.spaces(ctx.board.spaces("sea")))
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


def _flown_from(ctx, u):
    unit = ctx.board_unit(u.id)
    origin = unit.flags.get("airborne_from") if unit is not None else None
    return ctx.space_values[origin] if origin is not None else None


def _lifted_by(ctx, u):
    unit = ctx.board_unit(u.id)
    lifter = unit.flags.get("airborne_lift") if unit is not None else None
    found = next((c for c in ctx.board.state.units if c.id == lifter), None) if lifter is not None else None
    return ctx.unit_value(found) if found is not None else None


_board_fn("flown_from", "flown_from(u): the territory land unit u was flown from this turn by an airborne move "
          "(none when it was not)", [T.UNIT], T.OptionalType(T.SPACE), _flown_from)
_board_fn("lifted_by", "lifted_by(u): the air unit that carried land unit u in this turn's airborne move (none "
          "when none did or it is gone)", [T.UNIT], T.OptionalType(T.UNIT), _lifted_by)
_board_fn("moved_through", "moved_through(u, \"combat\" | \"noncombat\"): the spaces unit u entered in this "
          "turn's combat (or non-combat) move, in order, the last where it stopped", [T.UNIT, T.TEXT],
          T.ListType(T.SPACE), _moved_through)
_board_fn("carried_by", "carried_by(u): the transport unit u is aboard, or the one it came ashore from this "
          "turn (none when there is none or it is gone)", [T.UNIT], T.OptionalType(T.UNIT), _carried_by)
builtin("factory_at_start", "factory_at_start(s): true when a factory stood in s when this turn began")(
    (signature([T.SPACE], T.BOOL), _factory_at_start))
builtin("factory_is_original", "factory_is_original(s): true when s holds a factory the game began with")(
    (signature([T.SPACE], T.BOOL), _factory_is_original))


# ------------------------------------------------------------------------ settable properties


@dataclass(frozen=True)
class SettableProperty:
    """A board property an effect may write: `set NAME(x) to v`, and `change NAME(x) by n` when
    `verbs` has "change".

    `write(ctx, state, x, update, span, **named)` stores `update(old value)` for the property of
    `x` (the call's argument; `named` its named arguments), raising errors located at `span`.
    """

    type: T.Type
    verbs: tuple[str, ...]
    write: Callable


def _write_treasury(ctx, state, player, update, span, economy=None):
    old = ctx.board.treasury(player.name, economy=economy)
    new = update(old)
    if new < 0:
        raise EvalError("E523", f"{player.name} would have {format_value(new)} in the treasury; "
                                "a treasury cannot go below 0", span)
    state.change_treasury(player.name, new - old, economy)


def _write_control(ctx, state, space, update, span):
    player = update(None)
    state.set_control(space.name, player.name if player is not None else None)


def _write_factory_owner(ctx, state, space, update, span):
    player = update(None)
    before = state.factories.get(space.name)
    if player is not None and before is not None:
        # a factory changing hands keeps its kind and its damage
        state.set_factory(space.name, player.name, kind=before.kind, damage=before.damage)
    else:
        state.set_factory(space.name, player.name if player is not None else None)


def _existing_factory(state, space: str, span):
    factory = state.factories.get(space)
    if factory is None:
        raise EvalError("E534", f"there is no factory in {space}", span)
    return factory


def _write_factory_kind(ctx, state, space, update, span):
    factory = _existing_factory(state, space.name, span)
    state.set_factory(space.name, factory.owner, kind=update(factory.kind), damage=factory.damage)


def _write_factory_damage(ctx, state, space, update, span):
    factory = _existing_factory(state, space.name, span)
    state.set_factory(space.name, factory.owner, kind=factory.kind, damage=max(0, update(factory.damage)))


def _write_hits(ctx, state, unit, update, span):
    state.update_units([unit.id], hits=max(0, update(unit.hits)))


_SET = ("set",)
_SET_OR_CHANGE = ("set", "change")

# What `set` and `change` effects may write besides counters: name -> the property.
SETTABLE_PROPERTIES: dict[str, SettableProperty] = {
    "treasury": SettableProperty(T.INT, _SET_OR_CHANGE, _write_treasury),
    "controller": SettableProperty(T.PLAYER, _SET, _write_control),
    "owner": SettableProperty(T.PLAYER, _SET, _write_control),
    "factory_owner": SettableProperty(T.OptionalType(T.PLAYER), _SET, _write_factory_owner),
    "factory_kind": SettableProperty(T.TEXT, _SET, _write_factory_kind),
    "factory_damage": SettableProperty(T.INT, _SET_OR_CHANGE, _write_factory_damage),
    "hits": SettableProperty(T.INT, _SET_OR_CHANGE, _write_hits),
}
