"""The movement engine's lists of moves and of the units that can move (a mixin of `MovementEngine`).

It reads the engine's board facts and kept answers (`_mine`, `_ur`, `_by_id`, the reaches: see
`movement.py` for the rules) and keeps what an agent asks many times between two moves: each
unit's own moves (remade for the units a move touched), the units that may move or load, and
whether a unit's reach is empty (for units of a kind standing together, asked once).
"""

from __future__ import annotations

from ruleslang.board.state import Unit
from ruleslang.runtime.kit.movement_rules import Move, UnitRules


class MoveListsPart:
    """The move lists part of `MovementEngine`."""

    def _can_reach(self, unit: Unit, rules: UnitRules) -> bool:
        """Whether `_reach_of` is not empty; for an air unit whose reach is not known yet, found
        without working out every path (`_air_walk` stopped at the first space it would keep)."""
        left = rules.movement - unit.moved
        table, key = self._reach_kept(unit, rules, left)
        found = table.get(key)
        if found is not None:
            return bool(found)
        if rules.domain != "air":
            # units of a kind standing together ask the same: kept with the reaches (`_reach`)
            known = self._reach_any.get(key)
            if known is None:
                known = self._reach_any[key] = ((left >= 1 and self._first_step(unit.space, rules))
                                                or bool(self._reach_of(unit, rules)))
            return known
        known = self._air_any.get(key)
        if known is None:
            if self.combat and self._lands_near(unit.space, left):
                known = True  # (no landing search over the whole map)
            else:
                known = self._air_walk(unit, rules, left, first_only=True) != {}
            self._air_any[key] = known
        return known

    def _lands_near(self, start: str, left: int) -> bool:
        """In combat move, for an air unit in `start` with `left` movement: True when it stands in
        a land territory where it may land and has two steps (a flight to a space next to it, and
        back), or a land territory next to it is one where it may land (it flies there); False:
        it may still reach a space, as the full landing search (`_air_walk`) finds."""
        if left >= 2 and self._lands_in(start):
            return True
        return left >= 1 and any(self._lands_in(there) for there in self.board.air[start])

    def _lands_in(self, start: str) -> bool:
        """Whether `start` is a land territory from which `_landing`'s search starts for every air
        unit (no enemy units; the landing condition holds) and has a space next to it to fly to."""
        board = self.board
        return (not board.is_sea[start] and board.passable[start] and bool(board.air[start])
                and start not in self._enemy and self._landable(start))

    def _first_step(self, start: str, rules: UnitRules) -> bool:
        """Whether a land or sea unit in `start` can end a move one step away, as `_land_walk` and
        `_sea_walk` find the first layer of their search (True: its reach is not empty; False:
        a sea unit may still end further away)."""
        if rules.domain == "land":
            if self.combat:
                return bool(self.board.land[start])
            return any(map(self._enters_noncombat, self.board.land[start]))
        blocking = self._blocking if not rules.passes_blockers else self._stops_passers
        canal_steps = self.board.canal_steps
        for there in self.board.sea[start]:
            if there == start:
                continue
            if not self.combat and there in blocking:
                if rules.ends_among_enemies:
                    return True
                continue
            if (start, there) in canal_steps and self._closed_by(start, there) is not None:
                continue
            if self.combat or self._may_end(there, rules):
                return True
        return False

    def moves_of(self, unit_id: int) -> list[Move]:
        """The unit's own "move" and "bomb" moves (loads and unloads: `legal_moves`); [] when it
        cannot move."""
        self._sync()
        moves = list(self._unit_moves(self._unit(unit_id)))
        if self.combat and self._ur[unit_id].airborne:
            moves += self.airborne_moves(unit_id)
        return moves

    def _unit_moves(self, unit: Unit) -> list[Move]:
        """The unit's "move" (and "bomb") moves: [] when it cannot move."""
        rules = self._ur[unit.id]
        if self._blocked(unit, rules) is not None:
            return []
        reach = self._reach_of(unit, rules)
        uid = (unit.id,)
        made = Move.of_tuples
        moves = [made(uid, path) for path in reach.values()]
        if self._bombs_or_escorts(rules):
            moves += self._raid_moves(unit, rules, reach)
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

    def legal_moves(self, limit: int | None = None) -> list[Move]:
        """Single-unit legal moves: every unit's "move" to each destination (and "bomb" raids) by
        unit id then natural order of the destination; then loads (by unit, sea zone,
        transport); then unloads (by transport, unit, territory); then, in combat move, airborne moves
        (by unit: `airborne_moves`). At most `limit` moves."""
        self._sync()
        moves: list[Move] = []
        for unit_moves in self._move_lists().values():
            moves += unit_moves
            if limit is not None and len(moves) >= limit:
                return moves[:limit]
        loads, unloads = self._transfer_moves()
        moves += loads
        moves += unloads
        if self.combat:
            for unit in self._mine:
                if self._ur[unit.id].airborne:
                    moves += self.airborne_moves(unit.id)
        return moves if limit is None else moves[:limit]

    def movable_units(self) -> list[int]:
        """Ids of the player's units that have a legal move this phase (a move, a raid, a load,
        an unload or, in combat move, an airborne move: every unit `moves_of` or `legal_moves`
        offers a move), by id."""
        self._sync()
        # agents ask this many times between two moves: kept until the next move or change
        found = self._movable
        if found is None:
            if self._lists is not None:
                ids = {uid for uid, unit_moves in self._move_lists().items() if unit_moves}
            else:
                # each unit's answer is kept until a move touches it (the units `apply` marks dirty
                # for the move lists: their reach may have changed; no other unit's has): only
                # those are asked again
                can_move = self._can_move
                unasked = self._unasked
                ur = self._ur
                by_id = self._by_id
                for unit in self._mine if unasked is None else [by_id[uid] for uid in sorted(unasked)]:
                    uid = unit.id
                    rules = ur[uid]
                    if self._blocked(unit, rules) is None and self._can_reach(unit, rules):
                        can_move.add(uid)
                    else:
                        can_move.discard(uid)
                self._unasked = set()
                ids = set(can_move)
            if self._transfers is not None:
                loads, unloads = self._transfers
                ids.update(m.units[0] for m in loads)
            else:  # the units that may load, without making every load
                may_load = self._may_load
                if may_load is None:  # kept across moves that move no transport and no unit it carries
                    may_load = self._may_load = set()
                    self._loads(may_load)
                ids |= may_load
                unloads = self._unloads()
            ids.update(m.units[0] for m in unloads)
            if self.combat:  # a land unit whose one move is a flight (`airborne_moves`)
                airborne = self._airborne_units
                if airborne is None:
                    airborne = self._airborne_units = [u for u in self._mine if self._ur[u.id].airborne]
                ids.update(u.id for u in airborne if u.id not in ids and self.airborne_moves(u.id))
            found = self._movable = sorted(ids)
        return list(found)

    def _forget_loads(self, units: list[Unit]) -> None:
        """The units that may load (`_may_load`) after a move of `units` that is not a load or an
        unload: all found again when a transport moved (or one of them carries cargo); else only
        the answers of the moved units transports carry changed (their place, their movement,
        their flags: no transport's place, cargo or flags did), and only those are asked again."""
        ur, by_id = self._ur, self._by_id
        carried = []
        for unit in units:
            for moved in (unit, *(by_id[cid] for cid in unit.cargo)):
                rules = ur[moved.id]
                if rules.transport_capacity > 0:
                    self._may_load = None
                    return
                if rules.transport_cost > 0:
                    carried.append(moved)
        if carried:
            may_load = self._may_load
            may_load.difference_update(u.id for u in carried)
            self._loads(may_load, among=carried)
