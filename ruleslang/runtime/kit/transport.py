"""Transports for the movement engine: loading, unloading and cargo room.

A mixin of `MovementEngine` (see `movement.py` for the rules): it reads the engine's board
facts (`board`, `policy`, `_mine`, `_by_id`, `_ally`, `_blocking`, `_no_unload`, `combat`) and lists
and checks loads and unloads.

An ally's transport keeps its own turn's flags (`unloaded_to`, `in_battle`, ... until its owner's
turn starts); what the mover unloads from it is noted apart, in its flag `ally_unload` = {"player",
"round", "to", "in"}, which counts only in that player's turn of that round.

In combat move an unload from a sea zone whose enemy units block unloading is a landing that
waits for the sea battle there (`waits_for_battle`, `plan_landing`; kit/battle.py makes it after the
battle when the attacker wins, or cancels it); in non-combat move it is refused.
"""

from __future__ import annotations

from ruleslang.board.state import Unit
from ruleslang.runtime.kit.movement_rules import Move, UnitRules, id_of, unit_name


class TransportPart:
    """The transport part of `MovementEngine`."""

    def _transfer_moves(self) -> tuple[list[Move], list[Move]]:
        if self._transfers is None:
            self._transfers = (self._loads(), self._unloads())
        return self._transfers

    def _mine_by_space(self) -> dict[str, list[Unit]]:
        """The player's units (`_mine`) by space; kept until the next rebuild, `apply` moving the
        units it moves from list to list (`_follow`), so a list is in no fixed order: `_loads`
        sorts what it makes. Read with .get only."""
        index = self._by_space
        if index is None:
            index = self._by_space = {}
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

    def _ally_unload(self, transport: Unit) -> dict | None:
        """What the player unloaded from an ally's transport in this turn ({"to": territory, "in":
        phase, ...}), or None."""
        found = transport.flags.get("ally_unload")
        if found and found.get("player") == self.player and found.get("round") == self.state.round:
            return found
        return None

    def _unloaded_to(self, transport: Unit) -> str | None:
        """The territory the transport's cargo went ashore in this turn (the player's turn), or None."""
        if self._own(transport):
            return transport.flags.get("unloaded_to")
        done = self._ally_unload(transport)
        return done["to"] if done is not None else None

    def _unload_flags(self, transport: Unit, territory: str) -> dict:
        """The flags an unload into `territory` sets on its transport."""
        if self._own(transport):
            return {"unloaded_to": territory, "unloaded_in": self.phase}
        return {"ally_unload": {"player": self.player, "round": self.state.round, "to": territory, "in": self.phase}}

    def _transport_problem(self, transport: Unit, for_unload: bool) -> str | None:
        if transport.owner != self.player and not self._own(transport):
            # an ally's transport: its own flags are of its owner's turn
            done = self._ally_unload(transport)
            if done is not None:
                if not for_unload and not self.policy.unloaded_transport_loads:
                    return f"it unloaded into {done['to']} this turn"
                if for_unload and done["in"] != self.phase:
                    return f"it unloaded in {done['in']} move"
            return None
        flags = transport.flags
        if not for_unload and flags.get("unloaded_to") and not self.policy.unloaded_transport_loads:
            return f"it unloaded into {flags['unloaded_to']} this turn"
        if for_unload and flags.get("unloaded_in") not in (None, self.phase):
            return f"it unloaded in {flags['unloaded_in']} move"
        if flags.get("in_battle") and (not for_unload or not self.combat):
            return "it took part in a battle this turn" if not self.combat else "it is in a battle"
        return None

    def _load_problem(self, unit: Unit, rules: UnitRules) -> str | None:
        """Why a land unit cannot go aboard this phase (None: it can). An ally's unit (`loads_allied`)
        is taken aboard by the player's transport: its own moves are made in its owner's turn."""
        if rules.domain != "land":
            return "it is not a land unit"
        if rules.transport_cost <= 0:
            return "it cannot be carried"
        if self.board.is_sea[unit.space]:
            return "it is already aboard a transport"
        if unit.owner != self.player and not self._own(unit):
            return None if self.policy.loads_allied and self._ally.get(unit.owner, False) else \
                f"it belongs to {unit.owner}"
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

    def _allies_by_space(self) -> dict[str, list[Unit]]:
        """The allies' land units on land, by space (by id): what the player's transports may take
        aboard with `loads_allied`."""
        index: dict[str, list[Unit]] = {}
        is_sea = self.board.is_sea
        for unit in sorted(self.state.units, key=id_of):
            if (not self._own(unit) and self._ally.get(unit.owner, False) and not is_sea[unit.space]
                    and self._rules(unit).domain == "land"):
                index.setdefault(unit.space, []).append(unit)
        return index

    def _loadable_transports(self) -> list[Unit]:
        """The transports the player's land units may board: its own, and with `loads_onto_allied`
        its allies' (by id)."""
        if self._boardable is None:  # the same units until some are added or removed (a rebuild)
            ur = self._ur
            units = self._mine if not self.policy.loads_onto_allied else sorted(self._allied_units, key=id_of)
            self._boardable = [u for u in units if ur[u.id].transport_capacity > 0]
        return self._boardable

    def _loads(self, ids: set[int] | None = None, among: list[Unit] | None = None) -> list[Move]:
        """Every load, by unit, sea zone and transport; `ids` given: only the units that may load are
        noted in it, no move made (what `movable_units` needs, after every move); `among` given
        (some of the player's units), only their loads."""
        moves = []
        by_space = None
        allies = None
        if among is not None:
            by_space, allies = {}, {}
            for unit in among:
                by_space.setdefault(unit.space, []).append(unit)
        board = self.board
        ur = self._ur
        for transport in self._loadable_transports():
            rules = ur[transport.id]
            zone = transport.space
            if among is not None and by_space.keys().isdisjoint(board.land[zone]):
                continue  # no unit of `among` beside it: it adds no load of theirs (asked after every move)
            if (rules.transport_capacity <= 0 or not board.is_sea[zone] or zone in self._blocking
                    or self._transport_problem(transport, False) is not None):
                continue
            room = self._cargo_room(transport, rules)
            if room <= 0:
                continue
            if by_space is None:
                by_space = self._mine_by_space()
            if allies is None:
                allies = self._allies_by_space() if self.policy.loads_allied else {}
            own = self._own(transport)
            for territory in board.land[zone]:
                here = by_space.get(territory)
                if own and territory in allies:
                    here = (here or []) + allies[territory]
                elif not here:
                    continue
                for unit in here:
                    if ids is not None and unit.id in ids:
                        continue
                    unit_rules = ur[unit.id]
                    if (0 < unit_rules.transport_cost <= room
                            and self._load_problem(unit, unit_rules) is None):
                        if ids is not None:
                            ids.add(unit.id)
                        else:
                            moves.append(Move((unit.id,), (territory, zone), "load", transport.id))
        order = board.order
        moves.sort(key=lambda m: (m.units[0], order[m.path[1]], m.transport))
        return moves

    def _unload_targets(self, transport: Unit) -> list[str]:
        zone = transport.space
        # in combat move, an unload from a zone whose enemy units block it waits for the sea battle
        if (zone in self._no_unload and not self.combat) or self._transport_problem(transport, True) is not None:
            return []
        fixed = self._unloaded_to(transport)
        targets = [fixed] if fixed else list(self.board.land[zone])
        if not self.combat:
            targets = [t for t in targets if t not in self._enemy and self._friendly(t)]
        return targets

    def _unloads(self) -> list[Move]:
        moves = []
        laden = self._laden
        if laden is None:  # the units of the player's side with cargo, until a load or an unload
            laden = self._laden = sorted((u for u in self._allied_units if u.cargo), key=id_of)
        for transport in laden:
            if not self.board.is_sea[transport.space]:
                continue
            own = self._own(transport)
            cargo = []
            for cid in sorted(transport.cargo):
                unit = self._by_id.get(cid)
                if unit is None or not self._own(unit):
                    continue
                if self.combat and not self._rules(unit).moves_in_combat:
                    continue
                if not own and unit.flags.get("loaded_this_turn"):
                    continue  # aboard an ally's transport since this turn: ashore in a later one
                if unit.flags.get("unloaded_to"):
                    continue  # its landing is planned: it goes ashore after the sea battle
                cargo.append(cid)
            if not cargo:
                continue
            for target in self._unload_targets(transport):
                moves += [Move((cid,), (transport.space, target), "unload", transport.id) for cid in cargo]
        order = self.board.order
        moves.sort(key=lambda m: (m.transport, m.units[0], order[m.path[1]]))
        return moves

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
        tname = unit_name(transport)
        t_rules = self._rules(transport)
        if not self._own(transport):
            if not self._ally.get(transport.owner, False) or (loading and not self.policy.loads_onto_allied):
                return [f"{tname} belongs to {transport.owner}, not {self.player}"]
            if loading and any(not self._own(u) for u in units):
                return [f"{tname} belongs to {transport.owner}: it takes aboard only the units of the player whose "
                        f"turn it is, {self.player}"]
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
                    problems.append(f"{unit_name(unit)} cannot load: {reason}")
                elif unit.space != territory:
                    problems.append(f"{unit_name(unit)} is in {unit.space}, not {territory}")
                need += rules.transport_cost
            room = self._cargo_room(transport, t_rules)
            if not problems and need > room:
                problems.append(f"{tname} has room for {max(room, 0)}, "
                                f"{', '.join(unit_name(u) for u in units)} need {need}")
            return problems
        if zone in self._no_unload and not self.combat:
            return [f"cannot unload in {zone}: it holds enemy units"]
        fixed = self._unloaded_to(transport)
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
                problems.append(f"{unit_name(unit)} is not aboard {tname}")
            elif not self._own(transport) and unit.flags.get("loaded_this_turn"):
                problems.append(f"{unit_name(unit)} cannot unload: it went aboard {transport.owner}'s {tname} this "
                                f"turn and goes ashore in a later turn")
            elif unit.flags.get("unloaded_to"):
                problems.append(f"{unit_name(unit)} lands in {unit.flags['unloaded_to']} after the sea battle in {zone}")
            elif self.combat and not self._rules(unit).moves_in_combat:
                problems.append(f"{unit_name(unit)} cannot unload: it moves only in non-combat move")
        return problems

    def waits_for_battle(self, move: Move) -> bool:
        """True when `move`, a legal unload in combat move, is from a sea zone whose enemy units
        block unloading (`blocks_unload`): the landing is made after the sea battle there, when
        the attacker wins it (the battle procedure makes or cancels it), not now."""
        self._sync()
        return self.combat and move.kind == "unload" and move.path[0] in self._no_unload

    def plan_landing(self, move: Move) -> None:
        """Record a landing that waits for the sea battle (`waits_for_battle`): the cargo stays
        aboard, marked with the territory it is to land in, and the transport is bound to it as
        by an unload (it moves no more, and unloads nowhere else this turn)."""
        territory = move.path[1]
        self.state.update_units(list(move.units), combat_moved=True, unloaded_to=territory)
        self.state.update_units([move.transport], unloaded_to=territory, unloaded_in=self.phase)
