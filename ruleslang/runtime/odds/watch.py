"""What a battle step read of the battle's state, so that its transition is shared between states.

A step's statements run deterministically but for their dice, whose outcomes the chain follows
all; so two states that agree on everything the step read give the same transition. While a
step runs, the evaluation context it sees is a `StepWatch`: the battle, the board and the
counters are handed out through views that note what was read, as *aspects* of the state:

- `("units", side)`: the side's units as `battle_units(side)` gives them (in order; not which of
  them are this round's casualties, which it does not tell, nor their hits);
- `("units of:TYPE,...", side)`: those of them of these types (`battle_units(side, tag: g)`: the
  types that have the tag), as `units`;
- `("hits", side)`: the hits taken by those units (read as `u.hits`);
- `("standing", side)`: the side's units that outlive the round (its casualties left out);
- `("any_standing", side)`: whether the side has such units at all;
- `("origins", "attacker")`: where the attacking units came from (the retreat options read it);
- `("full", side)`: everything of the side's units (read by an effect on them: a `hit`, a
  `submerge`, a `retreat`, which look at and change the casualties of the round);
- `ROUND`: the battle's round (the first, or one after it);
- `EVERYTHING`: anything else that may differ between states (the board's units, a counter, the
  battle's lists, an estimate of the chance to win ...).

Closed world, as `WatchedContext` (lang/eval/context.py): whatever the watch does not know to be
the same in every state of the battle counts as `EVERYTHING`, so a transition is never shared on
a read this module does not know. The rest of the board does not change in the chain (a step
that changes it is refused), so what only depends on it (who holds a space, its neighbours, the
players) is not noted. A watch that records the reads outside the battle (`RecordingWatch`)
notes a read of the units in one space by those there outside the battle, with their fields
(`_RecordedBoardView.units_in`); the whole board's units are still `EVERYTHING`.
"""

from __future__ import annotations

from bisect import bisect_right
from functools import lru_cache
from operator import attrgetter, itemgetter
from typing import Any

from ruleslang.lang.values import EnumValue, UnitValue
from ruleslang.runtime.odds.shared import MISSING, units_outside

_put = object.__setattr__  # a watch's slots set past its own `__setattr__`, which notes a read

EVERYTHING = ("everything",)
ROUND = ("round", "")
# A counter keyed by no unit (a player's technology, say), read as a plain value: its value is the
# board's or one the battle wrote, and every state's key holds what the battle wrote (its counters),
# so a projection (which always holds them) tells it. Shared as such by the transitions kept under
# the projection, but otherwise taken as `EVERYTHING` (an effect deferred before it, a step's
# effect on the factored round, the hits made by one side: runtime/odds/factors.py, makings.py).
COUNTERS = ("counters", "")
WHOLE_READS = (EVERYTHING, COUNTERS)  # the reads that end a factored round (`BattleFactors._effect`)

# What an evaluation context hands out that is the same in every state of the chain's battle: the
# program and its values, and the decisions (answered by advice evaluated through the watch).
_CONTEXT_SAME = frozenset({
    "compiled", "enums", "space_values", "player_values", "side_values", "unittype_values", "options",
    "procedures", "space_value", "player_value", "spaces", "side_of", "side_members",
    "enemies_of", "unit_has_any_tag", "unit_attribute", "space_attribute", "facts", "collector", "running",
    "contested_spaces", "runtime_procedures"})
# What a battle hands out that is the same in every state of the chain's battle.
_BATTLE_SAME = frozenset({"space", "attacker", "defender", "kind", "amphibious", "rules", "support",
                          "support_units", "side_of_unit"})
# Of those, what tells one battle site from another (runtime/odds/shared.py) but for its sides'
# players: a view that notes the site (`SiteNotedView`) notes a read of these.
_SITE = frozenset({"space", "kind", "amphibious", "support", "support_units"})
# What the board hands out that does not change while the chain runs (no step may change the
# board outside the battle's units and counters).
_BOARD_SAME = frozenset({
    "players", "turn_order", "spaces", "known_controller", "known_controller_at_turn_start",
    "known_original_owner", "known_is_land", "known_is_sea", "controller", "controller_at_turn_start",
    "original_owner", "is_land", "is_sea", "attribute", "neighbours", "distance", "within", "cached_connected",
    "connected", "canals", "factories", "stated_income", "treasury", "side_of", "allies", "enemies",
    "is_friendly", "current_player", "round", "map"})
