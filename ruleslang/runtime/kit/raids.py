"""Bombing raids in the combat move (the movement engine's part).

An air unit whose rules let it bomb (`can_bomb`) may move with kind "bomb" to a space it reaches
whose factory it may raid (`PathsPart._bomb_targets`); one that may escort (`can_escort`, and not
bomb) may move with kind "bomb" to a space the player's bombing units raid in this combat move.
`raids_of(unit)` offers a unit's "bomb" moves (also through `moves_of` and `legal_moves`),
`raiding_units()` the units that may have any, and `bombing_raids()` the spaces raided once the
combat move is made.
"""

from __future__ import annotations

from ruleslang.board.state import Unit
from ruleslang.runtime.kit.movement_rules import Move, UnitRules


class RaidsPart:
    """The engine's bombing raids (a mixin of `MovementEngine`)."""

    def _bombs_or_escorts(self, rules: UnitRules) -> bool:
        """Whether a unit of these rules may move with kind "bomb" in this phase: an air unit that
        may bomb or escort, in combat move."""
        return self.combat and rules.domain == "air" and (rules.can_bomb or rules.can_escort)

    def _raid_moves(self, unit: Unit, rules: UnitRules, reach: dict[str, tuple[str, ...]]) -> list[Move]:
        """The "bomb" moves of an air unit that may bomb or escort, in combat move, from its reach."""
        uid = (unit.id,)
        made = Move.of_tuples
        if rules.can_bomb:
            return [made(uid, reach[s], "bomb") for s in self._bomb_targets(reach)]
        raided = self._raided()
        return [made(uid, reach[s], "bomb") for s in reach if s in raided]

    def raids_of(self, unit_id: int) -> list[Move]:
        """The unit's "bomb" moves, as `moves_of` lists them, without making its other moves (an
        agent planning a combat move asks it of every unit: most have none)."""
        self._sync()
        unit = self._unit(unit_id)
        rules = self._ur[unit_id]
        if not self._bombs_or_escorts(rules) or self._blocked(unit, rules) is not None:
            return []
        left = rules.movement - unit.moved
        table, key = self._reach_kept(unit, rules, left)
        if rules.can_bomb and key not in table:
            # its reach is read at the spaces it may raid alone (enemy players' territories whose
            # factory `_raid_target` accepts): walked for those alone (`_air_walk_among`, a landing
            # search from each) unless the whole reach is kept already. The raid condition is asked
            # first, of every space within the flight (kept per space until the board changes): the
            # checker refuses one that rolls dice (T310), so asking it of more spaces changes nothing
            # else; most of the enemy's territories have no factory, and each landing search costs
            # more than the condition's answer
            may_raid = self._raid_target
            held = {s for s, _ in self.board.air_reach(unit.space, left) if may_raid(s)}
            return self._raid_moves(unit, rules, self._air_walk_among(unit, rules, left, held) if held else {})
        return self._raid_moves(unit, rules, self._reach_of(unit, rules))

    def raiding_units(self) -> list[int]:
        """Ids of the player's units that may fly to a bombing raid in this phase, by id: in combat
        move, its air units whose rules let them bomb or escort (`can_bomb`, `can_escort`); the
        only units `raids_of` may give a move and `escorts_raids` may say yes of (an agent asks
        this before it asks each unit)."""
        self._sync()
        if not self.combat:
            return []
        found = self._raid_units
        if found is None:  # the player's units and their rules stand until the next rebuild
            ur, raids = self._ur, self._bombs_or_escorts
            found = self._raid_units = [u.id for u in self._mine if raids(ur[u.id])]
        return list(found)

    def escorts_raids(self, unit_id: int) -> bool:
        """Whether the unit may fly with the player's bombing units to a raid, as an escort (`escorts`)."""
        unit = self._unit(unit_id)
        rules = self._rules(unit)
        return rules.domain == "air" and rules.can_escort and not rules.can_bomb

    def _raided(self) -> set[str]:
        """Spaces the player's bombing units (`can_bomb`) raid in this combat move: where escorts may fly."""
        return {u.space for u in self._mine if u.flags.get("bombing") and self._ur[u.id].can_bomb}

    def bombing_raids(self) -> list[str]:
        """Spaces whose factory is raided by the player's units moved with kind "bomb", in natural order."""
        self._sync()
        found = {u.space for u in self._mine if u.flags.get("bombing")}
        return sorted(found, key=self.board.order.__getitem__)
