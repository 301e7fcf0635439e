"""The evaluation context: what compiled rules read while they run.

It joins a compiled program with one host (dice, budget, log), option and fact values, and,
when there is one, a game state with its board queries. Built-ins reach the board only through
the methods here, which turn board names into language values and back.
"""

from __future__ import annotations

import weakref
from typing import Any, Callable, Iterable

from ruleslang.base.errors import EvalError
from ruleslang.lang import types as T
from ruleslang.lang.eval.host import Host
from ruleslang.lang.values import EnumValue, LSet, UnitValue, to_json


def counter_key(value) -> str:
    """One part of a counter's key as text: a name, a number, true/false, or a unit's id."""
    if type(value) is EnumValue:  # most keys are players and spaces: tested first
        return value.name
    if type(value) is int:  # then numbers (rounds, unit ids); a bool is not of this type
        return str(value)
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (EnumValue,)):
        return value.name
    if isinstance(value, UnitValue):
        return str(value.id)
    return str(value)


# The counter types whose stored values are their language values (`convert_data` returns them
# unchanged when they are of exactly this Python type).
_PLAIN = ((T.INT, int), (T.BOOL, bool), (T.TEXT, str))
_NOT_READ = object()
_new = object.__new__  # (`EvalContext.values_of_units`: a value made without its `__init__`'s call)


def _plain_reading(typ):
    """How a counter of type `typ` is read without `convert_data` (`EvalContext.counter`): the
    Python type of values read as they are, a dict to keep an enumeration's values by name (an
    enumeration or an optional one: the value of a name is fixed for a program), or None."""
    found = next((py for t, py in _PLAIN if typ == t), None)
    if found is not None:
        return found
    inner = typ.inner if isinstance(typ, T.OptionalType) else typ
    return {} if isinstance(inner, T.EnumType) else None


def _text_key(key: tuple) -> tuple:
    """`tuple(counter_key(k) for k in key)`, with the names of players and spaces (most key parts)
    read without a call, and keys of one or two parts (most keys) made without a loop."""
    n = len(key)
    if n == 1:
        a = key[0]
        return (a.name if type(a) is EnumValue else counter_key(a),)
    if n == 2:
        a, b = key
        return (a.name if type(a) is EnumValue else counter_key(a), b.name if type(b) is EnumValue else counter_key(b))
    return tuple([k.name if type(k) is EnumValue else counter_key(k) for k in key])


class _NoBoard:
    """The board of an evaluation without one: every query is a located E530."""

    def __getattr__(self, name):
        raise EvalError("E530", "this needs a board: give a scenario (--scenario FILE) or name a map in "
                                "the ruleset")

    def __bool__(self) -> bool:
        return False


NO_BOARD = _NoBoard()