# What a host hands out without a read: the step budget.
_HOST_SAME = frozenset({"steps", "budget", "spend", "out_of_budget", "reset_budget"})


class NotDeferred(Exception):
    """A step whose effects cannot wait (Chain's deferred runs): it reads what an effect it deferred
    changes, or has an effect other than a `hit`. The chain then runs it as it is."""


class Reads(set):
    """The aspects a step read; `log`, when a list, also gets each read as it is noted (what one
    part of the step read: `Chain.remember`); `dirty`, when a set, the aspects that effects deferred
    so far change: reading one of them (or everything) is `NotDeferred`."""

    __slots__ = ("log", "dirty")

    def __init__(self):
        super().__init__()
        self.log = None
        self.dirty = None

    def add(self, aspect) -> None:
        if self.dirty and (aspect in self.dirty or aspect in WHOLE_READS or coarse(aspect) in self.dirty):
            raise NotDeferred(aspect)
        if self.log is not None:
            self.log.append(aspect)
        set.add(self, aspect)

    def update(self, aspects) -> None:
        aspects = tuple(aspects)
        if self.dirty and any(a in self.dirty or a in WHOLE_READS or coarse(a) in self.dirty for a in aspects):
            raise NotDeferred(aspects)
        if self.log is not None:
            self.log.extend(aspects)
        set.update(self, aspects)


def coarse(aspect: tuple) -> tuple:
    """The aspect that holds `aspect` (a part of a side's units is in its units, whether it has
    standing units in which they are): what an effect that changes the one changes."""
    kind = aspect[0]
    if kind == "any_standing":
        return ("standing", aspect[1])
    if kind.startswith(UNITS_OF):
        return ("units", aspect[1])
    return aspect


def changed_by(hit) -> frozenset:
    """The aspects a deferred `hit` may change (of either side: its units are not read yet)."""
    return _CHANGED_NOW if hit.now else _CHANGED


_CHANGED = frozenset((kind, side) for kind in ("full", "hits", "standing") for side in ("attacker", "defender"))
_CHANGED_NOW = _CHANGED | {("units", side) for side in ("attacker", "defender")}


