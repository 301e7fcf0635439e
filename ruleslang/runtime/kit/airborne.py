"""Airborne moves: land units flown into an attack in combat move (the movement engine's part).

A move of kind "airborne" carries land units whose `airborne` rule is true from the territory
they stand in to a hostile land territory, by air, in one step of the combat move:

- lifted by air units of the player moving with them (each carries `air_lift` land units; they fly
  the same path under the air rules, keeping a landing, and attack there too), or, without air
  units in the move, launched from their territory, which lets `airborne_from(t)` units take off
  from it in a turn (counted by the flag `airborne_from` the move sets), at most
  `policy.airborne_range` spaces (with `policy.airborne_together`, all those launched from one
  territory in a turn attack one territory);
- every unit in it has not moved this turn;
- the path passes passable spaces only; every space between its start and its end is a sea zone
  or a territory of the player's side (they "may not attack deep into enemy territory": the first
  hostile territory is the end); the end is a hostile land territory the rules' `airborne_to`
  accepts (default: any), where they attack.

The land units spend no movement of their own beyond the move's steps, end their movement there
(`in_battle`) and carry the flags `airborne_from` (the territory they took off from) and, when
lifted, `airborne_lift` (the air unit that carried them), which the rules read through the
built-ins `flown_from(u)` and `lifted_by(u)`. `airborne_moves(unit)` offers them (also through
`moves_of` and `legal_moves`), and `movable_units` lists a unit whose one move is a flight.
"""

from __future__ import annotations

from ruleslang.board.state import Unit
from ruleslang.runtime.kit.movement_rules import Move, UnitRules, unit_name

AIRBORNE = "airborne"


