"""Land and sea paths for the movement engine: hostility, blocking, canals and blitzes.

A mixin of `MovementEngine` (see `movement.py` for the rules): it reads the engine's board
facts (`board`, `state`, `policy`, `_ally`, `_foe`, `_enemy`, `_blocking`, `_stops_passers`, `_stopping`,
`combat`) and answers where land and sea units may go and why a path is refused.
"""

from __future__ import annotations

from ruleslang.board.mapdata import Canal
from ruleslang.runtime.kit.movement_rules import UnitRules


class PathsPart:
    """The paths part of `MovementEngine`."""

    def _friendly(self, space: str) -> bool:
        holder = self.state.control.get(space)
        return holder is not None and self._ally.get(holder, False)

    def _enters_noncombat(self, space: str) -> bool:
        """Whether a land unit may enter land territory `space` in non-combat move: one held by its
        side and no enemy unit, or one it takes over by entering it (kit/takeover.py: that ends
        the move there)."""
        return not (space in self._enemy or not self._friendly(space)) or self._taken_over(space)

    def _friendly_since_start(self, space: str) -> bool:
        holder = self.state.control_at_turn_start.get(space)
        return holder is not None and self._ally.get(holder, False) and self._friendly(space)

    def _enemy_player(self, space: str) -> bool:
        holder = self.state.control.get(space)
        return holder is not None and self._foe.get(holder, True)

    def _raid_target(self, space: str) -> bool:
        """Whether the player's units may raid land territory `space`: an enemy's, that the rules'
        `raid_target` condition accepts (by default: one with a factory). Asked once per space
        until the board changes."""
        found = self._may_raid.get(space)
        if found is None:
            condition = self.rules.raid_target
            found = (not self.board.is_sea[space] and self._enemy_player(space)
                     and (condition(space, self.player) if condition is not None else space in self.state.factories))
            self._may_raid[space] = found
        return found

    def _holder(self, space: str) -> str:
        holder = self.state.control.get(space)
        return holder if holder is not None else "no one"

    def _canal_friendly(self, space: str) -> bool:
        """Whether a canal's territory opens it for the player: held by its side now, or (policy
        `canals` "turn") at the start of the turn."""
        if self.policy.canals == "turn":
            holder = self.state.control_at_turn_start.get(space)
            return holder is not None and self._ally.get(holder, False)
        return self._friendly(space)

    def _holder_for_canal(self, space: str) -> str:
        if self.policy.canals == "turn":
            holder = self.state.control_at_turn_start.get(space)
            return (holder if holder is not None else "no one") + " at the start of the turn"
        return self._holder(space)

    def _closed_by(self, a: str, b: str) -> tuple[Canal, str] | None:
        """The first closed canal on the sea step a -> b, with a territory that closes it."""
        for canal in self.board.canal_steps.get((a, b), ()):
            if canal.name not in self._canal_open:
                self._canal_open[canal.name] = next((t for t in canal.land if not self._canal_friendly(t)), None)
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

    def _in_order(self, paths: dict[str, tuple[str, ...]], ends) -> dict[str, tuple[str, ...]]:
        """The paths of `ends` (each a walk's path to it, start first), in the map's natural order."""
        return {end: paths[end] for end in sorted(ends, key=self.board.order.__getitem__)}

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
        if left == 1:
            # one step: the map's own answer in combat move (whatever it enters ends the move there),
            # and those of its spaces a non-combat move may enter (most walks: a unit of one step)
            steps = self.board.land_steps(start)
            if self.combat:
                return steps
            enters = self._enters_noncombat
            return {there: path for there, path in steps.items() if enters(there)}
        stopping = self._stopping if self.combat else self._enemy
        friendly = self._friendly
        land = self.board.land
        combat = self.combat
        # each space reached -> its path, made as the walk reaches it (one tuple a space, not a
        # walk back over the parents per space at the end)
        paths: dict[str, tuple[str, ...]] = {start: (start,)}
        hostile_passed = {start: 0}
        frontier = [start]
        for _ in range(left):
            layer: dict[str, tuple[int, str]] = {}
            for here in frontier:
                cost = hostile_passed[here]
                if here != start:
                    if here in stopping:
                        continue
                    if not friendly(here):
                        if not (combat and rules.can_blitz):
                            continue
                        cost += 1
                for there in land[here]:
                    if there in paths:
                        continue
                    if not combat and not self._enters_noncombat(there):
                        continue
                    seen = layer.get(there)
                    if seen is None or cost < seen[0]:
                        layer[there] = (cost, here)
            if not layer:
                break
            frontier = []
            for there, (cost, here) in layer.items():
                paths[there] = paths[here] + (there,)
                hostile_passed[there] = cost
                frontier.append(there)
        del paths[start]
        return self._in_order(paths, paths)

    def _sea_walk(self, start: str, left: int, rules: UnitRules,
                  combat: bool | None = None) -> dict[str, tuple[str, ...]]:
        """Every sea zone a sea unit can end a move in -> one shortest legal path; `combat`: under
        the rules of combat or non-combat move (default: this phase's)."""
        blocking = self._blocking if not rules.passes_blockers else self._stops_passers
        sea = self.board.sea
        combat = self.combat if combat is None else combat
        canal_steps = self.board.canal_steps
        paths: dict[str, tuple[str, ...]] = {start: (start,)}  # (as `_land_walk`'s)
        frontier = [start]
        for _ in range(left):
            following = []
            for here in frontier:
                if here != start and here in blocking:
                    continue
                to_here = paths[here]
                for there in sea[here]:
                    if there in paths:
                        continue
                    if not combat and there in blocking:
                        if rules.ends_among_enemies:  # it may end there, not pass
                            paths[there] = to_here + (there,)
                        continue
                    if (here, there) in canal_steps and self._closed_by(here, there) is not None:
                        continue
                    paths[there] = to_here + (there,)
                    following.append(there)
            if not following:
                break
            frontier = following
        del paths[start]
        return self._in_order(paths, paths if combat else (s for s in paths if self._may_end(s, rules)))

    def _may_end(self, space: str, rules: UnitRules) -> bool:
        """Whether a sea unit may end a non-combat move in sea zone `space`: it holds no enemy
        units, or none that keep units from ending there (`blocks_ending`), or the unit may end
        among any (`ends_among_enemies`)."""
        return space not in self._enemy or space not in self._no_end or rules.ends_among_enemies

    def _bomb_targets(self, reach: dict[str, tuple[str, ...]]) -> list[str]:
        return [s for s in reach if self._raid_target(s)]

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
                if i == last and self._taken_over(space):
                    continue  # entered to be taken over (kit/takeover.py)
                if space in self._enemy:
                    return [f"{name} cannot enter {space} in non-combat move: it holds enemy units"]
                if not self._friendly(space):
                    return [f"{name} cannot enter {space} in non-combat move: it is held by {self._holder(space)}"]
            elif i < last:
                if space in self._stopping:
                    return [f"{name} must stop in {space}: it holds enemy units"]
                if not self._friendly(space) and not rules.can_blitz:
                    return [f"{name} must stop in {space}: it is held by {self._holder(space)} "
                            f"(only a blitzing unit passes through an empty hostile territory)"]
        return []

    def _check_sea(self, name: str, rules: UnitRules, path: tuple[str, ...]) -> list[str]:
        board = self.board
        blocking = self._blocking if not rules.passes_blockers else self._stops_passers
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
                        f"{territory} is held by {self._holder_for_canal(territory)}"]
            if space in blocking:
                if not self.combat and not (i == last and rules.ends_among_enemies):
                    return [f"{name} cannot enter {space} in non-combat move: enemy units there block it"]
                if i < last:
                    return [f"{name} must stop in {space}: enemy units there block it"]
            if not self.combat and i == last and not self._may_end(space, rules):
                return [f"{name} cannot end a non-combat move in {space}: it holds enemy units"]
        return []