class StepWatch:
    """An `EvalContext` seen through a watch while one battle step runs: `reads` collects the
    aspects of the battle's state the step read (module docstring)."""

    __slots__ = ("_ctx", "reads", "battle", "board", "host", "_battle", "_sides", "deferring", "_units",
                 "unit_has_any_tag", "_counters", "_outside")

    def __init__(self, ctx, battle, deferring: bool = False, each=None, counters: bool = False, outside=None,
                 site: bool = False):
        put = _put  # (this class's own `__setattr__` notes a read: its slots are set past it)
        put(self, "_ctx", ctx)
        put(self, "_counters", counters)  # a counter keyed by no unit may be `COUNTERS`
        put(self, "deferring", deferring)  # effects other than `hit` are NotDeferred
        # the units as the rules saw them, by id: while effects are deferred no unit changes
        put(self, "_units", {} if deferring else None)
        # the same in every state (the program's tags of a unit type); asked often, so not looked up
        put(self, "unit_has_any_tag", ctx.unit_has_any_tag)
        reads = Reads()
        put(self, "reads", reads)
        put(self, "_battle", battle)
        put(self, "_sides", None)
        # (`site`: a view that notes whether the step read the battle's site, `SiteNotedView`)
        put(self, "battle", (SiteNotedView if site else BattleView)(battle, reads, deferring, each))
        # `outside`, when given (a `BoardReads`: the chain's transitions are shared with other
        # chains, runtime/odds/shared.py), notes what the step read of the board outside the battle
        put(self, "_outside", outside)
        put(self, "board", _BoardView(ctx.board, reads) if outside is None else
            _RecordedBoardView(ctx.board, reads, outside, ctx.game.base_index))
        put(self, "host", _HostView(ctx.host, reads))

    def __getattr__(self, name):
        if name not in _CONTEXT_SAME:
            self.reads.add(EVERYTHING)
        return getattr(self._ctx, name)

    def __setattr__(self, name, value):
        self.reads.add(EVERYTHING)
        setattr(self._ctx, name, value)

    def unit_value(self, unit) -> UnitValue:
        """A unit as the rules see it; a unit of the battle notes a read of its hits when they are read."""
        kept = self._units
        if kept is not None:
            found = kept.get(unit.id)
            if found is not None:
                return found
        sides = self._sides
        if sides is None:
            battle = self._battle
            sides = {uid: "defender" for uid in battle.defending}
            sides.update((uid, "attacker") for uid in battle.attacking)
            object.__setattr__(self, "_sides", sides)
        side = sides.get(unit.id)
        if side is None:
            value = self._ctx.unit_value(unit)
        else:
            value = self._ctx.unit_value(unit, _WatchedUnit)
            value._aspect, value._reads = _HITS[side], self.reads
        if kept is not None:
            kept[unit.id] = value
        return value

    def values_of_units(self, units) -> tuple:
        """`unit_value` of each unit, in their order (each made here: a battle's unit notes a read
        of its hits)."""
        return tuple(map(self.unit_value, units))

    def log(self, kind: str, **data) -> None:
        """A message: the chain's states do not keep the game's log (nothing reads a state's
        events: `_materialize` starts each with none), so it is not written."""

    def decide(self, *args, **kwargs):
        """A `choose`: answered by the chain (its advice is evaluated through this watch)."""
        return self._ctx.decide(*args, **kwargs)

    def counter(self, name: str, key: tuple, reader=None):
        """A counter's value: one keyed by no unit and read as a plain value is `COUNTERS` (its
        default, if it has no value, is evaluated through this watch); any other is a read of
        everything (a counter keyed by a unit of the battle is in that unit's record)."""
        if not self._counters or not all(type(part) in _NO_UNIT for part in key):
            self.reads.add(EVERYTHING)
            return self._ctx.counter(name, key, reader)
        self.reads.add(COUNTERS)
        value = self._ctx.counter(name, key, reader or self)
        if type(value) not in _PLAIN_VALUES:
            self.reads.add(EVERYTHING)
        return value

    def set_counter(self, name: str, key: tuple, value) -> None:
        if self.deferring:
            raise NotDeferred("set_counter")
        self.reads.add(EVERYTHING)
        self._ctx.set_counter(name, key, value)


class _WatchedUnit(UnitValue):
    """A unit of the battle as a watched step sees it: reading its hits is a read of its side's hits
    (`_aspect`, noted in `_reads`: both set once it is made, `StepWatch.unit_value`)."""

    __slots__ = ("_aspect", "_reads")

    def _hits(self) -> int:
        self._reads.add(self._aspect)
        return UnitValue.hits.__get__(self)

    def _set_hits(self, value: int) -> None:
        UnitValue.hits.__set__(self, value)

    hits = property(_hits, _set_hits)


class _View:
    """Something of the game seen through a watch: what is not in `_same` is a read of everything."""

    __slots__ = ("_inner", "_reads")
    _same: frozenset = frozenset()

    def __init__(self, inner, reads: set):
        _put(self, "_inner", inner)
        _put(self, "_reads", reads)

    def __getattr__(self, name):
        if name not in self._same:
            self._reads.add(EVERYTHING)
        return getattr(self._inner, name)


