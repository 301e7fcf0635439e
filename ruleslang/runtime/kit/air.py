"""Air movement for the movement engine: landing spaces, carrier room and stranded air units.

A mixin of `MovementEngine` (see `movement.py` for the rules): it reads the engine's board
facts (`board`, `state`, `policy`, `rules.landing`, `_ally`, `_enemy`, `combat`) and keeps the
carrier room, the zones carriers can still reach (`later_carriers`) and landing distances until
the board changes (`_reset_air`).
"""

from __future__ import annotations

from itertools import chain

from ruleslang.board.state import Unit
from ruleslang.runtime.kit.movement_rules import UnitRules, id_of, unit_name


class AirPart:
    """The air part of `MovementEngine`."""

    def _takes_landings(self, unit: Unit) -> bool:
        """Whether a carrier takes air units landing on it now (the rules' `takes_landings`)."""
        takes = self.rules.takes_landings
        return takes is None or takes(unit)

    def _rooms(self) -> dict[str, int]:
        """Room left on the carriers of the player's side, per sea zone that has such carriers. A
        carrier that takes no landings (`takes_landings`) gives no room; the air units in its zone
        are counted on such carriers first (they may stay where they are)."""
        if self._room is None:
            capacity: dict[str, int] = {}
            closed: dict[str, int] = {}
            used: dict[str, int] = {}
            is_sea = self.board.is_sea
            for unit in self._allied_units:  # the board's units of the player's side (`_rebuild`)
                if not is_sea.get(unit.space):
                    continue
                rules = self._rules(unit)
                if rules.carrier_capacity:
                    kept = capacity if self._takes_landings(unit) else closed
                    kept[unit.space] = kept.get(unit.space, 0) + rules.carrier_capacity
                if rules.domain == "air" and rules.carrier_cost:
                    used[unit.space] = used.get(unit.space, 0) + rules.carrier_cost
            self._room = {zone: capacity.get(zone, 0) - max(0, used.get(zone, 0) - closed.get(zone, 0))
                          for zone in {*capacity, *closed}}
            self._closed = closed
        return self._room

    def _held_aboard(self) -> dict[int, str]:
        """With the rules' `releases_air`: the player's air units at sea that sit aboard another
        power's carrier that does not let them take off -> that carrier's owner. No record says
        which carrier an air unit is on, so they are counted: in each sea zone the player's air
        units that have not moved this turn sit on its own carriers first, then on the other
        powers' carriers that release them, then on those that do not (the lowest ids keeping the
        better places); the other powers' air units that their own carriers have no room for sit
        on the carriers that do not release first. Kept with the carrier room (`_reset_air`)."""
        if self._held is None:
            self._rooms()  # noted with the room, so that a carrier's or an air unit's move forgets both
            releases = self.rules.releases_air
            zones: dict[str, list[Unit]] = {}
            if releases is not None:
                for unit in self.state.units:
                    if self.board.is_sea.get(unit.space) and self._ally.get(unit.owner, False):
                        zones.setdefault(unit.space, []).append(unit)
            self._held = {}
            for units in zones.values():
                self._held.update(self._held_in(units, releases))
        return self._held

    def _held_in(self, units: list[Unit], releases) -> dict[int, str]:
        """`_held_aboard` for the units of the player's side in one sea zone."""
        mine = sorted((u for u in units if u.owner == self.player and not u.moved
                       and self._ur[u.id].domain == "air" and self._ur[u.id].carrier_cost > 0), key=lambda u: u.id)
        if not mine:
            return {}
        own: dict[str, int] = {}    # owner -> capacity of its carriers here
        guests: dict[str, int] = {}  # owner -> carrier cost of its air units here
        open_room = closed_room = 0
        holder = None
        for unit in units:
            rules = self._ur[unit.id]
            if rules.carrier_capacity:
                own[unit.owner] = own.get(unit.owner, 0) + rules.carrier_capacity
                if unit.owner != self.player:
                    if releases(unit):
                        open_room += rules.carrier_capacity
                    else:
                        closed_room += rules.carrier_capacity
                        holder = holder or unit.owner
            elif rules.domain == "air" and rules.carrier_cost and unit.owner != self.player:
                guests[unit.owner] = guests.get(unit.owner, 0) + rules.carrier_cost
        if holder is None:
            return {}
        others = sum(max(0, cost - own.get(owner, 0)) for owner, cost in guests.items())
        free = own.get(self.player, 0) + max(0, open_room - max(0, others - closed_room))
        over = sum(self._ur[u.id].carrier_cost for u in mine) - free
        held: dict[int, str] = {}
        for unit in reversed(mine):  # the highest ids sit on the carriers that hold them
            if over <= 0:
                break
            held[unit.id] = holder
            over -= self._ur[unit.id].carrier_cost
        return held

    def _later_zones(self) -> dict[str, int]:
        """With the policy's `later_carriers`: every sea zone a carrier of the player can still
        reach in this turn's non-combat move (by the non-combat rules, on the board as it is) -> the
        largest capacity of such a carrier; {} without it. Whether the carriers do come, with room
        enough, is checked when the non-combat move ends (`stranded_air`)."""
        if self._later is None:
            self._rooms()  # noted with the room, so that a carrier's move forgets both (`_room_changed`)
            found: dict[str, int] = {}
            if self.policy.later_carriers:
                for unit in self._mine:
                    rules = self._ur[unit.id]
                    flags = unit.flags
                    if (rules.carrier_capacity <= 0 or rules.domain != "sea" or rules.movement <= unit.moved
                            or flags.get("in_battle") or flags.get("combat_moved") or not self._takes_landings(unit)):
                        continue
                    for zone in self._sea_walk(unit.space, rules.movement - unit.moved, rules, combat=False):
                        found[zone] = max(found.get(zone, 0), rules.carrier_capacity)
            self._later = found
        return self._later

    def _riders(self, units: list[Unit], origin: str) -> list[Unit]:
        """With the policy's `carries_allied_air`: the allies' air units in sea zone `origin` that the
        carriers among `units` (moving away) take along as cargo: those without a place on the
        carriers of the side staying behind (the allies' air units keep places there first, by id),
        by id, as far as the moving carriers have room."""
        if not self.policy.carries_allied_air or not self.board.is_sea[origin]:
            return []
        carrying = sum(self._ur[u.id].carrier_capacity for u in units)
        if carrying <= 0:
            return []
        moving = {u.id for u in units}
        staying = 0
        guests = []
        for unit in self.state.units:
            if unit.space != origin or unit.id in moving or not self._ally.get(unit.owner, False):
                continue
            rules = self._ur[unit.id]
            staying += rules.carrier_capacity
            if not self._own(unit) and rules.domain == "air" and rules.carrier_cost > 0:
                guests.append(unit)
        riders = []
        for unit in sorted(guests, key=lambda u: u.id):
            cost = self._ur[unit.id].carrier_cost
            if cost <= staying:
                staying -= cost
            elif cost <= carrying:
                carrying -= cost
                riders.append(unit)
        return riders

    def _landable(self, space: str) -> bool:
        """Whether the player's air units may land in land territory `space` by its control (the
        rules' `landing` condition; by default: its side held it at the start of the turn and still
        holds it). Asked once per space until the board changes."""
        found = self._may_land.get(space)
        if found is None:
            landing = self.rules.landing
            found = landing(space, self.player) if landing is not None else self._friendly_since_start(space)
            self._may_land[space] = found
        return found

    def _landing(self, cost: int) -> dict[str, tuple[int, str]]:
        """For every space: (air distance, nearest landing space) for an air unit of this
        carrier cost (multi-source breadth-first search from every landing space)."""
        found = self._landing_cache.get(cost)
        if found is not None:
            return found
        land = self._land_spots
        if land is None:  # by enemy units and control alone: kept until the next rebuild
            land = self._land_spots = [s for s in self.board.land_spaces if s not in self._enemy and self._landable(s)]
        found = self._landing_cache[cost] = self.board.nearest(self._landing_sources(land, cost))
        return found

    def _landing_sources(self, land: list[str], cost: int) -> tuple[str, ...]:
        """The landing spaces for an air unit of this carrier cost: the landing territories `land`
        and, for a unit that lands on carriers, the zones of carriers with room for it (now, or
        reached later: `_later_zones`), in natural order."""
        if cost <= 0:
            return tuple(land)
        spots = list(land)
        spots += [z for z, room in self._rooms().items() if room >= cost and (self.combat or z not in self._enemy)]
        spots += [z for z, capacity in self._later_zones().items() if capacity >= cost and z not in spots]
        spots.sort(key=self.board.order.__getitem__)
        return tuple(spots)

    def _landing_steps(self, cost: int) -> dict[str, int]:
        """The air steps to the nearest landing space for an air unit of this carrier cost, as far
        as they tell whether one of the player's air units can land after a flight of this phase
        (`_air_walk` in combat move): a search from the landing territories within the air
        units' reach (`_near_landing`) and the carrier zones, through that reach alone. A landing
        space within an air unit's movement left at a flight's end, and every space on the way
        to it, lie within its movement left at the flight's start, so a space's steps are the
        full search's (`_landing`) where they are within what a flight there leaves, and more,
        or none, where they are not; the landing condition of the territories beyond is not
        asked (most of the map lies beyond every air unit's reach). Kept until the carrier room
        changes (`_reset_air`)."""
        found = self._near_cache.get(cost)
        if found is None:
            land, within = self._near_landing()
            found = self._near_cache[cost] = self.board.steps_within(self._landing_sources(land, cost), within)
        return found

    def _near_landing(self) -> tuple[list[str], set[str]]:
        """(the land territories where the player's air units may land (as `_landing` finds them)
        within the movement left of one of them as they stand now, in natural order; the spaces
        within that reach): kept until the next rebuild (a unit that has moved stands no farther
        from where it stood than it flew)."""
        near = self._near
        if near is None:
            board, by_id, ur = self.board, self._by_id, self._ur
            within: set[str] = set()
            starts = set()
            for uid in self._my_air:
                unit = by_id[uid]
                start = (unit.space, ur[uid].movement - unit.moved)
                if start not in starts:
                    starts.add(start)
                    within.add(unit.space)
                    within.update(dict(board.air_reach(*start)))  # (its keys: the spaces)
            near = self._near = ([s for s in board.land_spaces if s in within and s not in self._enemy
                                  and self._landable(s)], within)
        return near

    def _own_place(self, unit: Unit, rules: UnitRules) -> dict[str, int] | None:
        """Air distances to the unit's own place on a carrier where it stands now (free once it
        has left), when that place is not already a landing space for it; else None."""
        cost = rules.carrier_cost
        start = unit.space
        if cost > 0 and self.board.is_sea[start] and (self.combat or start not in self._enemy):
            room = self._rooms().get(start)
            # (beside a carrier that takes no landings, its place may be on that one: not kept)
            if room is not None and 0 <= room < cost and not self._closed.get(start):
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

    def _landing_problem(self, unit: Unit, rules: UnitRules, space: str, extra: int = 0, *,
                         later: bool = True) -> str | None:
        """Why an air unit cannot end a non-combat move in `space` (None: it can land there); `extra`:
        room on carriers moving there with it; `later`: a sea zone a carrier can still reach counts
        (the `later_carriers` setting), else only the carriers there now."""
        if space in self._enemy:
            return "it holds enemy units"
        if not self.board.is_sea[space]:
            if self._landable(space):
                return None
            if not self._friendly(space):
                return f"it is held by {self._holder(space)}"
            if not self._friendly_since_start(space):
                return "its side did not hold it when the turn started"
            return "the rules' landing condition refuses it"
        if rules.carrier_cost <= 0:
            return "it cannot land on a carrier"
        need = rules.carrier_cost
        if later and self._later_zones().get(space, 0) >= need:
            return None  # a carrier can still come (checked when the non-combat move ends)
        room = self._rooms().get(space)
        if extra:
            room = (room or 0) + extra
        if room is None:
            return "no carrier of its side is there"
        if unit.space == space:
            room += rules.carrier_cost
        if room < need:
            return f"the carriers there have room for {max(room, 0)}, not {need}"
        return None

    def _air_walk(self, unit: Unit, rules: UnitRules, left: int, *,
                  first_only: bool = False) -> dict[str, tuple[str, ...]]:
        """Every space the air unit can end a move in -> one shortest path; `first_only`: only the
        first such space (whether there is one), its path not worked out."""
        board = self.board
        start = unit.space
        result = {}
        # (the paths kept from `start`, read in line: a walk asks the path of every space it ends in)
        paths, path_of = board.air_paths(start), board.air_path
        if self.combat:
            landing = self._landing_steps(rules.carrier_cost)
            own = self._own_place(unit, rules)
            for space, d in board.air_reach(start, left):
                best = landing.get(space)
                if own is not None:
                    extra = own.get(space)
                    if extra is not None and (best is None or extra < best):
                        best = extra
                if best is not None and best <= left - d:
                    if first_only:
                        return {space: ()}
                    result[space] = paths.get(space) or path_of(start, space)
        else:
            # whether it may land in a space depends on the space and its carrier cost alone (never
            # its own zone: the reach starts a step away), so it is asked once per space and cost
            # until the board or the carrier room changes (`_reset_air`)
            lands = self._lands_at.get(rules.carrier_cost)
            if lands is None:
                lands = self._lands_at[rules.carrier_cost] = {}
            for space, d in board.air_reach(start, left):
                ok = lands.get(space)
                if ok is None:
                    ok = lands[space] = self._landing_problem(unit, rules, space) is None
                if ok:
                    if first_only:
                        return {space: ()}
                    result[space] = paths.get(space) or path_of(start, space)
        return result

    def _air_walk_among(self, unit: Unit, rules: UnitRules, left: int, among) -> dict[str, tuple[str, ...]]:
        """`_air_walk` in combat move for the spaces of `among` alone: each of them the unit can end
        a move in -> the walk's path, in the walk's order. The walk's test of a space, a landing
        within what the flight there leaves, is asked by a search outward from the space
        (`_nearest_landing`) rather than from every landing space at once (`_landing_steps`, whose
        landing condition is asked of every territory within any air unit's reach): a plan reads
        a few spaces of each reach (its targets), most of them shared by the player's air units."""
        board = self.board
        start = unit.space
        result = {}
        paths, path_of = board.air_paths(start), board.air_path
        own = self._own_place(unit, rules)
        cost, lands_within = rules.carrier_cost, self._lands_within
        for space, d in board.air_reach(start, left):
            if space in among:
                spare = left - d
                if (own is not None and own.get(space, spare + 1) <= spare) or lands_within(cost, space, spare):
                    result[space] = paths.get(space) or path_of(start, space)
        return result

    def _nearest_landing(self, cost: int, space: str, most: int) -> tuple[int | None, int]:
        """(the air steps from `space` to the nearest landing space for an air unit of this carrier
        cost (as `_landing` finds them), or None when there is none within `most` steps; how far
        the search went): a search by whole steps that stops at the first holding one. Its steps
        are `_landing_steps`' where they are at most `most` (both count air steps through passable
        spaces); none from an impassable space."""
        board = self.board
        if not board.passable[space]:
            return None, most
        zones = self._carrier_spots.get(cost)
        if zones is None:  # (the carrier zones with room for it, now or later: `_landing_sources`)
            zones = self._carrier_spots[cost] = frozenset(self._landing_sources((), cost))
        is_sea, enemy, air, may_land = board.is_sea, self._enemy, board.air, self._may_land
        seen = {space}
        layer = (space,)
        steps = 0
        while True:
            for here in layer:
                if is_sea[here]:
                    if here in zones:
                        return steps, most
                elif here not in enemy:
                    landable = may_land.get(here)
                    if landable is None:
                        landable = self._landable(here)
                    if landable:
                        return steps, most
            if steps >= most:
                return None, most
            steps += 1
            # (the next step's spaces in a fixed order: the landing condition is asked in it)
            layer = [there for there in dict.fromkeys(chain.from_iterable(map(air.__getitem__, layer)))
                     if there not in seen]
            if not layer:
                return None, steps
            seen.update(layer)

    def _check_bomb(self, unit: Unit, rules: UnitRules, end: str, with_bombing_units: bool = False) -> list[str]:
        """Why `unit` cannot raid `end` ([] when it may); an escort flies to a raid of the player's
        bombing units (`can_bomb`), made already or by such units in the same move (`with_bombing_units`)."""
        name = unit_name(unit)
        if rules.domain == "air" and not rules.can_bomb and rules.can_escort:
            if not with_bombing_units and end not in self._raided():
                return [f"{name} cannot escort a raid on {end}: no unit of {self.player} that bombs raids it"]
            return []
        if rules.domain != "air" or not rules.can_bomb:
            return [f"{name} cannot make a bombing raid"]
        if self.board.is_sea[end] or not self._enemy_player(end):
            return [f"{name} cannot raid {end}: it is not an enemy's territory"]
        if not self._raid_target(end):
            if self.rules.raid_target is not None:
                return [f"{name} cannot raid {end}: the rules' raid_target condition refuses it"]
            return [f"{name} cannot raid {end}: it has no factory"]
        return []

    def _check_air(self, unit: Unit, rules: UnitRules, path: tuple[str, ...], left: int, extra: int = 0) -> list[str]:
        """Why an air unit cannot fly `path` with `left` movement left at its end; `extra`: room on
        carriers moving with it."""
        name = unit_name(unit)
        for space in path[1:]:
            if not self.board.passable[space]:
                return [f"{name} cannot fly over {space}: it is impassable"]
        end = path[-1]
        if self.combat and 0 < rules.carrier_cost <= extra:
            return []  # it ends on the carriers it moves with
        if self.combat:
            own = self._own_place(unit, rules)
            if (own is not None and own.get(end, left + 1) <= left) or self._lands_within(rules.carrier_cost, end, left):
                return []  # (found by a search from the end: the whole map's, below, for the message)
            landing = self._landing_distance(unit, rules, end)
            if landing is None:
                return [f"{name} could not land after moving to {end}: no friendly landing space can be reached"]
            if landing[0] > left:
                return [f"{name} could not land after moving to {end}: it would have {left} movement left "
                        f"and the nearest friendly landing space, {landing[1]}, is {landing[0]} away"]
            return []
        problem = self._landing_problem(unit, rules, end, extra)
        if problem is not None:
            return [f"{name} cannot land in {end}: {problem}"]
        return []

    def _room_changed(self, units: list[Unit], origin: str, end: str) -> bool:
        """Whether a move of these units from `origin` to `end` may change carrier room (and so
        where air units can land): a carrier moved, or an air unit left or entered a zone with
        carriers of the side."""
        rooms = self._room
        if rooms is None:
            # nothing computed from carrier room yet, but the zones carriers can still reach may be
            # kept from before (`apply` keeps them while no carrier moves)
            return self._later is not None and any(self._ur[u.id].carrier_capacity for u in units)
        for unit in units:
            rules = self._ur[unit.id]
            if rules.carrier_capacity:
                return True
            if rules.domain == "air" and rules.carrier_cost and (origin in rooms or end in rooms):
                return True
        return False

    def landings(self, unit_id: int, path: tuple[str, ...]) -> dict[str, int | None]:
        """Where the player's air unit could land after moving along `path` (its start first), as
        the board stands now: each space within its movement left at the end of the path (the end
        included) where it may land -> None for a territory (any number may land), or how many air
        units of its carrier cost the carriers of its side there have room for (its own place
        counted where it stands). Spaces holding enemy units are left out (a landing there would
        depend on a battle). Natural order; {} for a unit that is not an air unit."""
        unit = self._unit(unit_id)
        rules = self._rules(unit)
        if rules.domain != "air":
            return {}
        end = path[-1]
        left = rules.movement - unit.moved - (len(path) - 1)
        if left < 0:
            return {}
        # the answer depends on the unit only through these (its own place: where it stands): the
        # plans ask it of each air unit for each target, and units of a kind that stand together
        # ask the same; kept with the carrier room it read, until that changes (`_reset_air`)
        key = (end, left, rules.carrier_cost, unit.space)
        found = self._landings_kept.get(key)
        if found is None:
            found = self._landings_kept[key] = self._landings(unit, rules, end, left)
        return dict(found)

    def lands_ashore(self, unit_id: int, path: tuple[str, ...]) -> bool:
        """Whether `landings(unit_id, path)` names a territory (where any number may land): one
        without enemy units whose landing condition holds, within the air unit's movement left at
        the path's end (the end included); False for a unit that is not an air unit. Found by a
        search outward from the end that stops at the first such territory (`_nearest_landing`,
        kept per space until the carrier room changes), not by `landings`' look at every space
        within that movement (a plan asks this of each air unit for each of its targets)."""
        unit = self._unit(unit_id)
        rules = self._ur[unit_id]
        if rules.domain != "air":
            return False
        left = rules.movement - unit.moved - (len(path) - 1)
        return left >= 0 and self._lands_within(0, path[-1], left)  # (carrier cost 0: the territories alone)

    def _lands_within(self, cost: int, space: str, most: int) -> bool:
        """Whether an air unit of this carrier cost has a landing space within `most` air steps of
        `space` (`_nearest_landing`, kept per space until the carrier room changes)."""
        near = self._landing_near.get(cost)
        if near is None:
            near = self._landing_near[cost] = {}
        found = near.get(space)
        if found is None or (found[0] is None and found[1] < most):
            found = near[space] = self._nearest_landing(cost, space, most)
        return found[0] is not None and found[0] <= most

    def landing_destinations(self, unit_id: int) -> dict[str, tuple[str, ...]]:
        """The player's air unit's destinations (`kept_destinations`) that `landings` from where it
        stands offers: the spaces it may fly to and land in with the carrier room as it is now ->
        the path. Kept, not copied: read it, never change it. {} when it cannot move."""
        unit = self._unit(unit_id)
        rules = self._ur[unit_id]
        if rules.domain != "air" or self._blocked(unit, rules) is not None:
            return {}
        # the answers it is made of are kept under what this key names until the carrier room
        # changes (`_reset_air`): so is it (a non-combat phase asks it of every stranded air unit
        # after each landing, and a landing ashore changes no carrier room)
        key = (rules.carrier_cost, unit.space, rules.movement - unit.moved)
        found = self._landing_spaces.get(key)
        if found is None:
            # a territory in the reach is one `landings` offers (in non-combat move the reach holds
            # the territories without enemy units whose landing condition holds, as `landings`
            # does); a sea zone, where its carriers have room now (`landings`' test; the reach also
            # holds the zones a carrier may still reach, `later_carriers`). `landings` itself, a
            # look at every space within the unit's movement, is not made
            is_sea = self.board.is_sea
            found = self._landing_spaces[key] = {
                s: path for s, path in self._reach_of(unit, rules).items()
                if not is_sea[s] or self._landing_problem(unit, rules, s, later=False) is None}
        return found

    def _landings(self, unit: Unit, rules: UnitRules, end: str, left: int) -> dict[str, int | None]:
        """`landings` worked out: for the air unit with `left` movement at `end`."""
        spaces = [end] + [s for s, _ in self.board.air_reach(end, left)]
        found: dict[str, int | None] = {}
        enemy, is_sea, may_land = self._enemy, self.board.is_sea, self._may_land
        for space in sorted(spaces, key=self.board.order.__getitem__):
            if not is_sea[space]:
                # a territory: `_landing_problem`'s answer in line, asked in its order (agents ask
                # this of every air unit they plan to move, for every space it could land in)
                if space in enemy:
                    continue
                landable = may_land.get(space)
                if landable is None:
                    landable = self._landable(space)
                if landable:
                    found[space] = None
                continue
            if self._landing_problem(unit, rules, space, later=False) is not None:
                continue
            room = self._rooms().get(space, 0) + (rules.carrier_cost if unit.space == space else 0)
            found[space] = room // rules.carrier_cost
        return found

    def stranded_air(self) -> list[int]:
        """The player's air units with no landing where they stand (for the end of non-combat
        move): in a territory its side has not held since the turn started, or in a sea zone
        without room for it on its side's carriers (allied air units keep their places first,
        then the player's by id). By id."""
        self._sync()
        # asked after every move of a non-combat plan: kept until an air unit or a carrier moves
        # (`_forget_stranded`: a flight between land territories only changes the flown unit's
        # entry) or the board changes otherwise (a rebuild)
        kept = self._stranded
        if kept is not None:
            flown = self._flown
            if flown:
                self._flown = {}
                for uid in sorted(flown):  # (each flown unit's landing asked as the pass below asks it: by id)
                    unit = flown[uid]
                    if self._own(unit) and not self._landable(unit.space):
                        kept.append(uid)
                kept.sort()
            return list(kept)
        self._flown = {}
        stranded = []
        at_sea: dict[str, list[Unit]] = {}
        is_sea = self.board.is_sea
        afloat = sorted((u for u in self._allied_units if is_sea[u.space]), key=id_of)  # the side's units at sea
        ur = self._ur
        capacity: dict[str, int] = {}
        for unit in afloat:
            rules = ur[unit.id]
            if rules.domain == "air" and self._ally.get(unit.owner, False):
                at_sea.setdefault(unit.space, []).append(unit)
            if rules.carrier_capacity:
                capacity[unit.space] = capacity.get(unit.space, 0) + rules.carrier_capacity
        own = self._own
        for zone, flyers in at_sea.items():
            left = capacity.get(zone, 0)
            # (each flyer's `_own` found once: asked at the end of every non-combat move decision)
            for mine, unit in sorted(((own(u), u) for u in flyers), key=_own_then_id):
                cost = ur[unit.id].carrier_cost
                if cost > 0 and cost <= left:
                    left -= cost
                elif mine:
                    stranded.append(unit.id)
        for unit in self._mine:
            if not is_sea[unit.space] and ur[unit.id].domain == "air" and not self._landable(unit.space):
                stranded.append(unit.id)
        stranded.sort()
        self._stranded = stranded
        return list(stranded)

    def _forget_stranded(self, units: list[Unit], start: str) -> None:
        """After the player's move of `units` (and their cargo) from `start`, which changed nothing
        else: the stranded air units stand unless an air unit or a carrier moved (what
        `stranded_air` reads of the board besides control, enemy units and the landing condition,
        which change only by a rebuild: where the side's air units and carriers are). A flight of
        air units without cargo from a land territory to a land territory leaves the side's units
        at sea and their carriers as they were: only the flown units' entries change (each
        stranded where it ends when the landing condition refuses that territory), found when the
        list is next asked (`_flown`), the others' kept (the air units a non-combat plan lands
        after its moves fly so, one move each)."""
        stranded = self._stranded
        if stranded is None:
            return
        ur, by_id, is_sea = self._ur, self._by_id, self.board.is_sea
        ashore = not is_sea[start]
        flown = []
        for unit in units:
            for moved in (unit, *(by_id[cid] for cid in unit.cargo)):
                rules = ur[moved.id]
                if rules.domain == "air" and ashore and not is_sea[moved.space] and not rules.carrier_capacity \
                        and not moved.cargo:
                    flown.append(moved)
                elif rules.domain == "air" or rules.carrier_capacity:
                    self._stranded = None
                    return
        if flown:
            gone = {unit.id for unit in flown}
            stranded[:] = [uid for uid in stranded if uid not in gone]
            for unit in flown:
                self._flown[unit.id] = unit


def _own_then_id(pair: tuple) -> tuple:
    """The sort key of (the player moves it as its own, unit) in `stranded_air`: allied units' places first, then by id."""
    return pair[0], pair[1].id
