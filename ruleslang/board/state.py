"""The mutable game state: control, units, factories, economies, counters and the event log.

A `GameState` is built from a scenario and changed only through its effect methods, each of
which appends one event (a JSON-ready dict) to `events` and bumps `version`, so that query
caches keyed on the version stay correct. Names passed to effects are canonical (the caller
resolves user text first); a bad argument raises `BoardError`, which the language turns into a
located diagnostic.

Turn records: `control_at_turn_start` and `factories_at_turn_start` (space -> factory owner, in
natural space order: the spaces that held a factory when the current turn began) are noted by
`start_turn` and by `from_scenario`. Factories standing when the scenario starts carry
`flags["original"] = True` (False for one the scenario gives as bought during play); `set_factory` keeps a factory's flags when it changes only its owner
or damage (a capture), not when it builds a new one.

Unit flags listed in `TURN_FLAGS` last one turn: `start_turn` clears them from the units of the
player whose turn begins (the movement engine's records; see ruleslang/runtime/movement.py).
"""

from __future__ import annotations

import copy as _copy
from collections import defaultdict
from bisect import bisect_left
from dataclasses import dataclass, field
from operator import attrgetter
from typing import Collection, Iterable

from ruleslang.board.mapdata import GameMap, natural_key
from ruleslang.board.scenario import Scenario

# Unit flags that describe what a unit did this turn (movement, battles, transport use); cleared
# from a player's units when its turn starts.
TURN_FLAGS = ("combat_moved", "in_battle", "bombing", "loaded_this_turn", "unloaded",
              "unloaded_to", "unloaded_in", "unloaded_from", "passed_combat", "passed_noncombat",
              "airborne_from", "airborne_lift")
_TURN_FLAG_SET = frozenset(TURN_FLAGS)


# Events that change no unit: queries of the units keep their answers across them
# (`GameState.quiet_changes`, board/queries.py).
UNITS_UNCHANGED = frozenset({"counter", "log", "treasury", "income"})
# Events after which the board holds the same units, each where it stood (they may have changed
# otherwise: hits, moves, flags, cargo, owner): readers keep their index of units by place across
# them (`GameState.places_kept`, board/queries.py).
UNITS_IN_PLACE = UNITS_UNCHANGED | frozenset({"control", "update_units", "owner", "factory", "phase", "round", "turn"})


class BoardError(Exception):
    """An effect asked for something the board cannot do (unknown space, unit or player)."""


@dataclass
class Unit:
    """One unit on the board. `moved` counts the steps it moved this turn; `cargo` holds unit ids."""

    id: int
    type: str
    owner: str
    space: str
    hits: int = 0
    moved: int = 0
    flags: dict = field(default_factory=dict)
    cargo: list[int] = field(default_factory=list)

    def to_json(self) -> dict:
        """The unit as plain data (for saves and events)."""
        return {"id": self.id, "type": self.type, "owner": self.owner, "space": self.space,
                "hits": self.hits, "moved": self.moved, "flags": dict(self.flags), "cargo": list(self.cargo)}


_UNIT_FIELDS = ("id", "type", "owner", "space", "hits", "moved", "flags", "cargo")
_ID = attrgetter("id")


def _without(units: list[Unit], named: list[Unit]) -> list[Unit]:
    """A new list of `units` less `named` (units of the list, each once), in their order: each
    found by its id where the list is in the order of the ids (as the board keeps it: new units
    come last, with the next ids) and the list copied less them (in C), else by a pass over it."""
    n = len(units)
    at = []
    for unit in named:
        i = bisect_left(units, unit.id, key=_ID)
        if i == n or units[i] is not unit:
            gone = {u.id for u in named}
            return [u for u in units if u.id not in gone]
        at.append(i)
    left = units.copy()
    for i in sorted(at, reverse=True):
        del left[i]
    return left


def _copy_units(units: list[Unit]) -> list[Unit]:
    """A deep copy of a list of units, as `copy.deepcopy` makes it, field by field: what-ifs copy
    the whole board, and deepcopy's generic walk was most of it. A list that is not plain units,
    one unit twice, or units sharing a flags dict or cargo list falls back to deepcopy (which keeps
    such sharing)."""
    out = []
    seen: set[int] = set()
    for u in units:
        if type(u) is not Unit or tuple(u.__dict__) != _UNIT_FIELDS or id(u) in seen \
                or id(u.flags) in seen or id(u.cargo) in seen:
            return _copy.deepcopy(units)
        seen.update((id(u), id(u.flags), id(u.cargo)))
        out.append(Unit(u.id, u.type, u.owner, u.space, u.hits, u.moved,
                        _copy_data(u.flags) if u.flags else {}, list(u.cargo)))
    return out