class BattleView(_View):
    """The battle as a watched step sees it: which sides' units it read, and how. Deferring
    effects, a `submerge` or `retreat` is `NotDeferred`. `each`: handed to every `hit` it makes
    (`Battle.hit`: told as each casualty has taken its hit)."""

    __slots__ = ("_deferring", "_each")
    _same = _BATTLE_SAME

    def __init__(self, inner, reads: set, deferring: bool = False, each=None):
        self._inner, self._reads, self._deferring, self._each = inner, reads, deferring, each

    @property
    def round(self):
        self._reads.add(ROUND)
        return self._inner.round

    def units(self, side: str) -> list:
        self._reads.add(("units", side))
        return self._inner.units(side)

    def tagged_units(self, side: str, tag: str) -> list:
        self._reads.add((_units_of(self._inner.game.ctx.compiled.unit_tags, tag), side))
        return self._inner.tagged_units(side, tag)

    def standing(self, side: str) -> list:
        self._reads.add(("standing", side))
        return self._inner.standing(side)

    def retreat_options(self) -> list[str]:
        # `Battle.retreat_options` notes what it looks at (the sides' standing units, where the
        # attackers came from); its settings are evaluated through the watch (the chain hands it
        # the watch)
        return self._inner.retreat_options(note=lambda kind, side: self._reads.add((kind, side)))

    def _full(self, unit_ids) -> None:
        attacking = self._inner.attacking  # (`Battle.side_of_unit` in line: asked of every unit hit)
        for side in {"attacker" if uid in attacking else "defender" for uid in unit_ids}:
            self._reads.add(("full", side))

    def hit(self, ctx, count: int, unit_ids: list[int], chooser: str, now: bool) -> None:
        if self._deferring:
            raise NotDeferred("hit")
        self._full(unit_ids)
        self._inner.hit(ctx, count, unit_ids, chooser, now, self._each)

    def submerge(self, ctx, unit_ids: list[int]) -> None:
        if self._deferring:
            raise NotDeferred("submerge")
        self._full(unit_ids)
        self._inner.submerge(ctx, unit_ids)

    def retreat(self, ctx, to: str) -> None:
        if self._deferring:
            raise NotDeferred("retreat")
        self._reads.update((("full", "attacker"), ("standing", "defender"), ("origins", "attacker")))
        self._inner.retreat(ctx, to)


class SiteNotedView(BattleView):
    """A `BattleView` that also notes whether the step read the battle's site (`site_read`): its
    space, kind, whether it is an assault, the ships supporting it (`_SITE`), which every state of
    a chain shares and a plain view hands out without a read. What is shared across sites (the
    hits made for every count, runtime/odds/makings.py) must have read none of it."""

    __slots__ = ("site_read",)

    def __init__(self, inner, reads: set, deferring: bool = False, each=None):
        BattleView.__init__(self, inner, reads, deferring, each)
        self.site_read = False


def _site_property(name: str) -> property:
    """A property of `SiteNotedView` that hands out the battle's `name`, noting a read of the site."""
    def read(view):
        view.site_read = True
        return getattr(view._inner, name)
    return property(read)


for _name in _SITE:
    setattr(SiteNotedView, _name, _site_property(_name))


class _BoardView(_View):
    """The board as a watched step sees it: its units (the battle's among them) and counters are
    reads of everything."""

    __slots__ = ()
    _same = _BOARD_SAME

    @property
    def state(self):
        # the compiled board queries read the state straight (`BoardQueries.known_controller(board,
        # ...)`): who holds a space is the same in every state of the battle, its units are not
        return _StateView(self._inner.state, self._reads)


class _StateView(_View):
    """The board's state as a watched step sees it (through a compiled board query): who holds
    each space (now and at the turn's start) and the map are the same in every state of the
    battle; anything else is a read of everything."""

    __slots__ = ()
    _same = frozenset({"control", "control_at_turn_start", "map"})


class _HostView(_View):
    """The host as a watched step sees it: its step budget only (its dice are the chain's).
    `spend`, called by every statement and call a step runs, is the host's own, bound once."""

    __slots__ = ("spend",)
    _same = _HOST_SAME

    def __init__(self, inner, reads: set):
        _put(self, "_inner", inner)
        _put(self, "_reads", reads)
        _put(self, "spend", inner.spend)

    def __setattr__(self, name, value):
        if name not in _HOST_SAME:
            self._reads.add(EVERYTHING)
        setattr(self._inner, name, value)