class EvalContext:
    """What one run of compiled rules reads and writes, beside the rules themselves."""

    def __init__(self, compiled, host: Host, *, state=None, board=None, options: dict | None = None,
                 facts: dict | None = None, decide: Callable | None = None):
        """A context for `compiled` with `host` (dice, budget, log).

        `state` and `board` are the game state and its queries (none: rules that need a board
        refuse with E530); `options` and `facts` the values of options (their defaults when not
        given) and facts; `decide(id, player, options, mode, count, prompt)` answers `choose`.

        Whoever runs the rules may also set, after construction:
        `game` (the running game, whose settings the runtime procedures read),
        `battle` (the battle being fought, which the battle built-ins and effects act on),
        `contested_spaces` (the space names `contested()` gives: battles still to fight),
        `runtime_procedures` (the implementation of each `runtime NAME` procedure, by name),
        `running` (the phases and steps being run, outermost first), `winner` (the side that won
        and why, set by `win`), and `collector` (set while constraints and checks collect refusals).
        """
        self.compiled = compiled
        self.host = host
        self.state = state
        self.board = board if board is not None else NO_BOARD
        self._space_sets: dict[tuple, LSet] = {}
        # the board hands out the same cached tuple again and again: found by identity first,
        # without hashing its names (the tuple is kept alive with its set, so ids stay unique)
        self._space_sets_by_id: dict[int, tuple[tuple, LSet]] = {}
        enums = compiled.program.scope.enums
        self.enums = enums
        self.space_values: dict[str, EnumValue] = enums["space"].by_name
        self.player_values: dict[str, EnumValue] = enums["player"].by_name
        self.side_values: dict[str, EnumValue] = enums["side"].by_name
        self.unittype_values: dict[str, EnumValue] = enums["unittype"].by_name
        self.options = dict(options if options is not None else compiled.default_options(self))
        self.facts = dict(facts or {})
        self.decide = decide
        self.counters: dict[str, dict] = {}  # used when there is no game state
        self.procedures = compiled.procedures
        self.game: Any = None
        self.battle: Any = None
        self.contested_spaces: list[str] = []
        self.runtime_procedures: dict[str, Callable] = {}
        self.collector = None
        # name -> (counters, its entries, writes, entries by text key, whether the state's keys are
        # text, plain values read by the rules' own keys)
        self._counter_cache: dict[str, tuple] = {}
        # name -> how its stored values are read: a Python type (read as they are), a dict (an
        # enumeration counter: each name's value, converted once), None (`convert_data` each time)
        self._counter_plain: dict[str, type | dict | None] = {}
        self.running: list[str] = []
        self.winner: tuple[EnumValue, str] | None = None

    def log(self, kind: str, **data) -> None:
        """An event: into the game's log when there is a game, else the host's."""
        if self.state is not None:
            self.state.events.append({"kind": kind, **data})
        else:
            self.host.log(kind, **data)

    # ---------------------------------------------------------------------- conversions

    def space_value(self, name: str | None) -> EnumValue | None:
        return self.space_values[name] if name is not None else None

    def player_value(self, name: str | None) -> EnumValue | None:
        # Players come from the same map as the board, so every name the board gives is known.
        return self.player_values[name] if name is not None else None

    def spaces(self, names: Iterable[str]) -> LSet:
        """The set of these spaces; the board's answers are tuples it caches, so their sets are kept too."""
        if isinstance(names, tuple):
            known = self._space_sets_by_id.get(id(names))
            if known is not None and known[0] is names:
                return known[1]
        key = names if isinstance(names, tuple) else tuple(names)
        found = self._space_sets.get(key)
        if found is None:
            values = self.space_values
            found = LSet.of_enums(values[n] for n in key)
            if len(self._space_sets) > 4096:
                self._space_sets.clear()
                self._space_sets_by_id.clear()
            self._space_sets[key] = found
        if isinstance(names, tuple):
            if len(self._space_sets_by_id) > 4096:
                self._space_sets_by_id.clear()
            self._space_sets_by_id[id(names)] = (names, found)
        return found

    def share_space_sets(self, other: "EvalContext") -> None:
        """Keep the sets of spaces (`spaces`) in `other`'s memo, a context of the same program: a
        set depends on the names alone (a look-ahead's copy of a game takes its game's, rather than
        making the map's sets of territories again in every copy)."""
        if other.compiled is self.compiled:
            self._space_sets, self._space_sets_by_id = other._space_sets, other._space_sets_by_id

    def unit_value(self, unit, kind: type = UnitValue) -> UnitValue:
        """A board unit as the rules see it; `kind`: a UnitValue class made with the same fields (a
        watch's, which notes reads)."""
        utype = self.unittype_values.get(unit.type)
        if utype is None:
            raise EvalError("E531", f"the board has a unit of type '{unit.type}' that no ruleset declares")
        space = self.space_values[unit.space] if unit.space is not None else None
        owner = unit.owner  # (`player_value` inline: many units are made in the rules' loops)
        # (its fields set here, as `UnitValue.__init__` sets them, without that call)
        value = _new(kind)
        value.id = unit.id
        value.type = utype
        value.owner = self.player_values[owner] if owner is not None else None
        value.space = space
        value.hits = unit.hits
        value.moved = getattr(unit, "moved", 0)
        value.flags = ()
        return value

    def values_of_units(self, units: Iterable) -> tuple:
        """`unit_value` of each of these board units, in their order, made in one pass: a rule's
        `units(...)` and a battle's sides make thousands a game, and a call to `unit_value` and
        to `UnitValue.__init__` for each cost more than the value's fields (the same fields and
        errors as `unit_value`'s)."""
        types, spaces, players = self.unittype_values, self.space_values, self.player_values
        make = _new
        out = []
        add = out.append
        for unit in units:
            utype = types.get(unit.type)
            if utype is None:
                raise EvalError("E531", f"the board has a unit of type '{unit.type}' that no ruleset declares")
            space, owner = unit.space, unit.owner
            value = make(UnitValue)
            value.id = unit.id
            value.type = utype
            value.space = spaces[space] if space is not None else None
            value.owner = players[owner] if owner is not None else None
            value.hits = unit.hits
            value.moved = getattr(unit, "moved", 0)
            value.flags = ()
            add(value)
        return tuple(out)

    # ---------------------------------------------------------------------- players, sides

    def side_of(self, player: str) -> EnumValue | None:
        side = self.compiled.side_of_player.get(player)
        return self.side_values.get(side) if side is not None else None

    def side_members(self, side: str) -> list[EnumValue]:
        return [self.player_values[p] for p in self.compiled.side_members.get(side, ())]

    def enemies_of(self, player: str) -> list[EnumValue]:
        mine = self.compiled.side_of_player.get(player)
        return [v for name, v in self.player_values.items()
                if name != player and (mine is None or self.compiled.side_of_player.get(name) != mine)]

    # ----------------------------------------------------------------------------- units

    def unit_has_any_tag(self, type_name: str, tags: tuple[str, ...]) -> bool:
        own = self.compiled.unit_tags.get(type_name, ())
        if len(tags) == 1:
            return tags[0] in own
        return any(t in own for t in tags)

    def unit_attribute(self, type_name: str, attr: str):
        return self.compiled.unit_attribute(self, type_name, attr)

    def space_attribute(self, space: str, attr: str):
        return self.compiled.space_attribute(self, space, attr)

    # -------------------------------------------------------------------------- counters

    def counter(self, name: str, key: tuple, reader=None):
        """A counter's value; `reader` (a `WatchedContext`) evaluates its default and the units
        its value names, so that what they read is noted too."""
        state = self.state
        if state is None:
            store = self.counters.get(name, {})
            if key in store:
                return store[key]
            return self.compiled.counter_default(reader or self, name, key)
        # A game state keeps plain data (names, numbers), so saves stay JSON; keys are compared as
        # text, so a scenario's `1:` or `"1":` and a rule's 1 are the same key. The kept entries
        # are found inline (`_counter_store` when they must be made again): most counters are read
        # many times between two writes.
        counters = state.counters
        cached = self._counter_cache.get(name)
        if (cached is not None and cached[0] is counters and cached[1] is counters.get(name)
                and cached[2] == state.counter_writes.get(name, 0)):
            # a plain value read before under this very key (of players, spaces, numbers) while
            # the entries stand: a hook reads one counter of each unit again for every sea zone
            read = cached[5]
            if len(key) == 1:
                a = key[0]
                plain_key = type(a) is EnumValue or type(a) is int
            else:
                plain_key = all(type(k) is EnumValue or type(k) is int for k in key)
            if plain_key:
                found = read.get(key, _NOT_READ)
                if found is not _NOT_READ:
                    return found
            store = cached[3]
        else:
            store = self._counter_store(name)
            read, plain_key = None, False
        if len(key) == 1:  # most keys are one player, space or unit id
            a = key[0]
            raw_key = (a.name if type(a) is EnumValue else str(a) if type(a) is int else counter_key(a),)
        else:
            raw_key = _text_key(key)
        raw = store.get(raw_key, _NOT_READ)
        if raw is not _NOT_READ:
            # an int, bool or text counter holding a value of its own type is read as it is (what
            # `convert_data` gives for it): most counters are numbers read in the rules' loops; an
            # enumeration counter's names (or none) are converted once each
            plain = self._counter_plain.get(name, False)
            if plain is False:
                plain = self._counter_plain[name] = _plain_reading(self.compiled.symbols[name].type)
            if plain is not None:
                if type(plain) is dict:
                    if raw is None or type(raw) is str:
                        found = plain.get(raw, _NOT_READ)
                        if found is _NOT_READ:
                            found = plain[raw] = self.compiled.convert_data(
                                raw, self.compiled.symbols[name].type, f"counter {name}")
                        if plain_key:
                            read[key] = found
                        return found
                elif type(raw) is plain:
                    if plain_key:
                        read[key] = raw
                    return raw
            units = self._unit_value_by_id if reader is None else reader.unit_value_by_id
            return self.compiled.convert_data(raw, self.compiled.symbols[name].type, f"counter {name}", units=units)
        # an unset entry: most are of counters whose default is a constant
        found = self.compiled.counter_constants.get(name, _NOT_READ)
        if found is not _NOT_READ:
            if plain_key:
                read[key] = found
            return found
        return self.compiled.counter_default(reader or self, name, key)

    def board_unit(self, uid: int):
        """The board's unit with this id, or None once it has left the board (without a game
        state, the board's refusal: E530)."""
        for unit in (self.state if self.state is not None else self.board.state).units:
            if unit.id == uid:
                return unit
        return None

    def _unit_value_by_id(self, uid: int):
        unit = self.board_unit(uid)
        return self.unit_value(unit) if unit is not None else None

    def _counter_store(self, name: str) -> dict:
        # kept until the counter is written (`GameState.counter_writes`) or the state's counters or
        # this counter's entries are replaced by other dicts (what-ifs, the exact odds' states),
        # not until any event: the hooks that read counters in loops write the board in between
        state = self.state
        counters = state.counters
        raw_store = counters.get(name)
        writes = state.counter_writes.get(name, 0)
        cached = self._counter_cache.get(name)
        if cached is not None and cached[0] is counters and cached[1] is raw_store and cached[2] == writes:
            return cached[3]
        store = {tuple(counter_key(k) for k in raw): v for raw, v in (raw_store or {}).items()}
        # whether every key the state holds is text already (then each is its own text key, and a
        # write through `set_counter` is made in the kept entries too, not by building them again)
        texts = all(type(raw) is tuple and all(type(k) is str for k in raw) for raw in (raw_store or ()))
        self._counter_cache[name] = (counters, raw_store, writes, store, texts, {})
        return store

    def set_counter(self, name: str, key: tuple, value) -> None:
        if self.state is not None:
            state = self.state
            raw_key, raw = _text_key(key), to_json(value)
            cached = self._counter_cache.get(name)
            counters = state.counters
            entries = counters.get(name)
            kept = (cached is not None and cached[4] and cached[0] is counters and cached[1] is entries
                    and entries is not None and cached[2] == state.counter_writes.get(name, 0))
            state.set_counter(name, raw_key, raw)
            if kept and counters.get(name) is entries:
                # the kept entries, written as the state's were (its keys are their own text keys)
                cached[3][raw_key] = raw
                self._counter_cache[name] = (counters, entries, state.counter_writes.get(name, 0), cached[3], True, {})
        else:
            self.counters.setdefault(name, {})[key] = value
            self.host.log("counter", name=name, key=[counter_key(k) for k in key], value=to_json(value))


