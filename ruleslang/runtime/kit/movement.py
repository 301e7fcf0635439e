"""The movement engine: where a player's units may go in combat and non-combat move.

Generic over any map and any unit types: everything a rule document says about a unit comes in
through `MovementRules` (one `UnitRules` per unit type and owner, and who is allied with whom),
which the runtime builds from the rulesets. The engine reads a `GameState` and changes it only
through its effects (`move_units`, and the `capture` callback for territories taken by a blitz).

    engine = MovementEngine(state, rules, player, "combat")     # or "noncombat"
    engine.legal_moves()            single-unit moves, loads and unloads, in a fixed order
    engine.destinations(unit_id)    space -> one shortest legal path, for kind "move"
    engine.check(move)              why a move is illegal ([] when it is legal)
    engine.apply(move)              one `move_units` event (plus any blitz captures)
    engine.contested()              after combat move: where battles must be fought
    engine.bombing_raids()          where units moved with kind "bomb" raid a factory
    engine.stranded_air()           after non-combat move: air units with nowhere to land

The rules (Axis & Allies Revised, stated generically):

- Movement points. A unit moves at most `movement` spaces per turn in all (`Unit.moved` counts
  them; `GameState.start_turn` resets it). A unit that moved in combat move does not move in
  non-combat move, and neither does one that ended a combat move in a battle space; air units
  are the exception: they use what movement they have left to land.
- Domains. Land units enter land territories only (water only aboard a transport), sea units
  sea zones only, air units any space. Impassable spaces are never entered nor flown over.
- Hostile and friendly. A territory is friendly when its controller is the player or an ally;
  any other territory (an enemy's, or no one's) is hostile. Enemy units are units of players not
  allied with the mover.
- Combat move, land. Entering a hostile territory or a space holding enemy units ends the move
  there (an attack). A unit with `can_blitz` may pass through a hostile territory holding no
  enemy units and go on; it takes control as it passes (the `capture` callback, by default
  `set_control`). Among the shortest paths to a space, the one passing fewest hostile
  territories is chosen. Moves to friendly spaces are also legal in combat move (as on TripleA);
  `is_battle_space` tells an agent which destinations are attacks.
- Non-combat move. Land and sea units never enter a hostile territory nor end in a space holding
  enemy units; air units may fly over anything but must end where they can land.
- Sea. A sea zone holding enemy units whose `blocks` is true stops sea movement: in combat move
  the move ends there (a sea battle), in non-combat move it may not be entered. Enemy units that
  do not block (`blocks` false) may be passed.
- Canals (`GameMap.canals`). A canal names sea zones and land territories; it adds no adjacency
  (the map's adjacency already joins its sea zones) but restricts it: a sea unit may step
  directly between two of its sea zones only when every one of its land territories is
  controlled by the mover or an ally at the start of the move. Land and air units ignore canals.
- Air, combat move. An air unit may end anywhere it reaches (an attack on a space with enemy
  units, a flight over an empty hostile territory, or a friendly space), or with kind "bomb" (a
  unit with `can_bomb`) in a territory held by an enemy player that has a factory: a
  strategic bombing raid. It must keep enough movement to land afterwards: its movement left at
  the end of the move must be at least the air distance to the nearest landing space, i.e. a
  territory its side held at the start of the turn and still holds, without enemy units, or a
  sea zone where carriers of its side have room for it (its `carrier_cost` against their
  `carrier_capacity` less the `carrier_cost` of the air units of the side already there).
- Air, non-combat move: it must end in such a landing space (a carrier zone without enemy
  units). At the end of non-combat move, `stranded_air` lists the player's air units with no
  landing where they stand (the runtime removes them). On a crowded carrier zone, allied air
  units keep their places first, then the player's by id.
- Transports. `load` (path: territory, sea zone) puts land units with `transport_cost` > 0 and
  movement left aboard one of the player's transports in a bordering sea zone, within
  `transport_capacity` less the cargo's costs; the zone must not hold enemy blocking units.
  Loading spends one movement point and ends the unit's own movement for the turn except for
  unloading. A moving transport carries its cargo. `unload` (path: sea zone, territory) puts
  cargo ashore in a bordering territory: in combat move any territory (a hostile one is an
  amphibious assault and becomes contested), in non-combat move a friendly one without enemy
  units; never from a sea zone holding enemy units. All the cargo a transport unloads in a turn
  goes to one territory, in one phase, and a transport that has unloaded does not move again
  that turn nor take on cargo.
- Units with `moves_in_combat` false do not move (nor load or unload) in combat move.
- Contested spaces (after combat move): every space where the player's units stand together with
  enemy units (units on a bombing raid aside), and every hostile territory where the player's land
  units stand. Territories only blitzed through were taken and are not contested.

Unit flags the engine sets (all in `state.TURN_FLAGS`, cleared when the owner's turn starts):

    combat_moved      the unit moved, loaded or unloaded in combat move
    in_battle         it ended a combat move in a battle space; the battle procedure may set it
                      on every unit that fought. No further move this turn (air: only to land).
    bombing           it moved with kind "bomb": it raids the factory where it stands
    loaded_this_turn  a land unit that went aboard this turn
    unloaded          cargo that went ashore this turn (it moves no further)
    unloaded_from     on cargo that went ashore: the transport it came from
    passed_combat, passed_noncombat
                      the spaces the unit entered in that phase's moves, in order
    unloaded_to       on a transport: the territory its cargo went to this turn
    unloaded_in       on a transport: the phase ("combat" / "noncombat") it unloaded in

Not supported (a move needing them is refused, or the situation is not recognised): air units
riding a carrier as cargo (each flies on its own; a carrier leaving a zone leaves them there, an
ally's air units too, which must then land in their owner's turn or be stranded);
carriers counting as landing spaces where they will be after a later move (move the carrier
first); units that ignore blocking enemies; loading allied land units, or loading onto an ally's
transport; unloading from a sea zone where a sea battle must first be fought; a territory
holding only enemy units that cannot fight is still defended (it stops a blitz and is
contested); liberation and factory capture on a blitz unless the runtime's `capture` callback
does them; canals open by control at the start of the turn (control at the start of the move
decides); placement-turn carriers as landing spaces.

Every output is deterministic: units by id, spaces in the map's natural order.
"""