class RecordingWatch(StepWatch):
    """A `StepWatch` that also notes what the step read of the board outside the battle and of the
    context that may differ from one chain's board to another's (the game's facts and options),
    in `outside` (a `BoardReads`): the chain's transitions are shared with other chains of the
    battle whose boards answer those reads the same (runtime/odds/shared.py)."""

    __slots__ = ()

    def counter(self, name: str, key: tuple, reader=None):
        """`StepWatch.counter`, noting the board's entries of the counter as read."""
        self._outside.note_counter(name)
        return StepWatch.counter(self, name, key, reader)

    def unit_attribute(self, type_name: str, attr: str):
        # evaluated through this watch (a computed attribute's reads are noted), not the context's
        return self._ctx.compiled.unit_attribute(self, type_name, attr)

    def space_attribute(self, space: str, attr: str):
        return self._ctx.compiled.space_attribute(self, space, attr)

    @property
    def facts(self):
        value = self._ctx.facts
        self._outside.note(("context", "facts"), value)
        return value

    @property
    def options(self):
        value = self._ctx.options
        self._outside.note(("context", "options"), value)
        return value


class _RecordedView(_View):
    """A view whose reads outside the battle are also noted, in `outside` (a `BoardReads`)."""

    __slots__ = ("_outside",)

    def __init__(self, inner, reads: set, outside):
        _put(self, "_inner", inner)
        _put(self, "_reads", reads)
        _put(self, "_outside", outside)


class _RecordedBoardView(_RecordedView):
    """The board as a watched step sees it when its reads outside the battle are noted
    (`RecordingWatch`): a query the board answers the same in every state of the chain
    (`_BOARD_SAME`) is noted with its arguments and answer; its state's maps of who holds each
    space by the spaces asked (`_RecordedMap`); the units in a space by those of them outside the
    battle (`units_in`); anything else is a read of everything."""

    __slots__ = ("_base",)

    def __init__(self, inner, reads: set, outside, base: dict):
        _RecordedView.__init__(self, inner, reads, outside)
        _put(self, "_base", base)  # the chain's units of the board outside the battle, by id

    def unit_answers(self) -> dict:
        """A memo of answers from the board's units for one question alone: the board's own would
        answer a later question without asking `units_in`, so without noting its read."""
        return {}

    def units_in(self, space: str) -> list:
        """The units in `space` (the board's `units_in`), noted by those of them outside the battle
        (shared.py `units_outside`): the rest are the battle's units of the state the step runs."""
        self._outside.note(("units in", space), units_outside(self._inner, self._base, space))
        return self._inner.units_in(space)

    def __getattr__(self, name):
        value = getattr(self._inner, name)
        if name not in _BOARD_SAME:
            self._reads.add(EVERYTHING)
        elif callable(value):
            return self._outside.call("query", name, value)
        else:
            self._outside.note(("value", name), value)
        return value

    @property
    def state(self):
        return _RecordedStateView(self._inner.state, self._reads, self._outside)


class _RecordedStateView(_RecordedView):
    """The board's state as `_RecordedBoardView` hands it out: who holds each space (now and at the
    turn's start) read space by space (`_RecordedMap`), the map as it is; anything else is a read
    of everything."""

    __slots__ = ()
    _same = frozenset({"map"})

    @property
    def control(self):
        return _RecordedMap(self._inner.control, "control", self._outside)

    @property
    def control_at_turn_start(self):
        return _RecordedMap(self._inner.control_at_turn_start, "control_at_turn_start", self._outside)


