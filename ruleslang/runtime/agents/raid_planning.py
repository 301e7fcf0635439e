"""The heuristic agent's bombing raids in its combat move (the `RaidPlanning` part of its
`AttackPlanning`): the units no attack needs raid the richest enemy factory each reaches, with
escorts where enemy air units wait to intercept, each keeping a landing; the escorts are kept out
of the attacks first. The methods read the agent's unit facts and its plan's landings
(heuristic.py, attack_planning.py's `_keeps_landing`) through `self`.
"""

from __future__ import annotations

from ruleslang.runtime.kit.movement import Move


class RaidPlanning:
    """The combat plan's bombing raids and their escorts (a part of AttackPlanning)."""

    def _raids(self, game, engine, used: set[int], reserved: dict[str, int], moves: dict[int, list]) -> list:
        """Bombing raids by the units no attack needs, on the richest enemy factory each reaches
        from which it keeps a landing (`_keeps_landing`); then escorts (`_escorts`). `moves`: each
        raiding unit's raids (`raids_of`, in the order of `raiding_units`)."""
        raids = []
        for uid, offered in moves.items():
            if uid in used:
                continue
            bombs = [m for m in offered if self._may(m)]
            for move in sorted(bombs, key=lambda m: (-self._territory_value(game, m.path[-1]),
                                                     game.space_order(m.path[-1]))):
                if self._keeps_landing(game, engine, uid, move.path, reserved):
                    raids.append(move)
                    used.add(uid)
                    break
        return raids + self._escorts(game, engine, raids, used, reserved)

    def _waiting(self, game, target: str) -> int:
        """The enemy air units in `target`: the interceptors a raid there may meet."""
        return sum(1 for u in game.board.units(target)
                   if not game.allied(u.owner, self.player) and self._domain(game, u) == "air")

    def _escort_reserve(self, game, engine, can_raid: set[int], raids: dict[int, list]) -> set[int]:
        """The units kept out of the attacks to escort raids (`_escorts`): for each space a unit
        that can raid would bomb (the richest it reaches), one escort that reaches it for each
        enemy air unit waiting there. `raids`: as `_raids`' `moves`."""
        if not can_raid:
            return set()
        escorts = [uid for uid in engine.raiding_units() if engine.escorts_raids(uid)]  # (as in `_combat_plan`)
        targets = set()
        for uid in sorted(can_raid):
            bombs = [m.path[-1] for m in raids[uid]]
            if bombs:
                targets.add(min(bombs, key=lambda t: (-self._territory_value(game, t), game.space_order(t))))
        held: set[int] = set()
        for target in sorted(targets, key=game.space_order):
            waiting = self._waiting(game, target)
            for uid in escorts:
                if waiting <= 0:
                    break
                if uid not in held and target in engine.kept_destinations(uid):
                    held.add(uid)
                    waiting -= 1
        return held

    def _escorts(self, game, engine, raids: list, used: set[int], reserved: dict[str, int]) -> list:
        """Escorts (units the rules let fly with the bombing units: `escorts`) that no attack needs, to each
        raid where enemy air units wait to intercept: one for each of them, each keeping a landing.
        They are planned after the raids, so the engine accepts them once the bombing units have flown."""
        escorts = []
        raiding = engine.raiding_units()  # (an escort is one of them: as in `_combat_plan`)
        for target in sorted({m.path[-1] for m in raids}, key=game.space_order):
            waiting = self._waiting(game, target)
            for uid in raiding:
                if waiting <= 0:
                    break
                if uid in used or not engine.escorts_raids(uid):
                    continue
                path = engine.kept_destinations(uid).get(target)
                if path is None:
                    continue
                move = Move.of_tuples((uid,), path, "bomb")
                if self._may(move) and self._keeps_landing(game, engine, uid, path, reserved):
                    escorts.append(move)
                    used.add(uid)
                    waiting -= 1
        return escorts
