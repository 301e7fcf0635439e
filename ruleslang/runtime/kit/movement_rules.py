"""The data of movement: unit rules, the ruleset's movement policy, moves, and the map split by
kind of move (computed once per map). The engine (`movement.py`) and its parts (`paths.py`,
`air.py`, `transport.py`) share them."""

from __future__ import annotations

import functools
from collections import deque
from itertools import chain
from operator import attrgetter
from dataclasses import dataclass
from typing import Callable, Iterable

from ruleslang.board.mapdata import Canal, GameMap, natural_sorted
from ruleslang.board.queries import map_graph
from ruleslang.board.state import GameState, Unit

COMBAT = "combat"
NONCOMBAT = "noncombat"
PHASES = (COMBAT, NONCOMBAT)
DOMAINS = ("land", "sea", "air")
KINDS = ("move", "load", "unload", "bomb", "airborne")


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
    passes_blockers: bool = False  # a sea unit that passes sea zones held by enemy blocking units
    stops_movement: bool = True    # an enemy unit of this kind stops land movement (a blitz) where it stands
    blocks_unload: bool = True     # an enemy unit of this kind in a sea zone forbids unloading there
    blocks_passing: bool = False   # an enemy unit of this kind stops even units that pass blockers
    can_escort: bool = False  # may fly (kind "bomb") with the mover's bombing units to a raid they make, as an escort
    commanded: bool = False        # an ally's unit of this kind the mover moves as its own this phase
    airborne: bool = False         # a land unit that may be flown into an attack in combat move (kit/airborne.py)
    air_lift: int = 0              # an air unit: how many airborne land units it carries in such a move
    ends_among_enemies: bool = False  # a sea unit that may end a non-combat move among any enemy units
    blocks_ending: bool = True     # an enemy unit of this kind keeps units from ending a non-combat move in its zone

    def __post_init__(self) -> None:
        if self.domain not in DOMAINS:
            raise ValueError(f"a unit's domain is 'land', 'sea' or 'air', not '{self.domain}'")


CANALS = ("move", "turn")
id_of = attrgetter("id")  # the sort key of units by id
NEAREST_KEPT = 256  # landing searches kept per map (`MoveBoard.nearest`): a few kilobytes each


@dataclass(frozen=True)
class MovePolicy:
    """The ruleset's movement rules that are not about one unit type (`runtime move` settings).

    `unloaded_transport_moves` / `unloaded_transport_loads`: a transport that has unloaded may
    still move / take on cargo that turn. `canals`: a canal is open by control at the start of
    the move ("move") or at the start of the turn ("turn"). `loads_allied`: the mover's transports
    take its allies' land units aboard; `loads_onto_allied`: the mover's land units go aboard its
    allies' transports (either way the cargo goes ashore in its owner's turn, not the turn it
    boarded). `later_carriers`: a sea zone that a carrier of the mover can still reach in this
    turn's non-combat move counts as a landing space for its air units (checked when the turn's
    non-combat move ends). `carries_allied_air`: a carrier that moves takes along the allies' air
    units that lose their place on the carriers staying behind. `airborne_range`: how far land
    units launched from a territory (`MovementRules.airborne_from`) fly in an airborne move;
    `airborne_together`: those launched from one territory in a turn all attack one territory.
    """

    unloaded_transport_moves: bool = False
    unloaded_transport_loads: bool = False
    canals: str = "move"
    loads_allied: bool = False
    loads_onto_allied: bool = False
    later_carriers: bool = False
    carries_allied_air: bool = False
    airborne_range: int = 0
    airborne_together: bool = False

    def __post_init__(self) -> None:
        if self.canals not in CANALS:
            raise ValueError(f"canals open by control at the start of the 'move' or the 'turn', not '{self.canals}'")