# What a context hands out that no game changes: the program, its names and their values, and
# conversions between them (options are set before a game starts).
_UNCHANGING = frozenset({"compiled", "enums", "space_values", "player_values", "side_values", "unittype_values",
                         "options", "procedures", "space_value", "player_value", "spaces", "unit_value",
                         "values_of_units", "side_of", "side_members", "enemies_of", "unit_has_any_tag"})
# What a watched host hands out without noting a read: the step budget.
_HOST_BUDGET = frozenset({"steps", "budget", "spend", "out_of_budget"})


class WatchedContext:
    """An `EvalContext` seen through a watch, for answers a caller keeps across changes of the
    game: evaluated with this in place of the context, a rule's reads are noted. `counters_read`
    holds the counter entries it read, as (counter, key as text); `other` is true when it read anything else that may change (the
    board, the state, the battle, the dice ...). Closed world: whatever is not known to be
    unchanging counts as `other`, so an answer is never kept on a read this class does not know."""

    __slots__ = ("_ctx", "host", "counters_read", "other", "__weakref__")

    def __init__(self, ctx: EvalContext):
        object.__setattr__(self, "_ctx", ctx)
        object.__setattr__(self, "host", _WatchedHost(ctx.host, self))
        object.__setattr__(self, "counters_read", set())
        object.__setattr__(self, "other", False)

    def __getattr__(self, name):
        if name not in _UNCHANGING:
            object.__setattr__(self, "other", True)
        return getattr(self._ctx, name)

    def __setattr__(self, name, value):
        object.__setattr__(self, "other", True)
        setattr(self._ctx, name, value)

    def counter(self, name: str, key: tuple):
        """A counter's value, its entry noted as read."""
        self.counters_read.add((name, tuple(counter_key(k) for k in key)))
        return self._ctx.counter(name, key, reader=self)

    def unit_attribute(self, type_name: str, attr: str):
        return self._ctx.compiled.unit_attribute(self, type_name, attr)

    def space_attribute(self, space: str, attr: str):
        return self._ctx.compiled.space_attribute(self, space, attr)

    def unit_value_by_id(self, uid: int):
        """The unit with this id as a value (it reads the board: noted as `other`)."""
        object.__setattr__(self, "other", True)
        unit = self._ctx.board_unit(uid)
        return self._ctx.unit_value(unit) if unit is not None else None


class _WatchedHost:
    """A host whose dice, record and log count as reads of something that changes (`other`).

    It names its watch weakly: the watch holds it as its `host`, and a cycle would leave every
    watch made (one per answer a caller keeps: runtime/config.py `lasting`), with the context it
    holds, to the cyclic collector (a played game's context among them: `Game.close`)."""

    __slots__ = ("_host", "_watch")

    def __init__(self, host: Host, watch: WatchedContext):
        object.__setattr__(self, "_host", host)
        object.__setattr__(self, "_watch", weakref.ref(watch))

    def _note(self) -> None:
        watch = self._watch()
        if watch is not None:  # (a watch dropped has no reader left to tell)
            object.__setattr__(watch, "other", True)

    def __getattr__(self, name):
        if name not in _HOST_BUDGET:
            self._note()
        return getattr(self._host, name)

    def __setattr__(self, name, value):
        if name not in _HOST_BUDGET:
            self._note()
        setattr(self._host, name, value)
