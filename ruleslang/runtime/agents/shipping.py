"""Sea transport for the heuristic agent: ferrying the land units that cannot reach the fighting
by land, and amphibious assaults with them.

Generic over maps and rulesets: a transport is a unit whose move settings give it
`transport_capacity`, cargo is what has a `transport_cost`; "the fighting" is the territories
held by the player's enemies. A land unit is stranded when no enemy territory can be reached
from where it stands by land (an island, a continent at peace). A plan is a list of moves made
in order (loads, the transport's move, unloads), each checked again when it is made.
"""

from __future__ import annotations

from operator import attrgetter
from typing import Callable, Container

from ruleslang.runtime.kit.movement import Move

id_of = attrgetter("id")


class Shipping:
    """The shipping of one player for one phase (`engine`: the phase's movement engine; None
    for the questions a purchase asks; `may(move)`: whether a plan may make a move the engine
    offers that moves an ally's unit the player commands, e.g. by the rules' constraints; default:
    every one; a move of the player's own units alone is made whenever the engine offers it, and
    `may` is not asked of it). `front`: `front_distances(game, player)` for the board as it
    stands, when the caller has it (it is read, never changed); `enemy`: `enemy_held(game,
    player)` likewise; `commanded`: the ids of `engine.commanded_units()`, when the caller has them;
    `hostile`: the spaces where a unit not on the player's side stands (any other space has none),
    when the caller has found them on the board as it stands (read, never changed)."""

    def __init__(self, game, player: str, engine=None, may=None, *, front: dict[str, int] | None = None,
                 enemy: tuple[str, ...] | None = None, commanded: frozenset[int] | None = None,
                 hostile: Container[str] | None = None):
        self.game, self.engine, self.player = game, engine, player
        self.may = may if may is not None else (lambda move: True)
        self.board = game.board
        self._control = game.state.control  # who holds each territory (read straight, in loops)
        self.facts = game.unit_rules()
        # a unit's transport settings by (type, owner), as the settings keep them for the phase
        # (`ProcedureConfig.unit_fn`); a `Shipping` lives for one decision: the plans ask them of
        # every unit of the player, more than once
        self._capacities: dict[tuple[str, str], int] = {}
        self._cargo_costs: dict[tuple[str, str], int] = {}
        self._enemy_held = enemy
        self._front = front if front is not None else front_distances(game, player, enemy)
        # the allies' units the engine lets the player move as its own this phase (the move
        # setting `commands`): they are shipped, and ship others, as the player's own
        if commanded is None:
            commanded = frozenset(engine.commanded_units()) if engine is not None else frozenset()
        self._commanded = commanded
        self._mine: tuple | None = None  # (the board's list of units, its length, `_mine_units`)
        self._free: dict[str, bool] = {}  # space -> `_enemy_free`
        self._hostile = hostile
        # territory -> `_shore`: asked of every coast beside every zone each loaded transport
        # reaches, on a board that stands while the decision's plan is made (as `_free`)
        self._shores: dict[str, int | None] = {}
        self._beside: set[str] | None = None  # the zones beside an enemy-held territory: `enemy_coasts`
        self._census = None  # the game's census of units by kind (False: none), `_by_kind`

    # ---------------------------------------------------------------- facts

    def capacity(self, unit) -> int:
        key = (unit.type, unit.owner)
        found = self._capacities.get(key)
        if found is None:
            found = self._capacities[key] = self.facts.transport_capacity(unit)
        return found

    def cargo_cost(self, unit) -> int:
        key = (unit.type, unit.owner)
        found = self._cargo_costs.get(key)
        if found is None:
            found = self._cargo_costs[key] = self.facts.transport_cost(unit)
        return found

    def _enemy(self, owner: str | None) -> bool:
        return owner is not None and not self.game.allied(owner, self.player)

    def front_distance(self, territory: str) -> int | None:
        return self._front.get(territory)

    def _mine_units(self) -> list:
        """The units the player moves this phase, its own and the allies' it commands, in the
        board's order (one pass: the plans ask over every unit; found once, as a `Shipping` lives
        for one decision, while the board's units stand)."""
        units = self.game.state.units
        kept = self._mine
        if kept is None or kept[0] is not units or kept[1] != len(units):
            player, commanded = self.player, self._commanded
            kept = self._mine = (units, len(units), [u for u in units if u.owner == player or u.id in commanded])
        return kept[2]

    def _by_kind(self) -> dict | None:
        """The board's units by kind ((type, owner) -> id -> unit) as the game's census keeps them
        for its movement engines (kit/unit_census.py: brought up to date from the board's events),
        or None where it does not hold (a look-ahead's copy, a board not in the order of its ids):
        a plan looks at the kinds that carry or are carried, not at every unit of the board."""
        census = self._census
        if census is None:
            unit_census = getattr(self.game.kit, "unit_census", None)
            census = self._census = unit_census() if unit_census is not None else False
        if census is False or not census.holds(self.game.state):
            return None
        return census.kinds

    def transports(self) -> list:
        """The player's transports (its own and the allies' it commands), in the board's order."""
        kinds = self._by_kind()
        if kinds is not None:  # (the kinds that carry alone, the facts asked once a kind)
            player, commanded, kept, capacity = self.player, self._commanded, self._capacities, self.capacity
            out: list = []
            for kind, members in kinds.items():
                own = kind[1] == player
                if not own and not commanded:
                    continue
                found = kept.get(kind)
                if found is None:
                    found = capacity(next(iter(members.values())))
                if found > 0:
                    out += members.values() if own else [u for u in members.values() if u.id in commanded]
            # (the board's order is its ids' where the census holds; a kind's units are not kept
            # in it: one given to a new owner joins its new kind last)
            out.sort(key=id_of)
            return out
        # (the kept capacities read in line: asked of every unit of the player, in every plan)
        kept, capacity = self._capacities, self.capacity
        out = []
        for u in self._mine_units():
            found = kept.get((u.type, u.owner))
            if found is None:
                found = capacity(u)
            if found > 0:
                out.append(u)
        return out

    def _ashore_far(self, used: set[int] | frozenset[int]) -> list:
        """The player's units not `used` in land territories from which no enemy can be reached
        by land that a transport can carry, in the board's order (`stranded`; the facts kept by
        kind and the map's kinds read in line: asked of every unit of the player)."""
        kind_of, front, kept, cargo_cost = self.board.graph.kind_of, self._front, self._cargo_costs, self.cargo_cost
        kinds = self._by_kind()
        if kinds is not None:  # (by kind: a kind's cargo cost asked once some unit of it stands far)
            player, commanded = self.player, self._commanded
            out = []
            for kind, members in kinds.items():
                own = kind[1] == player
                if not own and not commanded:
                    continue
                far = [u for u in members.values() if u.space not in front and u.id not in used
                       and kind_of.get(u.space) == "land" and (own or u.id in commanded)]
                if not far:
                    continue
                cost = kept.get(kind)
                if cost is None:
                    cost = cargo_cost(far[0])
                if cost > 0:
                    out += far
            out.sort(key=id_of)  # (as `transports`)
            return out
        out = []
        for u in self._mine_units():
            # (most of the player's units stand where the fighting can be reached by land: asked first)
            if u.space in front or u.id in used or kind_of.get(u.space) != "land":
                continue
            cost = kept.get((u.type, u.owner))
            if cost is None:
                cost = cargo_cost(u)
            if cost > 0:
                out.append(u)
        return out

    def stranded(self, used: set[int]) -> dict[str, list[int]]:
        """Territory -> the player's land units there that no enemy can be reached from by land
        (whether one may board now, the engine says when the load is tried)."""
        out: dict[str, list[int]] = {}
        for u in self._ashore_far(used):
            out.setdefault(u.space, []).append(u.id)
        return out

    def stranded_count(self) -> int:
        """The player's land units (that a transport can carry) standing where no enemy can be reached by land."""
        return len(self._ashore_far(frozenset()))

    def room_at_sea(self) -> int:
        """The cargo room of the player's transports."""
        return sum(self.capacity(t) for t in self.transports())

    def _room(self, transport) -> int:
        cargo = [self.game.unit_or_none(i) for i in transport.cargo]
        return self.capacity(transport) - sum(self.cargo_cost(c) for c in cargo if c is not None)

    def _reach(self, transport) -> dict[str, tuple[str, ...]]:
        """The sea zones the transport can end in this phase (where it is, too), with their paths."""
        out = {transport.space: (transport.space,)}
        # (a transport that cannot move has no destinations: no need of the engine's list of the
        # units that can, which the non-combat plan no longer asks for)
        if transport.id not in self._commanded:  # (its own: every path the engine offers, no move made to ask)
            out.update(self.engine.kept_destinations(transport.id))
        else:
            out.update((zone, path) for zone, path in self.engine.kept_destinations(transport.id).items()
                       if self.may(Move.of_tuples((transport.id,), path)))
        return out

    def _loads(self, transport, stranded: dict[str, list[int]]) -> list[Move]:
        """Stranded units beside the transport's zone that fit aboard (taken out of `stranded`)."""
        zone, room, loads = transport.space, self._room(transport), []
        for territory in self.board.neighbours(zone, "land"):
            for uid in list(stranded.get(territory, ())):
                unit = self.game.unit_or_none(uid)
                cost = self.cargo_cost(unit)
                if cost > room:
                    continue  # (no move is made to ask: it would not fit aboard)
                move = Move.of_tuples((uid,), (territory, zone), "load", transport.id)
                if not self.engine.check(move) and (uid not in self._commanded or self.may(move)):
                    loads.append(move)
                    room -= cost
                    stranded[territory].remove(uid)
        return loads

    def _enemy_free(self, space: str) -> bool:
        """Whether no enemy unit stands in `space`: kept for the `Shipping`'s decision, in which
        no unit moves (a plan asks it of every zone each transport reaches)."""
        if self._hostile is not None:  # (the caller's: no board query, whose first ones pass over the board)
            return space not in self._hostile
        found = self._free.get(space)
        if found is None:
            found = self._free[space] = not any(self._enemy(u.owner) for u in self.board.units(space))
        return found

    # ---------------------------------------------------------------- plans

    def ferry(self, used: set[int]) -> list[Move]:
        """Non-combat: carry stranded units to the friendly coast nearest the fighting; empty
        transports go where stranded units wait."""
        transports = [t for t in self.transports() if t.id not in used]
        if not transports:
            return []  # (no transport to plan: the units waiting ashore are not looked for)
        stranded = self.stranded(used)
        plan: list[Move] = []
        zones = None  # `_landing_zones`, found at the first transport that needs them (no unit moves meanwhile)
        waiting = None  # `_waiting(stranded)`, while no unit of it has been loaded
        for transport in transports:
            loads = self._loads(transport, stranded)
            cargo = list(transport.cargo) + [m.units[0] for m in loads]
            reach = self._reach(transport)
            if not cargo:
                if waiting is None:
                    waiting = self._waiting(stranded)
                plan += self._fetch(transport, reach, waiting)
                continue
            if loads:
                waiting = None  # (they left `stranded`)
            landing = self._landing(reach)
            if landing is not None:
                zone, territory = landing
                plan += loads
                if zone != transport.space:
                    plan.append(Move.of_tuples((transport.id,), reach[zone]))
                plan += [Move.of_tuples((uid,), (zone, territory), "unload", transport.id) for uid in cargo]
            else:
                plan += loads
                if zones is None:
                    zones = self._landing_zones()
                toward = self._toward(reach, zones)
                if toward is not None and toward != transport.space:
                    plan.append(Move.of_tuples((transport.id,), reach[toward]))
            used.add(transport.id)
        return plan

    def _landing(self, reach: dict[str, tuple[str, ...]]) -> tuple[str, str] | None:
        """The (zone, friendly territory) nearest the fighting the transport can unload into now."""
        best, best_key = None, None
        shores = self._shores
        for zone, path in reach.items():
            if not self._enemy_free(zone):
                continue
            for territory in self.board.neighbours(zone, "land"):
                distance = shores.get(territory, False)
                if distance is False:
                    distance = shores[territory] = self._shore(territory)
                if distance is None:
                    continue
                key = (distance, len(path), self.game.space_order(territory))
                if best_key is None or key < best_key:
                    best, best_key = (zone, territory), key
        return best

    def _shore(self, territory: str) -> int | None:
        """The land steps to the fighting from `territory` when the player's cargo may be
        unloaded there (a friendly territory no enemy unit stands in, from which the fighting can
        be reached by land), else None (`_landing`)."""
        distance = self.front_distance(territory)
        holder = self._control.get(territory)
        if distance is None or holder is None or self._enemy(holder) or not self._enemy_free(territory):
            return None
        return distance

    def _landing_zones(self) -> set[str]:
        """Sea zones bordering a friendly territory from which the fighting can be reached by land."""
        out = set()
        for territory in self.board.spaces("land"):
            holder = self._control.get(territory)
            if self.front_distance(territory) is not None and holder is not None and not self._enemy(holder):
                out.update(self.board.neighbours(territory, "sea"))
        return out

    def _toward(self, reach: dict[str, tuple[str, ...]], targets: set[str]) -> str | None:
        """The reachable zone from which the nearest of `targets` is fewest sea steps away."""
        best, best_key = None, None
        distances = self.board.graph.distances  # the map's sea steps from a zone, worked out once a zone
        for zone in reach:
            from_zone = distances(zone, "sea")
            steps = [d for t in targets if (d := from_zone.get(t)) is not None]
            if steps:
                key = (min(steps), self.game.space_order(zone))
                if best_key is None or key < best_key:
                    best, best_key = zone, key
        return best

    def _waiting(self, stranded: dict[str, list[int]]) -> tuple[dict[str, int], set[str]]:
        """The territories where `stranded` units wait -> how many, and the sea zones beside them
        (the map's adjacency goes both ways): what `_fetch` reads of them."""
        waiting = {t: len(ids) for t, ids in stranded.items() if ids}
        return waiting, {z for t in waiting for z in self.board.neighbours(t, "sea")}

    def _fetch(self, transport, reach, waiting: tuple[dict[str, int], set[str]]) -> list[Move]:
        """An empty transport goes to the reachable zone beside the most stranded units (`waiting`:
        `_waiting` of them, the same for every empty transport until a unit is loaded)."""
        waiting, beside = waiting
        if not waiting:
            return []
        # the zones beside them count none elsewhere: the others are passed over by a set's test
        # (most zones a transport reaches)
        best, best_key = None, None
        for zone, path in reach.items():
            if zone not in beside:
                continue
            count = sum(waiting.get(t, 0) for t in self.board.neighbours(zone, "land"))
            if count:
                key = (-count, len(path), self.game.space_order(zone))
                if best_key is None or key < best_key:
                    best, best_key = zone, key
        if best is None:
            best = self._toward(reach, beside)
        if best is None or best == transport.space:
            return []
        return [Move.of_tuples((transport.id,), reach[best])]

    def assaults(self, used: set[int], wins, supports=None) -> list[Move]:
        """Combat: land the cargo (and stranded units that can board) on an enemy coast when
        `wins(attacking units, territory, sea zone they land from)` says the attack is worth it;
        with each landing, up to one of the player's other units for each unit landed that
        `supports(unit)` names and that can reach the zone it lands from (`_support`)."""
        transports = self.transports()
        if not transports:
            return []  # (no transport: no units stranded to look for)
        stranded = self.stranded(used)
        plan: list[Move] = []
        commanded = self._commanded  # (`may` is asked of the moves of these units alone)
        neighbours = self.board.neighbours
        for transport in transports:
            if transport.id in used or not (transport.cargo
                                            or any(stranded.get(t) for t in neighbours(transport.space, "land"))):
                continue  # (nothing aboard, none to board)
            reach = self._reach(transport)
            # found before the loads are checked (the engine asked of each), which a transport with
            # no enemy coast in reach would have wasted
            coasts = self.enemy_coasts(reach)
            if not coasts:
                continue
            trial = {t: list(ids) for t, ids in stranded.items()}
            loads = self._loads(transport, trial)
            cargo = list(transport.cargo) + [m.units[0] for m in loads]
            if not cargo:
                continue
            units = [self.game.unit_or_none(uid) for uid in cargo]
            target = next(((zone, territory) for zone, territory in coasts
                           if all(uid not in commanded
                                  or self.may(Move.of_tuples((uid,), (zone, territory), "unload", transport.id))
                                  for uid in cargo)
                           and wins(units, territory, zone)), None)
            if target is None:
                continue
            zone, territory = target
            stranded = trial
            plan += loads
            if zone != transport.space:
                plan.append(Move.of_tuples((transport.id,), reach[zone]))
            used.add(transport.id)
            used.update(cargo)
            if supports is not None:
                plan += self._support(zone, len(cargo), used, supports)
            plan += [Move.of_tuples((uid,), (zone, territory), "unload", transport.id) for uid in cargo]
        return plan

    def enemy_coasts(self, reach: dict[str, tuple[str, ...]]) -> list[tuple[str, str]]:
        """The (sea zone, enemy-held territory) pairs a transport with `reach` could land on: from
        the zones no enemy unit stands in, nearest first (fewest steps, then by name), each zone's
        land neighbours in the map's order."""
        neighbours = self.board.neighbours
        beside = self._beside
        if beside is None:
            # the zones beside an enemy-held territory (the map's adjacency goes both ways): most
            # zones a transport reaches have none, passed over by a set's test (the board stands
            # while the decision's plan is made, as for `_free`); the map's own look-up, the
            # territories' names being the board's
            enemy = self._enemy_held if self._enemy_held is not None else enemy_held(self.game, self.player)
            sea = self.board.map.sea_neighbours
            beside = self._beside = {z for t in enemy for z in sea(t)}
        return [(zone, territory)
                for zone, _ in sorted([zp for zp in reach.items() if zp[0] in beside], key=lambda zp: (len(zp[1]), zp[0]))
                if self._enemy_free(zone)
                for territory in neighbours(zone, "land") if self._enemy(self._control.get(territory))]

    def _support(self, zone: str, most: int, used: set[int], supports) -> list[Move]:
        """The moves of up to `most` of the player's sea units not yet `used` that `supports`
        names into `zone` (those already there count, and stay), nearest first; each is then used."""
        moves: list[Move] = []
        found = 0
        ships = [u for u in self._mine_units() if u.id not in used
                 and self.game.domain(u) == "sea" and self.capacity(u) == 0 and supports(u)]
        movable = set(self.engine.movable_units())
        reach = {}
        for u in ships:
            if u.space == zone:
                reach[u.id] = ()
            elif u.id in movable:
                path = self.engine.kept_destinations(u.id).get(zone)
                if path is not None and (u.id not in self._commanded or self.may(Move.of_tuples((u.id,), path))):
                    reach[u.id] = path
        for uid in sorted(reach, key=lambda i: (len(reach[i]), i)):
            if found >= most:
                break
            if reach[uid]:
                moves.append(Move.of_tuples((uid,), reach[uid]))
            used.add(uid)
            found += 1
        return moves