_ATOMS = frozenset({str, int, float, bool, type(None)})


class _NotPlain(Exception):
    """A value `_plain_copy` does not copy itself: `copy.deepcopy` copies it."""


# The state's caches of what its data already says (the units by id, the cargo counts, the units
# a turn's start resets): not data, so a copy of the board or a look-ahead's record of it leaves
# them out, and the copy makes its own.
CACHES = ("_unit_index", "_indexed", "_carried", "_grown", "_touched", "_touched_for")


def _start_turn_of(unit: Unit) -> None:
    """A unit's moves and turn flags reset as its owner's turn starts (`GameState.start_turn`)."""
    unit.moved = 0
    flags = unit.flags
    # (only the turn flags a unit has: most units have none or one or two of the twelve; the flags
    # left keep their order)
    if flags and not _TURN_FLAG_SET.isdisjoint(flags):
        for name in _TURN_FLAG_SET.intersection(flags):
            del flags[name]


def _copy_data(value):
    """`copy.deepcopy(value)`, made by hand when the value is plain data (dicts, lists and tuples
    of strings, numbers, booleans and None, and factories), without deepcopy's generic walk and
    memo: a board is copied for every battle an agent asks the exact chain about, and deepcopy
    was half of it. Anything else, or a dict or list found twice in the value (deepcopy keeps
    such sharing), is left to deepcopy."""
    try:
        return _plain_copy(value, set())
    except _NotPlain:
        return _copy.deepcopy(value)


def _plain_copy(value, seen: set[int]):
    t = type(value)
    if t in _ATOMS:
        return value
    if t is dict or t is list:
        if id(value) in seen:
            raise _NotPlain()
        seen.add(id(value))
        if t is list:
            return [v if type(v) in _ATOMS else _plain_copy(v, seen) for v in value]
        out = {}
        for k, v in value.items():
            if type(k) not in _ATOMS and _plain_copy(k, seen) is not k:
                raise _NotPlain()
            out[k] = v if type(v) in _ATOMS else _plain_copy(v, seen)
        return out
    if t is tuple:
        items = [_plain_copy(v, seen) for v in value]
        # deepcopy gives the tuple itself back when every item's copy is the item
        return value if all(a is b for a, b in zip(items, value)) else tuple(items)
    if t is Factory and tuple(value.__dict__) == _FACTORY_FIELDS:
        return Factory(value.space, value.owner, value.kind, value.damage, _plain_copy(value.flags, seen))
    raise _NotPlain()


@dataclass
class Factory:
    """A factory in a space: its owner, kind (None: the map's plain kind) and damage."""

    space: str
    owner: str
    kind: str | None = None
    damage: int = 0
    flags: dict = field(default_factory=dict)


_FACTORY_FIELDS = ("space", "owner", "kind", "damage", "flags")