from __future__ import annotations

import functools
from collections import deque
from dataclasses import dataclass
from typing import Callable

from ruleslang.board.mapdata import Canal, GameMap, natural_sorted
from ruleslang.board.queries import map_graph
from ruleslang.board.state import GameState, Unit

COMBAT = "combat"
NONCOMBAT = "noncombat"
PHASES = (COMBAT, NONCOMBAT)
DOMAINS = ("land", "sea", "air")
KINDS = ("move", "load", "unload", "bomb")


@dataclass(frozen=True)
class UnitRules:
    """What the rulesets say about one unit type (for one owner), resolved once per phase."""

    movement: int
    domain: str            # "land", "sea" or "air"
    can_blitz: bool        # may pass through an empty hostile territory in combat move, taking it
    blocks: bool           # an enemy unit of this kind stops sea movement
    transport_capacity: int = 0
    transport_cost: int = 0   # room it takes on a transport; 0 = cannot be carried
    carrier_capacity: int = 0
    carrier_cost: int = 0     # room it takes on a carrier; 0 = cannot land on one
    can_bomb: bool = False    # may make a strategic bombing raid on an enemy factory
    moves_in_combat: bool = True   # False: moves only in non-combat move

    def __post_init__(self) -> None:
        if self.domain not in DOMAINS:
            raise ValueError(f"a unit's domain is 'land', 'sea' or 'air', not '{self.domain}'")


class MovementRules:
    """The rule-specific facts movement needs, as callables the runtime builds from the rulesets.

    `unit_rules(unit_type, owner)` gives a `UnitRules`; `allied(a, b)` tells whether two players
    are on the same side (a player is always allied with itself). `capture(state, space, player)`,
    when given, is called for every territory a blitz passes through (default: `set_control`);
    the runtime passes its capture procedure so that liberation and factories follow its rules.
    Answers are cached: build a new `MovementRules` when the rulesets' answers may change.
    """

    def __init__(self, unit_rules: Callable[[str, str], UnitRules], allied: Callable[[str, str], bool],
                 capture: Callable[[GameState, str, str], None] | None = None):
        self._unit_rules = unit_rules
        self._allied = allied
        self.capture = capture
        self._rules_cache: dict[tuple[str, str], UnitRules] = {}
        self._allied_cache: dict[tuple[str, str], bool] = {}

    def unit_rules(self, unit_type: str, owner: str) -> UnitRules:
        """The rules of a unit type for an owner (cached)."""
        key = (unit_type, owner)
        found = self._rules_cache.get(key)
        if found is None:
            found = self._unit_rules(unit_type, owner)
            if not isinstance(found, UnitRules):
                raise TypeError(f"unit_rules('{unit_type}', '{owner}') gave {type(found).__name__}, not UnitRules")
            self._rules_cache[key] = found
        return found

    def allied(self, a: str, b: str) -> bool:
        """True when `a` and `b` are the same player or allies (cached)."""
        if a == b:
            return True
        key = (a, b)
        found = self._allied_cache.get(key)
        if found is None:
            found = self._allied_cache[key] = bool(self._allied(a, b))
        return found


@dataclass(frozen=True)
class Move:
    """Units moving together along a path (first space: where they are; last: where they end).

    `kind` is "move", "load" (land units onto `transport`: path = (territory, sea zone)),
    "unload" (from `transport`: path = (sea zone, territory)) or "bomb" (a strategic bombing raid).
    Cargo rides along with its transport implicitly.
    """

    units: tuple[int, ...]
    path: tuple[str, ...]
    kind: str = "move"
    transport: int | None = None

    def __post_init__(self) -> None:
        if type(self.units) is not tuple:
            object.__setattr__(self, "units", tuple(self.units))
        if type(self.path) is not tuple:
            object.__setattr__(self, "path", tuple(self.path))

    def to_json(self) -> dict:
        """The move as plain data (for logs and saves)."""
        data = {"units": list(self.units), "path": list(self.path), "kind": self.kind}
        if self.transport is not None:
            data["transport"] = self.transport
        return data


# ---------------------------------------------------------------- the map, precomputed once


class _Board:
    """Adjacency of one map split by kind of move, canal steps, natural order: computed once."""

    def __init__(self, game_map: GameMap):
        self.map = game_map
        names = natural_sorted(game_map.space_names())
        self.order = {name: i for i, name in enumerate(names)}
        infos = {s.name: s for s in game_map.spaces}
        self.is_sea = {name: info.kind == "sea" for name, info in infos.items()}
        self.passable = {name: not info.impassable for name, info in infos.items()}
        self.adjacent = {name: frozenset(game_map.neighbours(name)) for name in names}
        self.land: dict[str, tuple[str, ...]] = {}
        self.sea: dict[str, tuple[str, ...]] = {}
        self.air: dict[str, tuple[str, ...]] = {}
        for name in names:
            around = tuple(n for n in game_map.neighbours(name) if self.passable[n])
            self.air[name] = around
            self.land[name] = tuple(n for n in around if not self.is_sea[n])
            self.sea[name] = tuple(n for n in around if self.is_sea[n])
        self.land_spaces = tuple(n for n in names if not self.is_sea[n] and self.passable[n])
        self.canal_steps: dict[tuple[str, str], tuple[Canal, ...]] = {}
        for canal in game_map.canals:
            for a in canal.sea_zones:
                for b in canal.sea_zones:
                    if a != b and b in self.adjacent.get(a, ()):
                        self.canal_steps[(a, b)] = self.canal_steps.get((a, b), ()) + (canal,)
        self.graph = map_graph(game_map)
        self._air: dict[tuple[str, int], tuple[tuple[str, int], ...]] = {}
        self._air_paths: dict[str, dict[str, tuple[str, ...]]] = {}

    def air_reach(self, start: str, left: int) -> tuple[tuple[str, int], ...]:
        """(space, air distance) for every space 1 to `left` steps from `start` by air, natural order."""
        key = (start, left)
        found = self._air.get(key)
        if found is None:
            distances = self.graph.distances(start, "all")
            found = tuple(sorted(((s, d) for s, d in distances.items() if 0 < d <= left),
                                 key=lambda x: self.order[x[0]]))
            self._air[key] = found
        return found

    def air_path(self, start: str, end: str) -> tuple[str, ...]:
        """One shortest air path (walking back through the first neighbour, in natural order, one
        step nearer the start)."""
        paths = self._air_paths.setdefault(start, {})
        found = paths.get(end)
        if found is None:
            distances = self.graph.distances(start, "all")
            path = [end]
            here = end
            while here != start:
                d = distances[here]
                here = next(n for n in self.map.neighbours(here) if distances.get(n) == d - 1)
                path.append(here)
            found = paths[end] = tuple(reversed(path))
        return found