def front_distances(game, player: str, enemy: tuple[str, ...] | None = None,
                    land: Callable[[str], tuple[str, ...]] | None = None) -> dict[str, int]:
    """Land steps from each territory to the nearest territory `player`'s enemies hold (missing:
    none by land), on the board as it stands (`enemy`: `enemy_held(game, player)`, when the
    caller has it; `land`: a territory's land neighbours on the map, the map graph's
    `land_steps` look-up, when the caller keeps it). It reads the map and the enemy-held territories alone."""
    if enemy is None:
        enemy = enemy_held(game, player)
    if land is None:
        land = game.board.map.land_neighbours  # the names are the map's own: no check of each
    # by layers (the order of a queue's: each layer's spaces in the order they were found), a
    # layer's steps known without reading them back
    found = dict.fromkeys(enemy, 0)
    layer, steps = enemy, 0
    while layer:
        steps += 1
        reached = []
        for here in layer:
            for there in land(here):
                if there not in found:
                    found[there] = steps
                    reached.append(there)
        layer = reached
    return found


def enemy_held(game, player: str) -> tuple[str, ...]:
    """The land territories `player`'s enemies hold, in the board's order (what `front_distances`
    reads of the board: its answer stands while these do)."""
    control = game.state.control
    allied: dict[str, bool] = {}  # holder -> allied with the player (a few holders, many territories)
    out = []
    for t in game.board.spaces("land"):
        holder = control.get(t)
        if holder is None:
            continue
        friend = allied.get(holder)
        if friend is None:
            friend = allied[holder] = game.allied(holder, player)
        if not friend:
            out.append(t)
    return tuple(out)


def foe_spaces(game, player: str) -> set[str]:
    """The spaces where a unit not on `player`'s side stands, on the board as it stands: each
    such kind's spaces as the game's census of units keeps them (kit/unit_census.py), or a pass
    over the board's units where the census does not hold (a look-ahead's copy). A new set."""
    foes: dict[str, bool] = {}  # owner -> not on the player's side (a few owners, many units)

    def foe(owner: str) -> bool:
        found = foes.get(owner)
        if found is None:
            found = foes[owner] = not game.allied(owner, player)
        return found
    unit_census = getattr(game.kit, "unit_census", None)
    census = unit_census() if unit_census is not None else None
    if census is not None and census.holds(game.state):
        out: set[str] = set()
        for kind, members in census.kinds.items():
            if members and foe(kind[1]):
                out |= census.spaces(kind)
        return out
    return {u.space for u in game.state.units if foe(u.owner)}