class GameState:
    """Everything that changes during a game. See the module docstring for the rules of change."""

    # the ids the units' cargo lists hold, each with how many lists hold it, as (the list of units
    # it was worked out for, its length, {id: lists}), or None when not known: a removal of units
    # none of which is carried then leaves every cargo list as it is, without a pass over the
    # board (`remove_units`); a board made without `__init__` (a look-ahead's copy) has none
    _carried: tuple | None = None
    # (the list of units, and how many of its units the index by id holds) when units were only
    # added to that list since the index was made (`_place`): `_index` extends a copy of it
    _grown: tuple | None = None
    # owner -> the ids of its units whose moves or flags its turn's start may have to reset (the
    # effects that set them, `move_units` and `update_units`, note them, and `change_owner` notes
    # the units it gives under their new owner), and the list of units it was kept for:
    # `start_turn` looks at those alone, not at every unit of the board; None (a copy, or a list
    # of units replaced without an effect): not known, every unit looked at
    _touched: defaultdict[str, set[int]] | None = None
    _touched_for: list | None = None

    def __init__(self, game_map: GameMap):
        self.map = game_map
        self.round = 1
        self.current_player: str | None = None
        self.phase: str | None = None
        self.control: dict[str, str | None] = {s.name: None for s in game_map.spaces}
        self.control_at_turn_start: dict[str, str | None] = dict(self.control)
        self.units: list[Unit] = []
        self.factories: dict[str, Factory] = {}
        self.factories_at_turn_start: dict[str, str] = {}
        self.treasury: dict[str, dict[str, int]] = {
            p.name: {e: 0 for e in p.economies} for p in game_map.players}
        self.income_override: dict[str, int | None] = {p.name: None for p in game_map.players}
        self.income_override_by_economy: dict[str, dict[str, int]] = {p.name: {} for p in game_map.players}
        self.counters: dict[str, dict[tuple, object]] = {}
        # writes through `set_counter`, per counter: readers keep a counter's entries until it is
        # written (or `counters` or its entry is replaced by another dict)
        self.counter_writes: dict[str, int] = {}
        self.facts: dict[str, object] = {}
        self.options: dict[str, object] = {}
        self.events: list[dict] = []
        self.version = 0
        # how many of the version's steps were events in UNITS_UNCHANGED: when it rose by as much as
        # the version did, every change since was one of those (a change made otherwise steps the
        # version alone)
        self.quiet_changes = 0
        self.places_kept = 0  # the same for the events in UNITS_IN_PLACE
        self.next_unit_id = 1
        self._unit_index: dict[int, Unit] | None = None   # id -> unit, for the list `_indexed`
        self._indexed: list[Unit] | None = None

    # ---------------------------------------------------------------- building

    @classmethod
    def from_scenario(cls, scenario: Scenario) -> "GameState":
        """The state a scenario describes. Unit ids follow the map's space order, then its
        player order, then the order unit types are written: the same scenario always gives
        the same ids."""
        game_map = scenario.map
        state = cls(game_map)
        if scenario.turn is not None:
            state.round, state.current_player, state.phase = scenario.turn.round, scenario.turn.player, scenario.turn.phase
        for space, owner in game_map.start.control.items():
            state.control[space] = owner
        state.control.update(scenario.control)
        state.control_at_turn_start = dict(state.control)
        empty = scenario.setup == "empty"
        placed = {} if empty else dict(game_map.start.units)
        placed.update(scenario.units)
        players = game_map.player_names()
        for space in game_map.space_names():
            by_player = placed.get(space, {})
            for player in players:
                for unit_type, count in by_player.get(player, {}).items():
                    state._place(space, unit_type, player, count)
        factories = {} if empty else dict(game_map.start.factories)
        factories.update(scenario.factories)
        for space in game_map.space_names():
            info = factories.get(space)
            if info is not None:
                state.factories[space] = Factory(space, info.owner, info.kind, info.damage, {"original": info.original})
        state._note_factories()
        for player, amounts in game_map.start.treasury.items():
            state.treasury[player].update(amounts)
        for player, figures in scenario.economy.items():
            state.treasury[player].update(figures.treasury)
            state.income_override[player] = figures.income_total
            state.income_override_by_economy[player] = dict(figures.income)
        for name, values in game_map.start.counters.items():
            state.counters[name] = dict(values)
        for name, values in scenario.counters.items():
            state.counters[name] = dict(values)
        state.facts = _copy.deepcopy(dict(scenario.facts))
        state.options = {name: located.value for name, located in scenario.options.items()}
        return state

    def _place(self, space: str, unit_type: str, owner: str, count: int) -> list[Unit]:
        made = [Unit(self.next_unit_id + i, unit_type, owner, space) for i in range(count)]
        self.next_unit_id += count
        carried = self._carried_now()
        units, by_id, grown = self.units, self._unit_index, self._grown
        if by_id is None or self._indexed is not units:
            self._unit_index = None
        elif len(by_id) == len(units):
            # the index stands for the units before these: it is extended when next read (`_index`)
            self._grown = (units, len(units))
        elif grown is None or grown[0] is not units or grown[1] != len(by_id):
            self._unit_index = None
        units.extend(made)
        if carried is not None:  # (new units carry nothing)
            self._carried = (units, len(units), carried)
        return made

    def _note_factories(self) -> None:
        self.factories_at_turn_start = {
            space: self.factories[space].owner for space in sorted(self.factories, key=natural_key)}

    def copy(self, *, events: bool = True) -> "GameState":
        """A deep copy sharing only the (read-only) map: for what-if evaluation. `events=False`:
        the copy starts with an empty event log (a what-if that does not read the game's past
        need not copy all of it)."""
        return self._copy_with(_copy_units(self.units), events)

    def copy_sharing(self, spaces: Collection[str], shared: Collection[str] = ()) -> "GameState":
        """A copy as `copy(events=False)` makes it, except that the units outside `spaces` are this
        state's own objects, not copies: for a what-if that changes no unit but those of `spaces`
        (the exact battle odds make a board for every battle an agent asks about, all from one
        copy of the board, and copying every unit was most of it). The caller must change no other
        unit (their list is the copy's own: units may come and go). The fields named in `shared`
        (`control`, `counters`, ...) are this state's own too: the caller changes none of them in
        place (it may give the copy a new value)."""
        units = list(self.units)
        at = [i for i, u in enumerate(units) if u.space in spaces]  # (one pass over the board's units)
        for i, copied in zip(at, _copy_units([units[i] for i in at])):
            units[i] = copied
        return self._copy_with(units, False, shared)

    def _copy_with(self, units: list[Unit], events: bool, shared: Collection[str] = ()) -> "GameState":
        """A copy of the state with these units, its other fields deep-copied (`copy`) but those
        named in `shared`."""
        clone = _copy.copy(self)
        skip = ("units", "map", *CACHES)
        for name, value in vars(self).items():
            if name not in skip and (events or name != "events") and name not in shared:
                setattr(clone, name, _copy_data(value))
        carried = self._carried_now()
        clone.units = units
        # (the copy's units carry what these do: the counts are never changed in place, only replaced)
        clone._carried = (units, len(units), carried) if carried is not None and len(units) == len(self.units) else None
        if not events:
            clone.events = []
        clone._unit_index = clone._indexed = clone._grown = clone._touched = clone._touched_for = None
        return clone

    # ---------------------------------------------------------------- checks

    def _space(self, space: str) -> str:
        if not self.map.has_space(space):
            raise BoardError(f"unknown space '{space}'")
        return space

    def _player(self, player: str | None, *, allow_none: bool = False) -> str | None:
        if player is None and allow_none:
            return None
        if player is None or not self.map.has_player(player):
            raise BoardError(f"unknown player '{player}'")
        return player

    def _economy(self, player: str, economy: str | None) -> str:
        economies = self.map.player(player).economies
        if economy is None:
            return economies[0]
        if economy not in economies:
            raise BoardError(f"'{player}' has no economy '{economy}' (its economies: {', '.join(economies)})")
        return economy

    def set_units(self, units: list[Unit], index: dict[int, Unit]) -> None:
        """Replace the board's units with `units`, whose index by id the caller gives (the exact
        battle odds put each battle state on a board whose other units stay, and keep the index
        from one state to the next rather than make it again). The state reads `index` and never
        changes it; one that does not match `units` in size is made again (`_index`)."""
        self.units = units
        self._unit_index, self._indexed, self._grown = index, units, None
        self.version += 1

    def _index(self) -> dict[int, Unit]:
        by_id = self._unit_index
        units = self.units
        if by_id is None or self._indexed is not units or len(by_id) != len(units):
            # rebuilt when units come or go (or the list is replaced): moves change units in place
            grown = self._grown
            if by_id is not None and grown is not None and grown[0] is units and grown[1] == len(by_id) \
                    and self._indexed is units:
                # units were only added to the list since the index was made (`_place`, about 50
                # times a game after a placement): a copy of it (made in C) with the new units, not
                # an index made again from every unit; a new dict, since the old one may be held
                by_id = by_id.copy()
                added = units[grown[1]:]
                by_id.update(zip(map(_ID, added), added))
            else:
                by_id = {u.id: u for u in units}
            self._unit_index, self._indexed, self._grown = by_id, units, None
        return by_id

    def unit_index(self) -> dict[int, Unit]:
        """The board's units by id: the state's own index, kept until units come or go (read it, do
        not change it)."""
        return self._index()

    def unit_or_none(self, unit_id: int) -> Unit | None:
        """The unit with this id, or None when none is on the board."""
        by_id = self._unit_index
        # (asked about 6,000 times a game, nearly always of a standing index: its test in line)
        if by_id is None or self._indexed is not self.units or len(by_id) != len(self.units):
            by_id = self._index()
        return by_id.get(unit_id)

    def _units_by_id(self, ids: Iterable[int]) -> list[Unit]:
        """The units with these ids, each once, in the order first named."""
        by_id = self._index()
        # (most calls name a few units once each, all on the board: looked up at once, the
        # duplicates and missing ids checked only where the look-up or the count says so)
        named = ids if type(ids) is list else list(ids)
        try:
            units = [by_id[i] for i in named]
        except KeyError:
            units = None
        if units is None or (len(named) > 1 and len(set(named)) != len(named)):
            wanted = list(dict.fromkeys(named))
            missing = [i for i in wanted if i not in by_id]
            if missing:
                raise BoardError(f"no unit with id {missing[0]} is on the board")
            units = [by_id[i] for i in wanted]
        return units

    def placement_mark(self) -> tuple:
        """A mark of where the board's units stand now: `stand_as(mark)` is true while no unit has
        moved, come or gone since (the version's steps that were not events in UNITS_IN_PLACE, on
        the same list of units)."""
        return (self.version - self.places_kept, self.units)

    def stand_as(self, mark: tuple | None) -> bool:
        """Whether every unit surely stands as it did at `mark` (`placement_mark`; None: not known)."""
        return mark is not None and mark[1] is self.units and mark[0] == self.version - self.places_kept

    def _record(self, event_kind: str, **data) -> dict:
        event = {"kind": event_kind, **data}
        self.events.append(event)
        self.version += 1
        if event_kind in UNITS_IN_PLACE:
            self.places_kept += 1
            if event_kind in UNITS_UNCHANGED:
                self.quiet_changes += 1
        return event

    def unit(self, unit_id: int) -> Unit:
        """The unit with this id (BoardError when there is none)."""
        return self._units_by_id([unit_id])[0]

    # ---------------------------------------------------------------- effects

    def set_control(self, space: str, player: str | None) -> None:
        """Give control of a land territory to a player (or to no one)."""
        self._space(space)
        self._player(player, allow_none=True)
        if self.map.space(space).kind == "sea":
            raise BoardError(f"'{space}' is a sea zone; only land territories are controlled")
        before = self.control.get(space)
        self.control[space] = player
        self._record("control", space=space, before=before, after=player)

    def change_treasury(self, player: str, amount: int, economy: str | None = None) -> int:
        """Add `amount` (negative to take) to a player's treasury; returns the new figure."""
        self._player(player)
        economy = self._economy(player, economy)
        self.treasury[player][economy] += amount
        after = self.treasury[player][economy]
        self._record("treasury", player=player, economy=economy, amount=amount, after=after)
        return after

    def set_income(self, player: str, amount: int | None, economy: str | None = None) -> None:
        """State a player's income figure (None: none stated, the rulesets' income formula decides)."""
        self._player(player)
        if economy is None:
            self.income_override[player] = amount
        else:
            economy = self._economy(player, economy)
            if amount is None:
                self.income_override_by_economy[player].pop(economy, None)
            else:
                self.income_override_by_economy[player][economy] = amount
        self._record("income", player=player, economy=economy, amount=amount)

    def add_units(self, space: str, unit_type: str, owner: str, count: int = 1) -> list[Unit]:
        """Put `count` new units on the board; they get the next free ids."""
        self._space(space)
        self._player(owner)
        if count < 0:
            raise BoardError(f"cannot add {count} units")
        made = self._place(space, unit_type, owner, count)
        self._record("add_units", space=space, unit_type=unit_type, owner=owner, ids=[u.id for u in made])
        return made

    def remove_units(self, ids: Iterable[int]) -> None:
        """Take units off the board (they leave any cargo list they were in)."""
        named = self._units_by_id(ids)
        gone = {u.id for u in named}
        by_id = self._unit_index  # (the list's own: `_units_by_id` has just made or checked it)
        carried = self._carried_now()
        units = _without(self.units, named)
        if carried is None or not gone.isdisjoint(carried) or any(u.cargo for u in named):
            # a unit gone may be in a cargo list, or carries some: every cargo list looked at, and
            # what they hold counted again
            carried = {}
            for unit in units:
                cargo = unit.cargo
                if cargo:
                    if not gone.isdisjoint(cargo):
                        unit.cargo = cargo = [i for i in cargo if i not in gone]
                    for i in cargo:
                        carried[i] = carried.get(i, 0) + 1
        # (else no cargo list holds a unit gone: they are all as they were, and so are their counts)
        if self._touched_for is self.units:
            self._touched_for = units  # (the units left are as they were: what was noted of them holds)
        self.units = units
        self._carried = (units, len(units), carried)
        # the index of the units left: the old one copied (in C) less the units gone, not made again
        # from every unit of the board (a casualty's removal is followed by a look-up by id); a new
        # dict, since the old one may be held by whoever asked `unit_index()`
        index = by_id.copy()
        for uid in gone:
            del index[uid]
        self._unit_index, self._indexed = index, self.units
        self._record("remove_units", ids=sorted(gone))

    def _carried_now(self) -> dict[int, int] | None:
        """The counts of `_carried` when they hold for the board's list of units as it is, else None."""
        carried = self._carried
        if carried is None or carried[0] is not self.units or carried[1] != len(self.units):
            return None
        return carried[2]

    def move_units(self, ids: Iterable[int], to_space: str, steps: int = 0, *, path: Iterable[str] | None = None,
                   flags: dict | None = None, onto: int | None = None, off: int | None = None,
                   carrier_flags: dict | None = None, trail: str | None = None) -> None:
        """Move units (and the cargo they carry) to a space, as one event.

        `steps` is added to `moved` of the units named (cargo riding along spends none of its
        own). Optional: `path` (the spaces passed, start first, recorded in the event), `flags`
        set on the units named, `onto` a unit whose cargo they join (boarding), `off` a unit
        whose cargo they leave (going ashore), `carrier_flags` set on that `onto` / `off` unit,
        and `trail`, a flag of the units named whose list the spaces entered (`path` after its
        start) are appended to.
        """
        if not self.map.has_space(to_space):  # (`_space`'s test in line: asked for every move of a game)
            self._space(to_space)
        # (most moves are of one unit on the board without cargo: its list is the unit named, its
        # origin one; the look-up of its id in the standing index in line)
        by_id = self._unit_index
        one = None
        if ((type(ids) is tuple or type(ids) is list) and len(ids) == 1 and by_id is not None
                and self._indexed is self.units and len(by_id) == len(self.units)):
            one = by_id.get(ids[0])
        named = [one] if one is not None else self._units_by_id(ids)
        carrier = None if onto is None and off is None else self.unit(onto if onto is not None else off)
        carried = one.cargo if one is not None else [i for u in named for i in u.cargo]
        moving = named + [u for u in self._units_by_id(carried) if u not in named] if carried else named
        origins = [moving[0].space] if len(moving) == 1 else sorted({u.space for u in moving})
        for unit in moving:
            unit.space = to_space
        path = list(path) if path is not None else None  # (the event's own list)
        entered = path[1:] if path is not None else [to_space]
        touched = self._touched
        for unit in named:
            unit.moved += steps
            if touched is not None:
                touched[unit.owner].add(unit.id)
            unit_flags = unit.flags
            if flags:
                unit_flags.update(flags)
            if trail is not None:  # (a new list for each unit: one is never changed in place)
                unit_flags[trail] = [*unit_flags.get(trail, ()), *entered]
        if carrier is not None:
            named_ids = [u.id for u in named]
            carried = self._carried_now()
            if onto is not None:
                changed = [i for i in named_ids if i not in carrier.cargo]
                carrier.cargo.extend(changed)
            else:
                changed = [i for i in carrier.cargo if i in named_ids]
                carrier.cargo = [i for i in carrier.cargo if i not in named_ids]
            if carried is not None:  # the counts of the ids the carrier took on or let off, made anew
                carried = dict(carried)
                for i in changed:
                    carried[i] = carried.get(i, 0) + (1 if onto is not None else -1)
                    if not carried[i]:
                        del carried[i]
                self._carried = (self.units, len(self.units), carried)
            if carrier_flags:
                carrier.flags.update(carrier_flags)
                if touched is not None:
                    touched[carrier.owner].add(carrier.id)
        extra = {}
        if path is not None:
            extra["path"] = path
        if flags:
            extra["flags"] = dict(flags)
        if onto is not None:
            extra["onto"] = onto
        if off is not None:
            extra["off"] = off
        if carrier_flags:
            extra["carrier_flags"] = dict(carrier_flags)
        self._record("move_units", ids=[u.id for u in moving], origins=origins, to=to_space, steps=steps, **extra)

    def update_units(self, ids: Iterable[int], *, hits: int | None = None, moved: int | None = None,
                     cargo: list[int] | None = None, **flags) -> None:
        """Set fields of units: hits taken, steps moved, cargo, and named flags."""
        units = self._units_by_id(ids)
        if cargo is not None:
            self._units_by_id(cargo)
            self._carried = None  # (cargo lists change: counted again by the next removal)
        for unit in units:
            if hits is not None:
                unit.hits = hits
            if moved is not None:
                unit.moved = moved
            if cargo is not None:
                unit.cargo = list(cargo)
            unit.flags.update(flags)
        touched = self._touched
        if touched is not None and (moved is not None or flags):
            for unit in units:
                touched[unit.owner].add(unit.id)
        changes = {k: v for k, v in (("hits", hits), ("moved", moved), ("cargo", cargo)) if v is not None}
        self._record("update_units", ids=[u.id for u in units], **changes, flags=dict(flags))

    def change_owner(self, ids: Iterable[int], owner: str) -> None:
        """Give units to another player (units captured with their territory)."""
        self._player(owner)
        units = self._units_by_id(ids)
        for unit in units:
            unit.owner = owner
        if self._touched is not None:  # (what the units carry is reset at their new owner's turn)
            self._touched[owner].update(u.id for u in units)
        self._record("owner", ids=[u.id for u in units], owner=owner)

    def set_factory(self, space: str, owner: str | None, kind: str | None = None, damage: int = 0) -> None:
        """Build, capture, damage or (with owner None) remove the factory of a space."""
        self._space(space)
        self._player(owner, allow_none=True)
        before = self.factories.get(space)
        if owner is None:
            self.factories.pop(space, None)
        else:
            kind = kind if kind is not None else (before.kind if before else None)
            kept = dict(before.flags) if before is not None and before.kind == kind else {}
            self.factories[space] = Factory(space, owner, kind, damage, kept)
        self._record("factory", space=space, before=before.owner if before else None, after=owner,
                     factory_kind=kind, damage=damage)

    def set_counter(self, name: str, key: tuple, value: object) -> None:
        """Set one entry of a named counter."""
        key = tuple(key)
        before = self.counters.get(name, {}).get(key)
        self.counters.setdefault(name, {})[key] = value
        self.counter_writes[name] = self.counter_writes.get(name, 0) + 1
        self._record("counter", name=name, key=list(key), before=before, after=value)

    def log(self, message: str, **data) -> None:
        """Record a message (and any data) in the event log."""
        self._record("log", message=message, **data)

    def set_phase(self, phase: str | None) -> None:
        """Enter a phase (None: between phases)."""
        self.phase = phase
        self._record("phase", phase=phase, player=self.current_player, round=self.round)

    def start_round(self, number: int) -> None:
        """Begin round `number`."""
        self.round = number
        self._record("round", round=number)

    def start_turn(self, player: str) -> None:
        """Make `player` current, note control and factories at the start of the turn, reset its
        units' moves and clear their `TURN_FLAGS`."""
        self._player(player)
        self.current_player = player
        self.control_at_turn_start = dict(self.control)
        self._note_factories()
        units = self.units
        touched = self._touched
        if touched is None or self._touched_for is not units:
            # every unit looked at once; then noted: the units of other players that moved or
            # have flags (the others' moves are 0 and they have no turn flag)
            touched = self._touched = defaultdict(set)
            self._touched_for = units
            for unit in units:
                if unit.owner == player:
                    _start_turn_of(unit)
                elif unit.moved or unit.flags:
                    touched[unit.owner].add(unit.id)
        else:
            # the player's units noted since (a tenth of the board's in a turn): those still on
            # the board and still its own reset (one given away is noted under its new owner)
            noted = touched.pop(player, None)
            if noted:
                by_id = self._index()
                for uid in noted:
                    unit = by_id.get(uid)
                    if unit is not None and unit.owner == player:
                        _start_turn_of(unit)
        self._record("turn", player=player, round=self.round)