class MovementRules:
    """The rule-specific facts movement needs, as callables the runtime builds from the rulesets.

    `unit_rules(unit_type, owner)` gives a `UnitRules`; `allied(a, b)` tells whether two players
    are on the same side (a player is always allied with itself). `capture(state, space, player)`,
    when given, is called for every territory a blitz passes through (default: `set_control`);
    the runtime passes its capture procedure so that liberation and factories follow its rules.
    `policy` holds the rules that are not about one unit type (default: `MovePolicy()`).
    `landing(space, player)`, when given, tells whether the player's air units may land in a land
    territory holding no enemy units; by default, when the player's side held it at the start of
    the turn and still holds it (the engine asks it again whenever the board changed).
    `raid_target(space, player)`, when given, tells whether the player's units may raid an enemy
    territory; by default, when it has a factory.
    `takes_landings(unit)`, when given, tells whether a carrier (a unit with carrier capacity) takes
    air units landing on it now (e.g. not while damaged); by default, every carrier does.
    `airborne_from(space, player)`, when given, tells how many land units the player may launch
    from a territory in a turn without an aircraft (an airborne move, kit/airborne.py; default
    none); `airborne_to(space, player)` whether an airborne move may end in a hostile territory
    (default: any). `taken_over(space, player)`, when given, tells whether the player's land units
    take a territory not of its side over by ending a non-combat move there (kit/takeover.py;
    default: none).
    `releases_air(unit)`, when given, tells whether another power's carrier lets the mover's air
    units aboard take off now (e.g. not while damaged); by default, every carrier does.
    `at_war(a, b)`, when given, tells whether player `b`, not on `a`'s side, is at war with `a`:
    the units of a player at peace with the mover neither block nor stop its units, and share
    spaces with them without a battle; by default every player not on its side is an enemy.
    Answers are cached: build a new `MovementRules` when the rulesets' answers may change
    (`known` gives some of them from the start).
    """

    def __init__(self, unit_rules: Callable[[str, str], UnitRules], allied: Callable[[str, str], bool],
                 capture: Callable[[GameState, str, str], None] | None = None, policy: MovePolicy | None = None,
                 landing: Callable[[str, str], bool] | None = None,
                 raid_target: Callable[[str, str], bool] | None = None,
                 takes_landings: Callable[[Unit], bool] | None = None,
                 airborne_from: Callable[[str, str], int] | None = None,
                 airborne_to: Callable[[str, str], bool] | None = None,
                 taken_over: Callable[[str, str], bool] | None = None,
                 at_war: Callable[[str, str], bool] | None = None,
                 releases_air: Callable[[Unit], bool] | None = None,
                 known: dict[tuple[str, str], UnitRules] | None = None):
        self._unit_rules = unit_rules
        self._allied = allied
        self.capture = capture
        self.policy = policy if policy is not None else MovePolicy()
        self.landing = landing
        self.raid_target = raid_target
        self.takes_landings = takes_landings
        self.airborne_from = airborne_from
        self.airborne_to = airborne_to
        self.taken_over = taken_over
        self._at_war = at_war
        self.releases_air = releases_air
        # `known`: `UnitRules` already worked out, by (unit type, owner) (the move rules kept from
        # earlier phases, made as UnitRules by kit/moves.py), so that the engine's first look-up of
        # each kind in a phase is one dictionary read
        self._rules_cache: dict[tuple[str, str], UnitRules] = dict(known) if known else {}
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

    def kind_rules(self, kind: tuple[str, str]) -> UnitRules:
        """`unit_rules(*kind)` for a kind given as its (unit type, owner) pair (a pass by kind asks
        each kind's rules in every movement phase)."""
        found = self._rules_cache.get(kind)
        return found if found is not None else self.unit_rules(*kind)

    def kinds_rules(self, kinds: Iterable[tuple[str, str]]) -> list[UnitRules]:
        """`kind_rules` of each kind, in their order (a pass by kind asks every kind's rules of the
        board in every movement phase: one call, not one a kind)."""
        cache = self._rules_cache
        return [cache.get(kind) or self.unit_rules(*kind) for kind in kinds]

    def allied(self, a: str, b: str) -> bool:
        """True when `a` and `b` are the same player or allies (cached)."""
        if a == b:
            return True
        key = (a, b)
        found = self._allied_cache.get(key)
        if found is None:
            found = self._allied_cache[key] = bool(self._allied(a, b))
        return found

    def enemies(self, a: str, b: str) -> bool:
        """True when `b`'s units are enemies of `a`'s: not on its side, and at war with it (the
        `at_war` rule; by default every player not on its side)."""
        if self.allied(a, b):
            return False
        return self._at_war is None or bool(self._at_war(a, b))


