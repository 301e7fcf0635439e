"""Battles: the runtime `battle` procedure and the battle the rules' steps act on.

`runtime battle with {round: "battle_round", start: "battle_start", capture: "capture",
raid: "bombing_raid", fights: u => ..., hit_points: u => ..., captured: u => ...}` fights every
battle the combat move left: it runs the `start` step, then the steps of the `round` sequence
round after round until one side has no fighting units left or the attacker retreats, then the
`capture` step when the attacker holds a land territory with land units. The enemy units that
did not fight and are still there after the capture step change hands with the territory where
`captured` says so, and are destroyed otherwise. Bombing raids run the `raid` step.

What a step does is written in the ruleset (`hit N of UNITS by PLAYER [now]`, `submerge`,
`retreat to`); the runtime supplies the battle: who fights, the casualty decisions (by the
owning player's agent, hit points respected), and removing casualties at the end of a round.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ruleslang.base.errors import EvalError
from ruleslang.lang.eval.statements import run_procedure
from ruleslang.runtime.config import procedure_config
from ruleslang.runtime.decisions import Decision

MAX_ROUNDS = 100  # a battle where neither side can score hits would never end


@dataclass
class Battle:
    game: object
    space: str
    attacker: str
    defender: str | None
    kind: str = "battle"           # "battle" or "raid"
    amphibious: bool = False
    attacking: list[int] = field(default_factory=list)
    defending: list[int] = field(default_factory=list)
    came_from: dict[int, str] = field(default_factory=dict)  # attacking unit id -> where it moved from
    support: list[int] = field(default_factory=list)         # units that support without fighting (bombardment)
    round: int = 0
    pending: list[int] = field(default_factory=list)         # casualties leaving at the end of the round
    submerged: list[int] = field(default_factory=list)
    retreated_to: str | None = None
    hits_taken: dict[str, int] = field(default_factory=lambda: {"attacker": 0, "defender": 0})

    # ------------------------------------------------------------------ who fights

    def _alive(self, ids: list[int]) -> list:
        state = self.game.state
        gone = set(self.submerged)
        out = []
        for uid in ids:
            unit = self.game.unit_or_none(uid)
            if unit is not None and uid not in gone and unit.space == self.space:
                out.append(unit)
        return out

    def units(self, side: str) -> list:
        """The units still fighting on a side (casualties of this round fire back until it ends)."""
        if side == "attacker":
            return [] if self.retreated_to is not None else self._alive(self.attacking)
        return self._alive(self.defending)

    def support_units(self) -> list:
        return self._alive_anywhere(self.support)

    def _alive_anywhere(self, ids: list[int]) -> list:
        state = self.game.state
        return [u for u in (self.game.unit_or_none(i) for i in ids) if u is not None]

    def side_of_unit(self, uid: int) -> str:
        return "attacker" if uid in self.attacking else "defender"

    def retreat_options(self) -> list[str]:
        """Where attackers may retreat: friendly spaces they came from (none after an amphibious landing)."""
        if self.amphibious or self.kind != "battle":
            return []
        board = self.game.board
        options = []
        for uid in self.attacking:
            origin = self.came_from.get(uid)
            if origin is None or origin == self.space or origin in options:
                continue
            owner = board.controller(origin) if board.is_land(origin) else self.attacker
            if board.is_sea(origin) or (owner is not None and self.game.allied(owner, self.attacker)):
                options.append(origin)
        return sorted(options, key=self.game.space_order)

    # ------------------------------------------------------------------ effects

    def hit(self, ctx, count: int, unit_ids: list[int], chooser: str, now: bool) -> None:
        """`hit N of UNITS by PLAYER`: PLAYER assigns N hits among those units still fighting."""
        state = self.game.state
        fighting = {u.id for u in self.units("attacker")} | {u.id for u in self.units("defender")}
        dead = set(self.pending)
        candidates = [self.game.unit_or_none(uid) for uid in unit_ids if uid in fighting and uid not in dead]
        room = {u.id: self.game.hit_points(u) - u.hits for u in candidates}
        count = min(count, sum(max(0, r) for r in room.values()))
        if count <= 0:
            return
        side = self.side_of_unit(candidates[0].id)
        self.hits_taken[side] += count
        decision = Decision("casualties", chooser, f"{count} hit(s) in {self.space}: choose the casualties",
                            options=[u.id for u in candidates], mode="exactly", count=count,
                            context={"room": room, "battle": self})
        chosen = self.game.ask(decision, lambda answer: _check_casualties(answer, room, count),
                               fallback=lambda: _cheapest_casualties(self.game, candidates, room, count))
        for uid in chosen:
            unit = self.game.unit_or_none(uid)
            state.update_units([uid], hits=unit.hits + 1)
            if unit.hits >= self.game.hit_points(unit):
                if now:
                    self.game.remove_units([uid], f"casualty in {self.space}")
                elif uid not in self.pending:
                    self.pending.append(uid)
        ctx.log("hits", space=self.space, side=side, count=count, chosen=list(chosen), by=chooser,
                now=now, round=self.round)

    def submerge(self, ctx, unit_ids: list[int]) -> None:
        ids = [uid for uid in unit_ids if uid not in self.submerged and uid not in self.pending]
        self.submerged.extend(ids)
        if ids:
            ctx.log("submerge", space=self.space, units=ids, round=self.round)

    def retreat(self, ctx, to: str) -> None:
        options = self.retreat_options()
        if to not in options:
            raise EvalError("E543", f"the attackers in {self.space} cannot retreat to {to}"
                                    + (f"; they can retreat to {', '.join(options)}" if options else ""))
        movers = [u.id for u in self.units("attacker") if u.id not in self.pending]
        self.game.state.move_units(movers, to)
        self.retreated_to = to
        ctx.log("retreat", space=self.space, to=to, units=movers, round=self.round)

    def join_arrivals(self, present: set[int], fights) -> None:
        """Units the rules brought into the space before the first round (a hook adding
        defenders before the battle starts) fight with their side; `present`: the units there before."""
        for unit in self.game.state.units:
            if unit.space != self.space or unit.id in present:
                continue
            if unit.owner == self.attacker:
                self.attacking.append(unit.id)
                self.came_from.setdefault(unit.id, self.space)
            elif not self.game.allied(unit.owner, self.attacker) and (fights is None or fights(unit)):
                self.defending.append(unit.id)

    def end_round(self) -> None:
        if self.pending:
            self.game.remove_units(sorted(self.pending), f"casualty in {self.space}")
            self.pending = []


def _check_casualties(answer, room: dict[int, int], count: int) -> list[str]:
    if not isinstance(answer, (list, tuple)) or len(answer) != count:
        return [f"choose exactly {count} casualties"]
    used: dict[int, int] = {}
    for uid in answer:
        if uid not in room:
            return [f"unit {uid} is not one of the units that can take these hits"]
        used[uid] = used.get(uid, 0) + 1
        if used[uid] > room[uid]:
            return [f"unit {uid} can take only {room[uid]} more hit(s)"]
    return []


def _cheapest_casualties(game, candidates, room, count) -> list[int]:
    """Units that can absorb a hit first, then the cheapest (the default when an agent fails)."""
    order = sorted(candidates, key=lambda u: (game.hit_points(u) - u.hits <= 1, game.unit_cost(u), u.id))
    chosen: list[int] = []
    left = dict(room)
    for u in order:
        while left[u.id] > 0 and len(chosen) < count:
            chosen.append(u.id)
            left[u.id] -= 1
    return chosen[:count]


# ---------------------------------------------------------------------- the procedure


def run(ctx, proc) -> None:
    """The `battle` runtime procedure: every battle and raid the combat move left, one by one."""
    game = ctx.game
    config = procedure_config(ctx, proc)
    steps = {name: config.text(name) for name in ("round", "start", "capture", "raid")}
    sequence = game.sequence(steps["round"]) if steps["round"] else []
    fights = config.predicate("fights")
    captured = config.predicate("captured")
    for space in list(game.pending_raids):
        _fight_raid(ctx, game, space, steps["raid"])
    game.pending_raids = []
    for space in list(game.pending_battles):
        _fight(ctx, game, space, steps, sequence, fights, captured)
    game.pending_battles = []
    ctx.contested_spaces = []


def _fight(ctx, game, space: str, steps: dict, sequence: list[str], fights, captured=None) -> None:
    state = game.state
    attacker = state.current_player
    board = game.board
    # units on a bombing raid raid the factory; they do not also fight for the territory
    attacking = [u.id for u in state.units if u.space == space and u.owner == attacker and not u.flags.get("bombing")]
    enemies = [u for u in state.units if u.space == space and not game.allied(u.owner, attacker)]
    defending = [u.id for u in enemies if fights is None or fights(u)]
    defender = _defender(game, space, enemies)
    battle = Battle(game, space, attacker, defender, amphibious=game.amphibious.get(space, False),
                    attacking=attacking, defending=defending,
                    came_from={uid: game.moved_from.get(uid, space) for uid in attacking},
                    support=list(game.support.get(space, [])))
    ctx.battle = battle
    try:
        game.log("battle", space=space, attacker=attacker, defender=defender, attacking=len(attacking),
                 defending=len(defending), amphibious=battle.amphibious)
        if steps["start"]:
            present = {u.id for u in state.units if u.space == space}
            run_procedure(ctx, steps["start"])
            battle.join_arrivals(present, fights)
        while battle.units("defender") and battle.units("attacker") and battle.retreated_to is None:
            if battle.round >= MAX_ROUNDS:
                game.log("stalemate", space=space, rounds=MAX_ROUNDS)
                break
            battle.round += 1
            for step in sequence:
                run_procedure(ctx, step)
                if battle.retreated_to is not None:
                    break
            battle.end_round()
        # the attacker wins when it still stands and the defenders do not (both destroyed: the defender holds)
        won = not battle.units("defender") and bool(battle.units("attacker")) and battle.retreated_to is None
        land = [u for u in battle.units("attacker") if game.domain(u) == "land"]
        taken = won and board.is_land(space) and bool(land) and not game.allied(board.controller(space) or attacker,
                                                                                attacker)
        result = "retreat" if battle.retreated_to else ("attacker" if won else "defender")
        if taken:
            # the capture step (and its hooks) see the enemy units that did not fight; those still
            # there afterwards change hands with the territory, or are destroyed
            if steps["capture"]:
                run_procedure(ctx, steps["capture"])
            _take_leftovers(game, space, attacker, captured)
        game.log("battle_end", space=space, attacker=attacker, defender=defender, result=result,
                 rounds=battle.round, taken=taken,
                 attacker_left=len(battle.units("attacker")), defender_left=len(battle.units("defender")))
        game.battle_results.append({"space": space, "attacker": attacker, "defender": defender,
                                    "result": result, "taken": taken, "rounds": battle.round})
    finally:
        ctx.battle = None


def _take_leftovers(game, space: str, attacker: str, captured) -> None:
    state = game.state
    leftovers = [u for u in state.units if u.space == space and not game.allied(u.owner, attacker)]
    kept = [u.id for u in leftovers if captured is not None and captured(u)]
    lost = [u.id for u in leftovers if u.id not in kept]
    if lost:
        game.remove_units(lost, f"taken with {space}")
    if kept:
        holder = game.board.controller(space)
        taker = holder if holder is not None and game.allied(holder, attacker) else attacker
        state.change_owner(kept, taker)
        game.log("captured_units", space=space, units=kept, by=taker)


def capture_without_battle(ctx, game, space: str, player: str) -> None:
    """Take `space` for `player` by the rules' capture step (a blitz through empty land)."""
    step = game.battle_setting("capture")
    if not step:
        game.state.set_control(space, player)
        return
    battle = Battle(game, space, player, game.board.controller(space))
    saved = ctx.battle
    ctx.battle = battle
    try:
        run_procedure(ctx, step)
    finally:
        ctx.battle = saved


def _fight_raid(ctx, game, space: str, step: str | None) -> None:
    state = game.state
    attacker = state.current_player
    units_in_raid = [uid for uid in game.raid_units.get(space, []) if game.unit_or_none(uid) is not None]
    factory = state.factories.get(space)
    defender = factory.owner if factory is not None else None
    battle = Battle(game, space, attacker, defender, kind="raid", attacking=units_in_raid)
    ctx.battle = battle
    try:
        game.log("raid", space=space, attacker=attacker, defender=defender, units_in_raid=len(units_in_raid))
        if step and units_in_raid and defender is not None:
            battle.round = 1
            run_procedure(ctx, step)
            battle.end_round()
    finally:
        ctx.battle = None


def _defender(game, space: str, enemies) -> str | None:
    controller = game.board.controller(space)
    if controller is not None and not game.allied(controller, game.state.current_player):
        return controller
    counts: dict[str, int] = {}
    for u in enemies:
        counts[u.owner] = counts.get(u.owner, 0) + 1
    if not counts:
        return None
    return sorted(counts, key=lambda p: (-counts[p], game.turn_position(p)))[0]