@functools.lru_cache(maxsize=16)
def _board(game_map: GameMap) -> _Board:
    return _Board(game_map)


def _name(unit: Unit) -> str:
    return f"{unit.type} {unit.id}"


# ---------------------------------------------------------------- the engine


class MovementEngine:
    """Legal moves of one player in one movement phase ("combat" or "noncombat"); see the module
    docstring for the rules. Queries are cached until the state changes; the engine's own moves
    update its caches in place."""

    def __init__(self, state: GameState, rules: MovementRules, player: str, phase: str):
        if phase not in PHASES:
            raise ValueError(f"a movement phase is 'combat' or 'noncombat', not '{phase}'")
        if not state.map.has_player(player):
            raise ValueError(f"unknown player '{player}'")
        self.state = state
        self.rules = rules
        self.player = player
        self.phase = phase
        self.combat = phase == COMBAT
        self.board = _board(state.map)
        self._ally = {p: rules.allied(player, p) for p in state.map.player_names()}
        self._version: int | None = None

    # ---------------------------------------------------------------- caches

    def _sync(self) -> None:
        if self._version != self.state.version:
            self._rebuild()

    def _rebuild(self) -> None:
        state = self.state
        self._by_id = {u.id: u for u in state.units}
        lookup = self.rules.unit_rules
        self._ur = {u.id: lookup(u.type, u.owner) for u in state.units}
        self._mine = sorted((u for u in state.units if u.owner == self.player), key=lambda u: u.id)
        self._my_air = [u.id for u in self._mine if self._ur[u.id].domain == "air"]
        enemy: set[str] = set()
        blocking: set[str] = set()
        for unit in state.units:
            if not self._ally.get(unit.owner, False):
                enemy.add(unit.space)
                if self._ur[unit.id].blocks:
                    blocking.add(unit.space)
        self._enemy = enemy
        self._blocking = blocking
        self._canal_open: dict[str, str | None] = {}
        self._reach: dict[tuple, dict[str, tuple[str, ...]]] = {}
        self._lists: dict[int, list[Move]] | None = None   # unit id -> its "move"/"bomb" moves
        self._dirty: set[int] = set()                      # ids whose list must be remade
        self._transfers: tuple[list[Move], list[Move]] | None = None   # (loads, unloads)
        self._reset_air()
        self._version = state.version

    def _reset_air(self) -> None:
        self._room: dict[str, int] | None = None
        self._landing_cache: dict[int, dict[str, tuple[int, str]]] = {}
        self._air_reach: dict[tuple, dict[str, tuple[str, ...]]] = {}

    def _rules(self, unit: Unit) -> UnitRules:
        return self._ur[unit.id]

    def _unit(self, unit_id: int) -> Unit:
        self._sync()
        unit = self._by_id.get(unit_id)
        if unit is None:
            raise ValueError(f"no unit with id {unit_id} is on the board")
        return unit

    # ---------------------------------------------------------------- board facts

    def _friendly(self, space: str) -> bool:
        holder = self.state.control.get(space)
        return holder is not None and self._ally.get(holder, False)

    def _friendly_since_start(self, space: str) -> bool:
        holder = self.state.control_at_turn_start.get(space)
        return holder is not None and self._ally.get(holder, False) and self._friendly(space)

    def _enemy_player(self, space: str) -> bool:
        holder = self.state.control.get(space)
        return holder is not None and not self._ally.get(holder, False)

    def _holder(self, space: str) -> str:
        holder = self.state.control.get(space)
        return holder if holder is not None else "no one"

    def _closed_by(self, a: str, b: str) -> tuple[Canal, str] | None:
        """The first closed canal on the sea step a -> b, with a territory that closes it."""
        for canal in self.board.canal_steps.get((a, b), ()):
            if canal.name not in self._canal_open:
                self._canal_open[canal.name] = next((t for t in canal.land if not self._friendly(t)), None)
            closing = self._canal_open[canal.name]
            if closing is not None:
                return canal, closing
        return None

    def is_battle_space(self, space: str, domain: str = "land") -> bool:
        """True when a unit of `domain` ending a combat move in `space` attacks: the space holds
        enemy units, or (land units) it is a hostile territory."""
        self._sync()
        if space in self._enemy:
            return True
        return domain == "land" and not self.board.is_sea[space] and not self._friendly(space)

    def _rooms(self) -> dict[str, int]:
        """Room left on the carriers of the player's side, per sea zone that has such carriers."""
        if self._room is None:
            capacity: dict[str, int] = {}
            used: dict[str, int] = {}
            is_sea = self.board.is_sea
            for unit in self.state.units:
                if not is_sea.get(unit.space) or not self._ally.get(unit.owner, False):
                    continue
                rules = self._rules(unit)
                if rules.carrier_capacity:
                    capacity[unit.space] = capacity.get(unit.space, 0) + rules.carrier_capacity
                if rules.domain == "air" and rules.carrier_cost:
                    used[unit.space] = used.get(unit.space, 0) + rules.carrier_cost
            self._room = {zone: capacity[zone] - used.get(zone, 0) for zone in capacity}
        return self._room

    def _landing(self, cost: int) -> dict[str, tuple[int, str]]:
        """For every space: (air distance, nearest landing space) for an air unit of this
        carrier cost (multi-source breadth-first search from every landing space)."""
        found = self._landing_cache.get(cost)
        if found is not None:
            return found
        spots = [s for s in self.board.land_spaces if s not in self._enemy and self._friendly_since_start(s)]
        if cost > 0:
            spots += [z for z, room in self._rooms().items()
                      if room >= cost and (self.combat or z not in self._enemy)]
            spots.sort(key=self.board.order.__getitem__)
        found = {s: (0, s) for s in spots}
        queue = deque(spots)
        air = self.board.air
        while queue:
            here = queue.popleft()
            d, source = found[here]
            d += 1
            for there in air[here]:
                if there not in found:
                    found[there] = (d, source)
                    queue.append(there)
        self._landing_cache[cost] = found
        return found

    def _own_place(self, unit: Unit, rules: UnitRules) -> dict[str, int] | None:
        """Air distances to the unit's own place on a carrier where it stands now (free once it
        has left), when that place is not already a landing space for it; else None."""
        cost = rules.carrier_cost
        start = unit.space
        if cost > 0 and self.board.is_sea[start] and (self.combat or start not in self._enemy):
            room = self._rooms().get(start)
            if room is not None and 0 <= room < cost:
                return self.board.graph.distances(start, "all")
        return None

    def _landing_distance(self, unit: Unit, rules: UnitRules, space: str) -> tuple[int, str] | None:
        """(distance, landing space) from `space` to the nearest landing space for this unit."""
        best = self._landing(rules.carrier_cost).get(space)
        own = self._own_place(unit, rules)
        if own is not None:
            d = own.get(space)
            if d is not None and (best is None or d < best[0]):
                best = (d, unit.space)
        return best

    def _landing_problem(self, unit: Unit, rules: UnitRules, space: str) -> str | None:
        """Why an air unit cannot end a non-combat move in `space` (None: it can land there)."""
        if space in self._enemy:
            return "it holds enemy units"
        if not self.board.is_sea[space]:
            if not self._friendly(space):
                return f"it is held by {self._holder(space)}"
            if not self._friendly_since_start(space):
                return "its side did not hold it when the turn started"
            return None
        if rules.carrier_cost <= 0:
            return "it cannot land on a carrier"
        room = self._rooms().get(space)
        if room is None:
            return "no carrier of its side is there"
        if unit.space == space:
            room += rules.carrier_cost
        need = rules.carrier_cost
        if room < need:
            return f"the carriers there have room for {max(room, 0)}, not {need}"
        return None

    # ---------------------------------------------------------------- who may move

    def _blocked(self, unit: Unit, rules: UnitRules) -> str | None:
        """Why a unit cannot make a "move" this phase (None: it may)."""
        if unit.owner != self.player:
            return f"it belongs to {unit.owner}"
        if self.combat and not rules.moves_in_combat:
            return "it moves only in non-combat move"
        flags = unit.flags
        if rules.domain == "land" and self.board.is_sea[unit.space]:
            return "it is aboard a transport and can only unload"
        if flags:
            if flags.get("unloaded"):
                return "it went ashore this turn"
            if flags.get("unloaded_to"):
                return f"it unloaded into {flags['unloaded_to']} this turn"
            if self.combat:
                if flags.get("bombing"):
                    return "it is on a bombing raid"
                if flags.get("in_battle"):
                    return "it is in a battle"
            elif rules.domain != "air":
                if flags.get("in_battle"):
                    return "it took part in a battle this turn"
                if flags.get("combat_moved"):
                    return "it moved in combat move"
        if rules.movement - unit.moved <= 0:
            return "it has no movement left"
        return None

    # ---------------------------------------------------------------- reach

    def _reach_of(self, unit: Unit, rules: UnitRules) -> dict[str, tuple[str, ...]]:
        """Every space the unit can end a "move" in -> one shortest legal path (cached)."""
        left = rules.movement - unit.moved
        if rules.domain == "air":
            key = (rules.carrier_cost, unit.space, left)
            found = self._air_reach.get(key)
            if found is None:
                found = self._air_reach[key] = self._air_walk(unit, rules, left)
            return found
        if rules.domain == "land":
            key = ("land", rules.can_blitz, unit.space, left)
        else:
            key = ("sea", unit.space, left)
        found = self._reach.get(key)
        if found is None:
            walk = self._land_walk if rules.domain == "land" else self._sea_walk
            found = self._reach[key] = walk(unit.space, left, rules)
        return found

    def _paths(self, start: str, parent: dict[str, str | None], ends) -> dict[str, tuple[str, ...]]:
        order = self.board.order
        result = {}
        for end in sorted(ends, key=order.__getitem__):
            path = [end]
            here = parent[end]
            while here is not None:
                path.append(here)
                here = parent[here]
            result[end] = tuple(reversed(path))
        return result

    def _land_walk(self, start: str, left: int, rules: UnitRules) -> dict[str, tuple[str, ...]]:
        enemy = self._enemy
        friendly = self._friendly
        land = self.board.land
        combat = self.combat
        parent: dict[str, str | None] = {start: None}
        hostile_passed = {start: 0}
        frontier = [start]
        for _ in range(left):
            layer: dict[str, tuple[int, str]] = {}
            for here in frontier:
                cost = hostile_passed[here]
                if here != start:
                    if here in enemy:
                        continue
                    if not friendly(here):
                        if not (combat and rules.can_blitz):
                            continue
                        cost += 1
                for there in land[here]:
                    if there in parent:
                        continue
                    if not combat and (there in enemy or not friendly(there)):
                        continue
                    seen = layer.get(there)
                    if seen is None or cost < seen[0]:
                        layer[there] = (cost, here)
            if not layer:
                break
            frontier = []
            for there, (cost, here) in layer.items():
                parent[there] = here
                hostile_passed[there] = cost
                frontier.append(there)
        return self._paths(start, parent, (s for s in parent if s != start))

    def _sea_walk(self, start: str, left: int, rules: UnitRules) -> dict[str, tuple[str, ...]]:
        blocking = self._blocking
        sea = self.board.sea
        combat = self.combat
        canal_steps = self.board.canal_steps
        parent: dict[str, str | None] = {start: None}
        frontier = [start]
        for _ in range(left):
            following = []
            for here in frontier:
                if here != start and here in blocking:
                    continue
                for there in sea[here]:
                    if there in parent:
                        continue
                    if not combat and there in blocking:
                        continue
                    if (here, there) in canal_steps and self._closed_by(here, there) is not None:
                        continue
                    parent[there] = here
                    following.append(there)
            if not following:
                break
            frontier = following
        ends = (s for s in parent if s != start and (combat or s not in self._enemy))
        return self._paths(start, parent, ends)

    def _air_walk(self, unit: Unit, rules: UnitRules, left: int) -> dict[str, tuple[str, ...]]:
        board = self.board
        start = unit.space
        result = {}
        if self.combat:
            landing = self._landing(rules.carrier_cost)
            own = self._own_place(unit, rules)
            for space, d in board.air_reach(start, left):
                found = landing.get(space)
                best = found[0] if found is not None else None
                if own is not None:
                    extra = own.get(space)
                    if extra is not None and (best is None or extra < best):
                        best = extra
                if best is not None and best <= left - d:
                    result[space] = board.air_path(start, space)
        else:
            for space, d in board.air_reach(start, left):
                if self._landing_problem(unit, rules, space) is None:
                    result[space] = board.air_path(start, space)
        return result

    def _bomb_targets(self, reach: dict[str, tuple[str, ...]]) -> list[str]:
        factories = self.state.factories
        is_sea = self.board.is_sea
        return [s for s in reach if not is_sea[s] and s in factories and self._enemy_player(s)]

    # ---------------------------------------------------------------- public queries

    def destinations(self, unit_id: int) -> dict[str, tuple[str, ...]]:
        """Every space the unit can end a "move" in this phase -> one shortest legal path (start
        first), in natural order; {} when it cannot move (loads and unloads: `legal_moves`)."""
        unit = self._unit(unit_id)
        rules = self._rules(unit)
        if self._blocked(unit, rules) is not None:
            return {}
        return dict(self._reach_of(unit, rules))

    def moves_of(self, unit_id: int) -> list[Move]:
        """The unit's own "move" and "bomb" moves (loads and unloads: `legal_moves`); [] when it
        cannot move."""
        self._sync()
        return list(self._unit_moves(self._unit(unit_id)))

    def _unit_moves(self, unit: Unit) -> list[Move]:
        """The unit's "move" (and "bomb") moves: [] when it cannot move."""
        rules = self._ur[unit.id]
        if self._blocked(unit, rules) is not None:
            return []
        reach = self._reach_of(unit, rules)
        uid = (unit.id,)
        moves = [Move(uid, path) for path in reach.values()]
        if self.combat and rules.domain == "air" and rules.can_bomb:
            moves += [Move(uid, reach[s], "bomb") for s in self._bomb_targets(reach)]
        return moves

    def _move_lists(self) -> dict[int, list[Move]]:
        """Every unit's own moves, by id; remade only for the units the last moves touched."""
        lists = self._lists
        if lists is None:
            lists = self._lists = {u.id: self._unit_moves(u) for u in self._mine}
            self._dirty.clear()
        elif self._dirty:
            for uid in self._dirty:
                lists[uid] = self._unit_moves(self._by_id[uid])
            self._dirty.clear()
        return lists

    def _transfer_moves(self) -> tuple[list[Move], list[Move]]:
        if self._transfers is None:
            self._transfers = (self._loads(), self._unloads())
        return self._transfers

    def _mine_by_space(self) -> dict[str, list[Unit]]:
        index: dict[str, list[Unit]] = {}
        for unit in self._mine:
            index.setdefault(unit.space, []).append(unit)
        return index

    def _cargo_room(self, transport: Unit, rules: UnitRules) -> int:
        used = 0
        for cid in transport.cargo:
            carried = self._by_id.get(cid)
            if carried is not None:
                used += self._rules(carried).transport_cost
        return rules.transport_capacity - used

    def _transport_problem(self, transport: Unit, for_unload: bool) -> str | None:
        flags = transport.flags
        if not for_unload and flags.get("unloaded_to"):
            return f"it unloaded into {flags['unloaded_to']} this turn"
        if for_unload and flags.get("unloaded_in") not in (None, self.phase):
            return f"it unloaded in {flags['unloaded_in']} move"
        if flags.get("in_battle") and (not for_unload or not self.combat):
            return "it took part in a battle this turn" if not self.combat else "it is in a battle"
        return None

    def _load_problem(self, unit: Unit, rules: UnitRules) -> str | None:
        """Why a land unit cannot go aboard this phase (None: it can)."""
        if rules.domain != "land":
            return "it is not a land unit"
        if rules.transport_cost <= 0:
            return "it cannot be carried"
        if self.board.is_sea[unit.space]:
            return "it is already aboard a transport"
        flags = unit.flags
        if self.combat and not rules.moves_in_combat:
            return "it moves only in non-combat move"
        if flags.get("unloaded"):
            return "it went ashore this turn"
        if flags.get("in_battle"):
            return "it took part in a battle this turn" if not self.combat else "it is in a battle"
        if not self.combat and flags.get("combat_moved"):
            return "it moved in combat move"
        if rules.movement - unit.moved <= 0:
            return "it has no movement left"
        return None

    def _loads(self) -> list[Move]:
        moves = []
        by_space = None
        board = self.board
        for transport in self._mine:
            rules = self._rules(transport)
            zone = transport.space
            if (rules.transport_capacity <= 0 or not board.is_sea[zone] or zone in self._blocking
                    or self._transport_problem(transport, False) is not None):
                continue
            room = self._cargo_room(transport, rules)
            if room <= 0:
                continue
            if by_space is None:
                by_space = self._mine_by_space()
            for territory in board.land[zone]:
                for unit in by_space.get(territory, ()):
                    unit_rules = self._rules(unit)
                    if (0 < unit_rules.transport_cost <= room
                            and self._load_problem(unit, unit_rules) is None):
                        moves.append(Move((unit.id,), (territory, zone), "load", transport.id))
        order = board.order
        moves.sort(key=lambda m: (m.units[0], order[m.path[1]], m.transport))
        return moves

    def _unload_targets(self, transport: Unit) -> list[str]:
        zone = transport.space
        if zone in self._enemy or self._transport_problem(transport, True) is not None:
            return []
        fixed = transport.flags.get("unloaded_to")
        targets = [fixed] if fixed else list(self.board.land[zone])
        if not self.combat:
            targets = [t for t in targets if t not in self._enemy and self._friendly(t)]
        return targets

    def _unloads(self) -> list[Move]:
        moves = []
        for transport in self._mine:
            if not transport.cargo or not self.board.is_sea[transport.space]:
                continue
            cargo = []
            for cid in sorted(transport.cargo):
                unit = self._by_id.get(cid)
                if unit is None or unit.owner != self.player:
                    continue
                if self.combat and not self._rules(unit).moves_in_combat:
                    continue
                cargo.append(cid)
            if not cargo:
                continue
            for target in self._unload_targets(transport):
                moves += [Move((cid,), (transport.space, target), "unload", transport.id) for cid in cargo]
        order = self.board.order
        moves.sort(key=lambda m: (m.transport, m.units[0], order[m.path[1]]))
        return moves

    def legal_moves(self, limit: int | None = None) -> list[Move]:
        """Single-unit legal moves: every unit's "move" to each destination (and "bomb" raids) by
        unit id then natural order of the destination; then loads (by unit, sea zone,
        transport); then unloads (by transport, unit, territory). At most `limit` moves."""
        self._sync()
        moves: list[Move] = []
        for unit_moves in self._move_lists().values():
            moves += unit_moves
            if limit is not None and len(moves) >= limit:
                return moves[:limit]
        loads, unloads = self._transfer_moves()
        moves += loads
        moves += unloads
        return moves if limit is None else moves[:limit]

    def movable_units(self) -> list[int]:
        """Ids of the player's units that have a legal move this phase (a move, a raid, a load or
        an unload), by id."""
        self._sync()
        if self._lists is not None and not self._dirty:
            ids = {uid for uid, unit_moves in self._lists.items() if unit_moves}
        else:
            ids = set()
            for unit in self._mine:
                rules = self._ur[unit.id]
                if self._blocked(unit, rules) is None and self._reach_of(unit, rules):
                    ids.add(unit.id)
        loads, unloads = self._transfer_moves()
        ids.update(m.units[0] for m in loads)
        ids.update(m.units[0] for m in unloads)
        return sorted(ids)

    # ---------------------------------------------------------------- checking a move

    def check(self, move: Move) -> list[str]:
        """Why `move` is illegal, one message per problem; [] when it is legal."""
        self._sync()
        if move.kind not in KINDS:
            return [f"unknown move kind '{move.kind}' (one of {', '.join(KINDS)})"]
        if not move.units:
            return ["a move needs at least one unit"]
        path = move.path
        if len(path) < 2:
            return ["a path names at least two spaces: where the units are and where they end"]
        problems = [f"unknown space '{s}'" for s in dict.fromkeys(path) if s not in self.board.order]
        units: list[Unit] = []
        for uid in move.units:
            unit = self._by_id.get(uid)
            if unit is None:
                problems.append(f"no unit with id {uid} is on the board")
            elif unit in units:
                problems.append(f"{_name(unit)} is named twice")
            elif unit.owner != self.player:
                problems.append(f"{_name(unit)} belongs to {unit.owner}, not {self.player}")
            else:
                units.append(unit)
        if problems:
            return problems
        adjacent = self.board.adjacent
        problems = [f"{b} is not next to {a}" for a, b in zip(path, path[1:]) if b not in adjacent[a]]
        if problems:
            return problems
        if move.kind in ("load", "unload"):
            return self._check_transfer(move, units)
        if move.transport is not None:
            return ["only a load or an unload names a transport"]
        if move.kind == "bomb" and not self.combat:
            return ["bombing raids are flown in combat move"]
        if path[-1] == path[0]:
            return [f"the path ends where it starts, in {path[0]}"]
        group_cost = 0
        for unit in units:
            rules = self._rules(unit)
            name = _name(unit)
            reason = self._blocked(unit, rules)
            if reason is not None:
                problems.append(f"{name} cannot move: {reason}")
                continue
            if unit.space != path[0]:
                problems.append(f"{name} is in {unit.space}, not {path[0]}")
                continue
            left = rules.movement - unit.moved
            steps = len(path) - 1
            if steps > left:
                problems.append(f"{name} has {left} movement left but the path to {path[-1]} takes {steps} steps")
                continue
            if move.kind == "bomb":
                problems += self._check_bomb(unit, rules, path[-1])
            if rules.domain == "land":
                problems += self._check_land(name, rules, path)
            elif rules.domain == "sea":
                problems += self._check_sea(name, path)
            else:
                problems += self._check_air(unit, rules, path, left - steps)
                if unit.space != path[-1]:
                    group_cost += rules.carrier_cost
        end = path[-1]
        if (not problems and not self.combat and self.board.is_sea[end] and group_cost
                and sum(1 for u in units if self._rules(u).domain == "air") > 1):
            room = self._rooms().get(end, 0)
            if room < group_cost:
                problems.append(f"the carriers in {end} have room for {max(room, 0)}, the move needs {group_cost}")
        return problems

    def _check_bomb(self, unit: Unit, rules: UnitRules, end: str) -> list[str]:
        name = _name(unit)
        if rules.domain != "air" or not rules.can_bomb:
            return [f"{name} cannot make a bombing raid"]
        if self.board.is_sea[end] or not self._enemy_player(end):
            return [f"{name} cannot raid {end}: it is not an enemy's territory"]
        if end not in self.state.factories:
            return [f"{name} cannot raid {end}: it has no factory"]
        return []

    def _check_land(self, name: str, rules: UnitRules, path: tuple[str, ...]) -> list[str]:
        board = self.board
        last = len(path) - 1
        for i in range(1, last + 1):
            space = path[i]
            if not board.passable[space]:
                return [f"{name} cannot enter {space}: it is impassable"]
            if board.is_sea[space]:
                return [f"{name} cannot enter {space}: a land unit crosses water only aboard a transport (a load)"]
            if not self.combat:
                if space in self._enemy:
                    return [f"{name} cannot enter {space} in non-combat move: it holds enemy units"]
                if not self._friendly(space):
                    return [f"{name} cannot enter {space} in non-combat move: it is held by {self._holder(space)}"]
            elif i < last:
                if space in self._enemy:
                    return [f"{name} must stop in {space}: it holds enemy units"]
                if not self._friendly(space) and not rules.can_blitz:
                    return [f"{name} must stop in {space}: it is held by {self._holder(space)} "
                            f"(only a blitzing unit passes through an empty hostile territory)"]
        return []

    def _check_sea(self, name: str, path: tuple[str, ...]) -> list[str]:
        board = self.board
        last = len(path) - 1
        for i in range(1, last + 1):
            here, space = path[i - 1], path[i]
            if not board.passable[space]:
                return [f"{name} cannot enter {space}: it is impassable"]
            if not board.is_sea[space]:
                return [f"{name} cannot enter {space}: a sea unit stays at sea"]
            closed = self._closed_by(here, space) if (here, space) in board.canal_steps else None
            if closed is not None:
                canal, territory = closed
                return [f"{name} cannot pass the {canal.name} from {here} to {space}: "
                        f"{territory} is held by {self._holder(territory)}"]
            if space in self._blocking:
                if not self.combat:
                    return [f"{name} cannot enter {space} in non-combat move: enemy units there block it"]
                if i < last:
                    return [f"{name} must stop in {space}: enemy units there block it"]
            if not self.combat and i == last and space in self._enemy:
                return [f"{name} cannot end a non-combat move in {space}: it holds enemy units"]
        return []

    def _check_air(self, unit: Unit, rules: UnitRules, path: tuple[str, ...], left: int) -> list[str]:
        name = _name(unit)
        for space in path[1:]:
            if not self.board.passable[space]:
                return [f"{name} cannot fly over {space}: it is impassable"]
        end = path[-1]
        if self.combat:
            landing = self._landing_distance(unit, rules, end)
            if landing is None:
                return [f"{name} could not land after moving to {end}: no friendly landing space can be reached"]
            if landing[0] > left:
                return [f"{name} could not land after moving to {end}: it would have {left} movement left "
                        f"and the nearest friendly landing space, {landing[1]}, is {landing[0]} away"]
            return []
        problem = self._landing_problem(unit, rules, end)
        if problem is not None:
            return [f"{name} cannot land in {end}: {problem}"]
        return []

    def _check_transfer(self, move: Move, units: list[Unit]) -> list[str]:
        path = move.path
        if len(path) != 2:
            return [f"a{'n' if move.kind == 'unload' else ''} {move.kind} names two spaces, not {len(path)}"]
        loading = move.kind == "load"
        territory, zone = (path[0], path[1]) if loading else (path[1], path[0])
        board = self.board
        if board.is_sea[territory] or not board.is_sea[zone]:
            shape = "(territory, sea zone)" if loading else "(sea zone, territory)"
            return [f"a{'n' if not loading else ''} {move.kind} path is {shape}"]
        if move.transport is None:
            return [f"a{'n' if not loading else ''} {move.kind} names its transport"]
        transport = self._by_id.get(move.transport)
        if transport is None:
            return [f"no unit with id {move.transport} is on the board"]
        tname = _name(transport)
        t_rules = self._rules(transport)
        if transport.owner != self.player:
            return [f"{tname} belongs to {transport.owner}, not {self.player}"]
        if t_rules.transport_capacity <= 0:
            return [f"{tname} carries no units"]
        if transport.space != zone:
            return [f"{tname} is in {transport.space}, not {zone}"]
        problem = self._transport_problem(transport, not loading)
        if problem is not None:
            return [f"{tname} cannot {move.kind}: {problem}"]
        problems = []
        if loading:
            if zone in self._blocking:
                return [f"cannot load in {zone}: enemy units there block it"]
            need = 0
            for unit in units:
                rules = self._rules(unit)
                reason = self._load_problem(unit, rules)
                if reason is not None:
                    problems.append(f"{_name(unit)} cannot load: {reason}")
                elif unit.space != territory:
                    problems.append(f"{_name(unit)} is in {unit.space}, not {territory}")
                need += rules.transport_cost
            room = self._cargo_room(transport, t_rules)
            if not problems and need > room:
                problems.append(f"{tname} has room for {max(room, 0)}, "
                                f"{', '.join(_name(u) for u in units)} need {need}")
            return problems
        if zone in self._enemy:
            return [f"cannot unload in {zone}: it holds enemy units"]
        fixed = transport.flags.get("unloaded_to")
        if fixed and fixed != territory:
            return [f"{tname} already unloaded into {fixed} this turn: all its cargo goes ashore in one territory"]
        if not board.passable[territory]:
            return [f"cannot unload into {territory}: it is impassable"]
        if not self.combat:
            if territory in self._enemy:
                return [f"cannot unload into {territory} in non-combat move: it holds enemy units"]
            if not self._friendly(territory):
                return [f"cannot unload into {territory} in non-combat move: it is held by {self._holder(territory)}"]
        for unit in units:
            if unit.id not in transport.cargo:
                problems.append(f"{_name(unit)} is not aboard {tname}")
            elif self.combat and not self._rules(unit).moves_in_combat:
                problems.append(f"{_name(unit)} cannot unload: it moves only in non-combat move")
        return problems

    # ---------------------------------------------------------------- applying a move

    def apply(self, move: Move) -> None:
        """Make a legal move: one `move_units` event (and a capture per territory blitzed
        through). Raises ValueError with the problems when the move is illegal."""
        problems = self.check(move)
        if problems:
            raise ValueError("; ".join(problems))
        state = self.state
        units = [self._by_id[uid] for uid in move.units]
        path = move.path
        end = path[-1]
        before = state.version
        captures: list[str] = []
        flags: dict = {}
        trail = "passed_" + self.phase  # the spaces each unit entered, for the rules (moved_through)
        if self.combat:
            flags["combat_moved"] = True
        if move.kind == "load":
            flags["loaded_this_turn"] = True
            state.move_units(move.units, end, 1, path=path, flags=flags, onto=move.transport, trail=trail)
        elif move.kind == "unload":
            flags["unloaded"] = True
            flags["unloaded_from"] = move.transport
            if self.combat and self.is_battle_space(end):
                flags["in_battle"] = True
            state.move_units(move.units, end, 0, path=path, flags=flags, off=move.transport,
                             carrier_flags={"unloaded_to": end, "unloaded_in": self.phase}, trail=trail)
        else:
            domains = {self._rules(u).domain for u in units}
            if move.kind == "bomb":
                flags["bombing"] = True
            elif self.combat and (end in self._enemy or ("land" in domains and self.is_battle_space(end))):
                flags["in_battle"] = True
            if self.combat and "land" in domains:
                captures = [s for s in path[1:-1] if not self._friendly(s)]
            state.move_units(move.units, end, len(path) - 1, path=path, flags=flags or None, trail=trail)
            for space in captures:
                if self.rules.capture is not None:
                    self.rules.capture(state, space, self.player)
                else:
                    state.set_control(space, self.player)
        if captures or state.version != before + 1:
            self._version = None  # control (or more) changed: rebuild everything on the next query
            return
        # Only the player's own units moved: enemy units, control and canals stand; remake the
        # moved units' lists (and every air unit's when carrier room may have changed).
        self._version = state.version
        self._transfers = None
        dirty = self._dirty
        dirty.update(move.units)
        for unit in units:
            dirty.update(cid for cid in unit.cargo if self._by_id[cid].owner == self.player)
        if move.transport is not None:
            dirty.add(move.transport)
        if self._room_changed(units, path[0], end):
            self._reset_air()
            dirty.update(self._my_air)

    def _room_changed(self, units: list[Unit], origin: str, end: str) -> bool:
        """Whether a move of these units from `origin` to `end` may change carrier room (and so
        where air units can land): a carrier moved, or an air unit left or entered a zone with
        carriers of the side."""
        rooms = self._room
        if rooms is None:
            return False  # nothing computed from carrier room yet
        for unit in units:
            rules = self._ur[unit.id]
            if rules.carrier_capacity:
                return True
            if rules.domain == "air" and rules.carrier_cost and (origin in rooms or end in rooms):
                return True
        return False

    # ---------------------------------------------------------------- after moving

    def contested(self) -> list[str]:
        """Spaces where a battle must be fought after combat move, in natural order: where the
        player's units (other than units on a bombing raid) stand with enemy units, and hostile
        territories where its land units stand."""
        self._sync()
        found = set()
        is_sea = self.board.is_sea
        for unit in self._mine:
            if unit.flags.get("bombing"):
                continue
            space = unit.space
            if space in self._enemy:
                found.add(space)
            elif not is_sea[space] and self._rules(unit).domain == "land" and not self._friendly(space):
                found.add(space)
        return sorted(found, key=self.board.order.__getitem__)

    def bombing_raids(self) -> list[str]:
        """Spaces whose factory is raided by the player's units moved with kind "bomb", in natural order."""
        self._sync()
        found = {u.space for u in self._mine if u.flags.get("bombing")}
        return sorted(found, key=self.board.order.__getitem__)

    def stranded_air(self) -> list[int]:
        """The player's air units with no landing where they stand (for the end of non-combat
        move): in a territory its side has not held since the turn started, or in a sea zone
        without room for it on its side's carriers (allied air units keep their places first,
        then the player's by id). By id."""
        self._sync()
        stranded = []
        at_sea: dict[str, list[Unit]] = {}
        for unit in sorted(self.state.units, key=lambda u: u.id):
            if not self.board.is_sea[unit.space] or not self._ally.get(unit.owner, False):
                continue
            if self._rules(unit).domain == "air":
                at_sea.setdefault(unit.space, []).append(unit)
        capacity: dict[str, int] = {}
        for unit in self.state.units:
            if self.board.is_sea[unit.space] and self._ally.get(unit.owner, False):
                rules = self._rules(unit)
                if rules.carrier_capacity:
                    capacity[unit.space] = capacity.get(unit.space, 0) + rules.carrier_capacity
        for zone, flyers in at_sea.items():
            left = capacity.get(zone, 0)
            for unit in sorted(flyers, key=lambda u: (u.owner == self.player, u.id)):
                cost = self._rules(unit).carrier_cost
                if cost > 0 and cost <= left:
                    left -= cost
                elif unit.owner == self.player:
                    stranded.append(unit.id)
        for unit in self._mine:
            if (not self.board.is_sea[unit.space] and self._rules(unit).domain == "air"
                    and not self._friendly_since_start(unit.space)):
                stranded.append(unit.id)
        return sorted(stranded)