class AirbornePart:
    """The engine's airborne moves (a mixin of `MovementEngine`)."""

    def _airborne_capable(self, unit: Unit) -> bool:
        rules = self._ur[unit.id]
        return rules.domain == "land" and rules.airborne

    def _airborne_left(self, origin: str) -> int:
        """How many more land units may take off from `origin` this turn without an aircraft."""
        launch = self.rules.airborne_from
        if launch is None:
            return 0
        capacity = launch(origin, self.player)
        flown = sum(1 for u in self._mine if u.flags.get("airborne_from") == origin
                    and not u.flags.get("airborne_lift"))
        return max(0, int(capacity) - flown)

    def _airborne_reach(self, start: str, steps: int, targets_only: bool = True) -> dict[str, tuple[str, ...]]:
        """Every hostile land territory an airborne move from `start` may end in within `steps`
        (passing only sea zones and the side's territories; with `targets_only`, those
        `airborne_to` accepts) -> one shortest path."""
        board = self.board
        parent: dict[str, str | None] = {start: None}
        frontier = [start]
        ends: list[str] = []
        for _ in range(steps):
            nxt = []
            for space in frontier:
                for n in board.air[space]:
                    if n in parent:
                        continue
                    parent[n] = space
                    if board.is_sea[n] or self._friendly(n):
                        nxt.append(n)
                    else:
                        ends.append(n)  # the first hostile territory is where the flight ends
            frontier = nxt
        return self._paths(start, parent, [e for e in ends if not targets_only or self._airborne_end_ok(e)])

    def airborne_path(self, start: str, end: str, steps: int) -> tuple[str, ...] | None:
        """A shortest path an airborne flight from `start` to the hostile territory `end` may take
        within `steps` (sea zones and the side's territories before it), whatever else the move
        needs; None when there is none."""
        self._sync()
        return self._airborne_reach(start, steps, targets_only=False).get(end)

    def _airborne_end_ok(self, end: str) -> bool:
        target = self.rules.airborne_to
        return target is None or target(end, self.player)

    def _lifters(self, unit: Unit) -> list[Unit]:
        """The player's air units beside `unit` that could lift it (unmoved, with `air_lift`)."""
        return [u for u in self._mine if u.space == unit.space and u.moved == 0 and self._ur[u.id].domain == "air"
                and self._ur[u.id].air_lift > 0 and self._blocked(u, self._ur[u.id]) is None]

    def airborne_units(self) -> list[int]:
        """Ids of the player's units the rules let fly into an attack (land units with the rule
        `airborne`), by id: the only ones `airborne_moves` may give a move (an agent asks this
        before it asks each unit)."""
        self._sync()
        return [u.id for u in self._mine if self._airborne_capable(u)]

    def airborne_moves(self, unit_id: int) -> list[Move]:
        """The unit's legal airborne moves (combat move only): from its territory's launch, and
        with each air unit beside it that may lift it, to each territory it may attack, in
        natural order; [] when it cannot fly."""
        self._sync()
        unit = self._unit(unit_id)
        if not self.combat or not self._airborne_capable(unit) or self._airborne_unit_problem(unit) is not None:
            return []
        moves: list[Move] = []
        range_ = self.policy.airborne_range
        if range_ > 0 and self._airborne_left(unit.space) > 0:
            for path in self._airborne_reach(unit.space, range_).values():
                move = Move((unit.id,), path, AIRBORNE)
                if not self.check(move):
                    moves.append(move)
        for lifter in self._lifters(unit):
            rules = self._ur[lifter.id]
            for path in self._airborne_reach(unit.space, rules.movement - lifter.moved).values():
                move = Move((unit.id, lifter.id), path, AIRBORNE)
                if not self.check(move):
                    moves.append(move)
        return moves

    def _airborne_unit_problem(self, unit: Unit) -> str | None:
        """Why a land unit cannot fly (None: it may)."""
        if not self._own(unit):
            return f"it belongs to {unit.owner}"
        if self.board.is_sea[unit.space]:
            return "it is aboard a transport"
        if unit.moved or unit.flags.get("combat_moved"):
            return "it has moved this turn"
        return None

    def _check_airborne(self, move: Move, units: list[Unit]) -> list[str]:
        """Why an airborne move is illegal ([] when it is legal)."""
        if not self.combat:
            return ["airborne moves are made in combat move"]
        if move.transport is not None:
            return ["only a load or an unload names a transport"]
        path = move.path
        start, end = path[0], path[-1]
        problems: list[str] = []
        land = [u for u in units if self._ur[u.id].domain == "land"]
        air = [u for u in units if self._ur[u.id].domain == "air"]
        if not land:
            problems.append("an airborne move carries at least one land unit")
        for unit in units:
            name = unit_name(unit)
            rules: UnitRules = self._ur[unit.id]
            if unit.space != start:
                problems.append(f"{name} is in {unit.space}, not {start}")
            elif rules.domain == "sea":
                problems.append(f"{name} is a sea unit")
            elif rules.domain == "land" and not rules.airborne:
                problems.append(f"{name} cannot be flown into an attack (the rules' airborne setting)")
            elif rules.domain == "land":
                reason = self._airborne_unit_problem(unit)
                if reason is not None:
                    problems.append(f"{name} cannot fly: {reason}")
            elif rules.air_lift <= 0:
                problems.append(f"{name} carries no land units (the rules' air_lift setting)")
            else:
                reason = self._blocked(unit, rules) or ("it has moved this turn" if unit.moved else None)
                if reason is not None:
                    problems.append(f"{name} cannot move: {reason}")
        if problems:
            return problems
        for space in path[1:]:
            if not self.board.passable[space]:
                return [f"the flight cannot pass {space}: it is impassable"]
        for space in path[1:-1]:
            if not self.board.is_sea[space] and not self._friendly(space):
                return [f"the flight stops in the first hostile territory it reaches, {space}, not {end}"]
        if self.board.is_sea[end] or self._friendly(end):
            return [f"an airborne move ends in an attack on a hostile territory; {end} is not one"]
        if not self._airborne_end_ok(end):
            return [f"the rules' airborne_to setting does not let units be flown into {end}"]
        steps = len(path) - 1
        if air:
            room = sum(self._ur[u.id].air_lift for u in air)
            if room < len(land):
                return [f"the air units carry {room} land unit(s), the move has {len(land)}"]
            for unit in air:
                rules = self._ur[unit.id]
                left = rules.movement - unit.moved
                if steps > left:
                    problems.append(f"{unit_name(unit)} has {left} movement left but the path to {end} "
                                    f"takes {steps} steps")
                else:
                    problems += self._check_air(unit, rules, path, left - steps)
            return problems
        range_ = self.policy.airborne_range
        if range_ <= 0:
            return ["land units fly only with air units that carry them (no airborne range without them)"]
        if steps > range_:
            return [f"units flown from {start} go at most {range_} spaces; {end} is {steps} away"]
        left = self._airborne_left(start)
        if left < len(land):
            return [f"{left} more land unit(s) may take off from {start} this turn (the rules' airborne_from "
                    f"setting), the move has {len(land)}"]
        if self.policy.airborne_together:
            elsewhere = next((u.space for u in self._mine if u.flags.get("airborne_from") == start
                              and not u.flags.get("airborne_lift") and u.space != end), None)
            if elsewhere is not None:
                return [f"the units launched from {start} this turn attack one territory, {elsewhere} "
                        f"(the rules' airborne_together setting)"]
        return []

    def _apply_airborne(self, move: Move, units: list[Unit]) -> None:
        """Make a legal airborne move: the land units (flagged with where they took off and what
        lifted them) and the air units lifting them each move to the end, an attack."""
        path = move.path
        land = [u.id for u in units if self._ur[u.id].domain == "land"]
        air = [u for u in units if self._ur[u.id].domain == "air"]
        trail = "passed_" + self.phase
        steps = len(path) - 1
        flags = {"combat_moved": True, "in_battle": True, "airborne_from": path[0]}
        if not air:
            self.state.move_units(land, path[-1], steps, path=path, flags=flags, trail=trail)
        for lifter in air:  # each air unit carries its share of the land units, in the move's order
            share, land = land[:self._ur[lifter.id].air_lift], land[self._ur[lifter.id].air_lift:]
            if share:
                self.state.move_units(share, path[-1], steps, path=path, flags={**flags, "airborne_lift": lifter.id},
                                      trail=trail)
        if air:
            self.state.move_units([u.id for u in air], path[-1], steps, path=path,
                                  flags={"combat_moved": True, "in_battle": True}, trail=trail)
        self._version = None  # rebuild everything on the next query