class _RecordedMap:
    """A map of the board's state (space -> who holds it) whose reads are noted space by space, or
    whole when it is gone through (`BoardReads`)."""

    __slots__ = ("_inner", "_name", "_outside")

    def __init__(self, inner: dict, name: str, outside):
        self._inner, self._name, self._outside = inner, name, outside

    def _read(self, space):
        """Who holds `space` (MISSING: no one), noted as read."""
        value = self._inner.get(space, MISSING)
        self._outside.note(("map", self._name, space), value)
        return value

    def get(self, space, default=None):
        value = self._read(space)
        return default if value is MISSING else value

    def __getitem__(self, space):
        value = self._read(space)
        if value is MISSING:
            raise KeyError(space)
        return value

    def __contains__(self, space) -> bool:
        return self._read(space) is not MISSING

    def _whole(self) -> dict:
        self._outside.note(("whole map", self._name), self._inner)
        return self._inner

    def __iter__(self):
        return iter(self._whole())

    def __len__(self) -> int:
        return len(self._whole())

    def items(self):
        return self._whole().items()

    def keys(self):
        return self._whole().keys()

    def values(self):
        return self._whole().values()


def _pass_through(cls, inner: str, names: frozenset) -> None:
    """Give `cls`, a watch over the object in its attribute `inner`, a property for each of `names`
    that it hands out without noting a read (its `_same`), but those the class has: found on the
    class, not by `__getattr__`, which runs only after a failed lookup (the step budget, `steps`
    and `spend` of the host, is read by every statement and call a step runs)."""
    for name in names:
        if not hasattr(cls, name):
            setattr(cls, name, property(attrgetter(f"{inner}.{name}")))


_pass_through(StepWatch, "_ctx", _CONTEXT_SAME)
for _cls in (BattleView, _BoardView, _StateView, _HostView):
    _pass_through(_cls, "_inner", _cls._same)


def side_part(rows: tuple, kind: str) -> Any:
    """What aspect `kind` names of one side's records `rows` (two states whose sides show the same
    of the aspects a step read are the same to it: the chain's `_project`)."""
    # (tuples of lists rather than of generators: the same values, made faster)
    if kind == "full":
        return rows
    if kind == "units":
        return tuple([r[:4] + r[6:] for r in rows if r[5] != SUBMERGED])
    if kind == "hits":
        return tuple([r[4] for r in rows if r[5] != SUBMERGED])
    if kind == "standing":
        return tuple([r[:5] + r[6:] for r in rows if r[5] == FIGHTING])
    if kind == "any_standing":
        return any(r[5] == FIGHTING for r in rows)
    if kind.startswith(UNITS_OF):
        types = _types_of(kind)
        return tuple([r[:4] + r[6:] for r in rows if r[5] != SUBMERGED and r[2] in types])
    return tuple(sorted({r[6] for r in rows}))  # origins ("" for none)


UNITS_OF = "units of:"  # an aspect kind: the side's units of the types it lists
_KINDS: dict[tuple, tuple] = {}  # (the program's tags of types, a tag) -> (those tags, the aspect kind)


def _units_of(unit_tags: dict, tag: str) -> str:
    """The aspect kind of the units with `tag` (`unit_tags`: each unit type's tags)."""
    found = _KINDS.get((id(unit_tags), tag))
    if found is None or found[0] is not unit_tags:
        found = _KINDS[(id(unit_tags), tag)] = (unit_tags, UNITS_OF + ",".join(
            sorted(t for t, tags in unit_tags.items() if tag in tags)))
    return found[1]


@lru_cache(maxsize=None)
def _types_of(kind: str) -> frozenset:
    return frozenset(t for t in kind[len(UNITS_OF):].split(",") if t)


_NO_UNIT = frozenset({EnumValue, bool})  # counter key parts that name no unit (an id is a number)
_PLAIN_VALUES = frozenset({int, bool, float, str, type(None), EnumValue})  # counter values that name no unit
_side = itemgetter(0)  # a record's side
_HITS = {side: ("hits", side) for side in ("attacker", "defender")}  # the aspect of a side's units' hits

# a unit's status in a state's record (its sixth field)
FIGHTING, PENDING, SUBMERGED = 0, 1, 2


def split_of(records: tuple) -> int:
    """Where the defenders' records begin (records are sorted, the attacker's first)."""
    return bisect_right(records, "attacker", key=_side)