@dataclass(frozen=True)
class Move:
    """Units moving together along a path (first space: where they are; last: where they end).

    `kind` is "move", "load" (land units onto `transport`: path = (territory, sea zone)),
    "unload" (from `transport`: path = (sea zone, territory)), "bomb" (a strategic bombing raid)
    or "airborne" (land units flown into an attack, with the air units lifting them: kit/airborne.py).
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

    @classmethod
    def of_tuples(cls, units: tuple[int, ...], path: tuple[str, ...], kind: str = "move",
                  transport: int | None = None) -> "Move":
        """`Move(units, path, kind, transport)` for `units` and `path` that are tuples already,
        without the frozen class's checked assignments: the engine makes a move for every space
        each unit can reach (thousands a game), and this is most of what each costs."""
        move = object.__new__(cls)
        move.__dict__.update(units=units, path=path, kind=kind, transport=transport)
        return move

    def to_json(self) -> dict:
        """The move as plain data (for logs and saves)."""
        data = {"units": list(self.units), "path": list(self.path), "kind": self.kind}
        if self.transport is not None:
            data["transport"] = self.transport
        return data


# ---------------------------------------------------------------- the map, precomputed once


class MoveBoard:
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
        self._land_steps: dict[str, dict[str, tuple[str, str]]] = {}
        self._air_paths: dict[str, dict[str, tuple[str, ...]]] = {}
        self._nearest: dict[tuple[str, ...], dict[str, tuple[int, str]]] = {}

    def nearest(self, sources: tuple[str, ...]) -> dict[str, tuple[int, str]]:
        """For every space reached by air from `sources`: (air distance, the nearest source), ties
        to the source first in `sources` (a breadth-first search from all of them at once). The
        answer is shared: do not change it. The same landing spaces come back phase after phase
        (a player's own territories), so the last NEAREST_KEPT answers are kept."""
        found = self._nearest.get(sources)
        if found is not None:
            return found
        found = {s: (0, s) for s in sources}
        queue = deque(sources)
        air = self.air
        while queue:
            here = queue.popleft()
            d, source = found[here]
            d += 1
            for there in air[here]:
                if there not in found:
                    found[there] = (d, source)
                    queue.append(there)
        if len(self._nearest) >= NEAREST_KEPT:
            del self._nearest[next(iter(self._nearest))]  # the oldest
        self._nearest[sources] = found
        return found

    def steps_within(self, sources: tuple[str, ...], within: set[str] | frozenset[str]) -> dict[str, int]:
        """For every space of `within` reached by air from `sources` through `within` alone (and
        the sources): the air steps to the nearest source (`nearest`'s distances, no more, for
        the spaces whose shortest paths to a source lie within; more, or none, for the others).
        A search by whole steps, each step's spaces found by set operations (so the dict's order
        within a step is a set's, which varies with PYTHONHASHSEED: read it by key alone)."""
        found = dict.fromkeys(sources, 0)
        air = self.air
        layer: tuple[str, ...] | set[str] = sources
        steps = 0
        while layer:
            steps += 1
            layer = within.intersection(chain.from_iterable(map(air.__getitem__, layer))).difference(found)
            found.update(dict.fromkeys(layer, steps))
        return found

    def land_steps(self, start: str) -> dict[str, tuple[str, str]]:
        """Every passable land territory next to `start` -> the path (start, it), in natural order:
        the reach of a land unit with one step left in combat move, which no board fact bounds (a
        unit ends its move in the first space it enters). The answer is shared: do not change it."""
        found = self._land_steps.get(start)
        if found is None:
            order = self.order
            found = self._land_steps[start] = {there: (start, there)
                                               for there in sorted(self.land[start], key=order.__getitem__)
                                               if there != start}
        return found

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

    def air_paths(self, start: str) -> dict[str, tuple[str, ...]]:
        """The air paths from `start` kept so far (`air_path`'s, by end): read it, never change it;
        an end not in it is asked of `air_path` (a walk asks every space it reaches, mostly kept)."""
        paths = self._air_paths.get(start)
        if paths is None:
            paths = self._air_paths[start] = {start: (start,)}
        return paths

    def air_path(self, start: str, end: str) -> tuple[str, ...]:
        """One shortest air path (walking back through the first neighbour, in natural order, one
        step nearer the start). The walk back from a space goes on as the walk back from the
        space it steps to, so a path is the kept path to that space and one step more: each
        space's is kept, and a walk stops at the first space whose path is known."""
        paths = self._air_paths.get(start)
        if paths is None:
            paths = self._air_paths[start] = {start: (start,)}
        found = paths.get(end)
        if found is None:
            distances = self.graph.distances(start, "all")
            walked = []
            here = end
            while found is None:
                walked.append(here)
                d = distances[here]
                here = next(n for n in self.map.neighbours(here) if distances.get(n) == d - 1)
                found = paths.get(here)
            for space in reversed(walked):
                found = paths[space] = found + (space,)
        return found


@functools.lru_cache(maxsize=16)
def move_board(game_map: GameMap) -> MoveBoard:
    """The map's movement facts (kept for the last 16 maps)."""
    return MoveBoard(game_map)


def unit_name(unit: Unit) -> str:
    """How messages name a unit: its type and id."""
    return f"{unit.type} {unit.id}"
