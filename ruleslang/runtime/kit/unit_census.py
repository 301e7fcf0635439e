"""The board's units by kind (unit type and owner), kept across a game's movement engines.

Every movement engine begins with a pass over the board's units (kit/movement.py `_rebuild`):
each unit's rules, the player's own units, its side's, and where each enemy kind stands. A
player's turn makes two engines, and a game about a hundred, each over the same couple of
hundred units, of which few came, went, changed hands or moved since the last engine: a census
kept for the game (`KitState.unit_census`) is brought up to date from the board's events since
it was last read, so that an engine's pass is made by kind, not by unit (`_pass_by_kind`).

It keeps, for the game: each kind's units; each owner's units in the order of their ids; each
unit's rules (`rules`: by kind, as an engine last gave them: `give_rules`); and where each kind's
units stand, found again for a kind once one of its units moved, came or went (`spaces`). Equal
rules of a kind in two move phases are one object (`same_rules`), so that the next engine finds
them given already.

It holds while the board's units change only through the state's effects, each an event
(board/state.py): `add_units`, `remove_units` and `owner` bring, take or give units, and
`move_units` moves them; every other event leaves each unit's kind, place and presence as they
were. A board whose events are not a list (a look-ahead's copy keeps none), whose event list was
replaced or whose count of units does not match after the events is counted again; one whose
units are not in the order of their ids is not kept (the engine makes its own pass).
"""

from __future__ import annotations

from itertools import compress
from operator import attrgetter, itemgetter

from ruleslang.board.state import GameState, Unit
from ruleslang.runtime.kit.movement_rules import UnitRules

_CHANGES_UNITS = frozenset({"add_units", "remove_units", "owner", "move_units"})
space_of = attrgetter("space")
kind_of_event = itemgetter("kind")

Kind = tuple[str, str]  # (unit type, owner)


class UnitCensus:
    """The units of one game's board by kind, brought up to date from its events (`holds`)."""

    def __init__(self) -> None:
        self.kinds: dict[Kind, dict[int, Unit]] = {}  # kind -> id -> unit
        self.rules: dict[int, UnitRules] = {}  # id -> its kind's rules (`given`), for the kinds given
        self.given: dict[Kind, UnitRules] = {}  # kind -> the rules `rules` holds for its units
        self._kind_of: dict[int, Kind] = {}
        self._owned: dict[str, dict[int, Unit]] = {}  # owner -> id -> unit
        self._unsorted: set[str] = set()  # owners given a unit since their units were put in id order
        self._spaces: dict[Kind, set[str]] = {}  # where a kind's units stand, while none of them moved
        self._same: dict[UnitRules, UnitRules] = {}
        self._events: list | None = None  # the event list read, and how far
        self._seen = 0
        self._units: list[Unit] | None = None  # the board's list of units when last read
        self._refused: list | None = None  # an event list whose board is not counted (units not by id)

    def holds(self, state: GameState) -> bool:
        """Bring the census up to date with `state`'s board; False when it cannot be kept for it
        (then the caller makes its own pass over the board's units)."""
        events = state.events
        if type(events) is not list or events is self._refused:
            return False
        if events is not self._events or len(events) < self._seen:
            return self._count(state)
        if len(events) > self._seen:
            if not self._follow(state, events):
                return self._count(state)
        elif state.units is not self._units:  # a list of units replaced without an event
            return self._count(state)
        return True

    def owned(self, owner: str) -> list[Unit]:
        """The owner's units, by id (a new list)."""
        units = self._owned.get(owner)
        if units is None:
            return []
        if owner in self._unsorted:
            self._unsorted.discard(owner)
            units = self._owned[owner] = dict(sorted(units.items()))
        return list(units.values())

    def spaces(self, kind: Kind) -> set[str]:
        """The spaces the kind's units stand in (kept: read it, never change it)."""
        found = self._spaces.get(kind)
        if found is None:
            found = self._spaces[kind] = set(map(space_of, self.kinds[kind].values()))
        return found

    def give_rules(self, changes: list[tuple[Kind, UnitRules]]) -> dict[int, UnitRules]:
        """Have `rules` hold each change's rules for its kind's units; the table is made anew (an
        engine made earlier reads the one it was given), and returned."""
        table = self.rules = dict(self.rules)
        for kind, rules in changes:
            table.update(dict.fromkeys(self.kinds[kind], rules))
            self.given[kind] = rules
        return table

    def same_rules(self, rules: UnitRules) -> UnitRules:
        """`rules`, or the equal rules given here before (one object for equal rules: the move
        phases' settings give each kind its rules apart)."""
        return self._same.setdefault(rules, rules)

    def _follow(self, state: GameState, events: list) -> bool:
        """Apply the events since the last read; False when the board does not match the result."""
        kind_of, rules, spaces = self._kind_of, self.rules, self._spaces
        replaced = False  # whether an event made a new list of units (a removal does)
        by_id = None
        new = events[self._seen:]  # (a slice: `islice` would step through the events before)
        # the events that change units, picked out in C (most events are of phases, decisions, logs)
        for event in compress(new, map(_CHANGES_UNITS.__contains__, map(kind_of_event, new))):
            change = event["kind"]
            if change == "move_units":
                for uid in event["ids"]:
                    kind = kind_of.get(uid)
                    if kind is not None:
                        spaces.pop(kind, None)
            elif change == "remove_units":
                replaced = True
                for uid in event["ids"]:
                    kind = kind_of.pop(uid, None)
                    if kind is not None:  # (None: a unit brought and taken away since the last read)
                        self._leave(uid, kind)
                        rules.pop(uid, None)
            elif change == "owner":
                new_owner = event["owner"]
                for uid in event["ids"]:
                    kind = kind_of.get(uid)
                    if kind is None:
                        continue
                    unit = self._leave(uid, kind)
                    kind = kind_of[uid] = (kind[0], new_owner)
                    self._enter(unit, kind)
                    self._unsorted.add(new_owner)
            else:  # "add_units": the units as they stand now (those gone again since are skipped)
                if by_id is None:
                    by_id = state.unit_index()
                kind = (event["unit_type"], event["owner"])
                for uid in event["ids"]:
                    unit = by_id.get(uid)
                    if unit is not None:
                        kind_of[uid] = kind
                        self._enter(unit, kind)
        if len(kind_of) != len(state.units) or (state.units is not self._units and not replaced):
            return False
        self._seen, self._units = len(events), state.units
        return True

    def _leave(self, uid: int, kind: Kind) -> Unit:
        """A unit that went from the board or from its owner: taken out of its kind's and owner's
        lists (a kind left without units is dropped); returned."""
        members = self.kinds[kind]
        unit = members.pop(uid)
        if not members:
            del self.kinds[kind]
        del self._owned[kind[1]][uid]
        self._spaces.pop(kind, None)
        return unit

    def _enter(self, unit: Unit, kind: Kind) -> None:
        """A unit that came to the board or to this owner: listed under its kind and owner, its
        rules those given for its kind."""
        members = self.kinds.get(kind)
        if members is None:
            members = self.kinds[kind] = {}
        members[unit.id] = unit
        self._spaces.pop(kind, None)
        of_owner = self._owned.get(kind[1])
        if of_owner is None:
            of_owner = self._owned[kind[1]] = {}
        of_owner[unit.id] = unit
        rules = self.given.get(kind)
        if rules is not None:  # (else the next engine gives the kind's units their rules)
            self.rules[unit.id] = rules

    def _count(self, state: GameState) -> bool:
        """The census made from the board's units (False, and not kept, when they are not in the
        order of their ids: the engine's lists of units are in the board's order)."""
        units = state.units
        if any(later.id <= earlier.id for earlier, later in zip(units, units[1:])):
            self._refused, self._events = state.events, None
            return False
        self.kinds, self._kind_of, self._owned, self._unsorted = {}, {}, {}, set()
        self.rules, self.given, self._spaces = {}, {}, {}
        kind_of, enter = self._kind_of, self._enter
        for unit in units:
            kind = kind_of[unit.id] = (unit.type, unit.owner)
            enter(unit, kind)
        self._events, self._seen, self._units = state.events, len(state.events), units
        return True
