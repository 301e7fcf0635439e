"""Battles: the runtime `battle` procedure and the battle the rules' steps act on.

`runtime battle with {round: "battle_round", start: "battle_start", capture: "capture",
raid: "bombing_raid", fights: u => ..., hit_points: u => ..., captured: u => ..., ...}` fights
every battle the combat move left: it runs the `start` step, then the steps of the `round`
sequence round after round until one side has no fighting units left or the attacker retreats,
then the `capture` step when the attacker wins a hostile land territory with a unit that
`captures` says may take it. The enemy units that did not fight and are still there after the
capture step change hands with the territory where `captured` says so, and are destroyed
otherwise. Bombing raids run the `raid` step.

Sea battles that planned landings wait for (kit/transport.py) are fought first: when the
attacker wins one, the landings from its zone are made (the cargo of the surviving transports
goes ashore, and a hostile territory becomes a battle fought later in the phase); otherwise they
are cancelled and the cargo stays aboard. Cargo at sea does not fight and is lost with its
transport; a ship that fought a sea battle does not support a landing.

What a step does is written in the ruleset (`hit N of UNITS by PLAYER [now]`, `submerge`,
`retreat to`); the runtime supplies the battle: who fights, the casualty decisions (by the
owning player's agent, hit points respected), and removing casualties at the end of a round.
Every battle policy is a setting (`BattleRules`, defaults in docs/runtime.md, "Kit settings"):
which units fight (`fights`) and take a territory (`captures`), who defends (`defender`) and who
chooses which casualties (`casualties_by`), whether the attacker may retreat (`retreats`), where
to (`retreat_to`) and which units may retreat on their own (`withdraws`), and when a battle no
side can win is over (`stalemate`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ruleslang.base.errors import EvalError
from ruleslang.lang.eval.statements import run_procedure
from ruleslang.runtime.config import procedure_config
from ruleslang.runtime.kit.battle_rules import BattleRules
from ruleslang.runtime.kit.casualties import casualty_order, cheapest_rank_of
from ruleslang.runtime.kit.landings import late_sea_battles, make_landings, recall_landings, takes_land
from ruleslang.runtime.decisions import Decision

MAX_ROUNDS = 100  # a battle where neither side can score hits, and the rules do not say so, would never end


@dataclass
class Battle:
    """One battle (or bombing raid) in a space: its sides, its round and what happened in it.
    `rules`: the battle settings (the runtime's defaults when not given)."""

    game: object
    space: str
    attacker: str
    defender: str | None
    kind: str = "battle"           # "battle" or "raid"
    amphibious: bool = False
    attacking: list[int] = field(default_factory=list)
    defending: list[int] = field(default_factory=list)
    came_from: dict[int, str] = field(default_factory=dict)  # attacking land or sea unit id -> where it moved from
    support: list[int] = field(default_factory=list)         # units that support without fighting (bombardment)
    round: int = 0
    pending: list[int] = field(default_factory=list)         # casualties leaving at the end of the round
    submerged: list[int] = field(default_factory=list)
    withdrawn: list[int] = field(default_factory=list)       # attackers that left the battle where they stand
    retreated_to: str | None = None
    hits_taken: dict[str, int] = field(default_factory=lambda: {"attacker": 0, "defender": 0})
    rules: BattleRules | None = None
    removals: int = 0  # the board's removals of units this battle made (its casualties): `standing_since`
    # side -> (the board's steps that may have moved units, its list of units, the units, the
    # battle's `_changes`): `units`, asked many times a round; side -> (the board's version, its
    # list of units, the battle's `_changes`, their values): `unit_values`; (side, tag) -> (the
    # side's units, those with the tag): `tagged_units`
    _kept: dict = field(default_factory=dict, init=False, repr=False, compare=False)
    _values: dict = field(default_factory=dict, init=False, repr=False, compare=False)
    _tagged: dict = field(default_factory=dict, init=False, repr=False, compare=False)
    # how often the battle's own methods changed its lists of units (`join_arrivals`, `submerge`,
    # `retreat`): what `units` reads of the battle besides the board (the exact chain puts new
    # lists on it with a step of the board's version)
    _changes: int = field(default=0, init=False, repr=False, compare=False)
    # side -> the board's version steps made by the hits its units took (`hit`): a side's values
    # stand across the steps of the other side's hits (`unit_values`)
    _hit_steps: dict = field(default_factory=lambda: {"attacker": 0, "defender": 0}, init=False, repr=False,
                             compare=False)

    def __post_init__(self) -> None:
        if self.rules is None:
            self.rules = BattleRules(self.game, None)

    def __getstate__(self) -> dict:
        """The battle's own data, for a copy of the game made within it (runtime/agents/phase_starts.py):
        not its game or settings, which the copy gives it again, nor what it kept of the board."""
        data = dict(vars(self))
        data["game"] = data["rules"] = None
        data["_kept"], data["_values"], data["_tagged"] = {}, {}, {}
        data["_hit_steps"] = {"attacker": 0, "defender": 0}  # (read only with the values kept)
        return data

    # ------------------------------------------------------------------ who fights

    def _alive(self, ids: list[int]) -> list:
        gone = set(self.submerged)
        out = []
        for uid in ids:
            unit = self.game.unit_or_none(uid)
            if unit is not None and uid not in gone and unit.space == self.space:
                out.append(unit)
        return out

    def units(self, side: str) -> list:
        """The units still fighting on a side (casualties of this round fire back until it ends).
        Kept while the board has the same units, each where it stood, and the battle the same
        lists (`_changes`): the rules ask for a side's units many times a round. The list is
        the battle's own (read it, do not change it)."""
        state = self.game.state
        kept = self._kept.get(side)
        # (each part compared in turn, no key made: asked about 3,500 times a game)
        if (kept is not None and kept[1] is state.units and kept[0] == state.version - state.places_kept
                and kept[3] == self._changes):
            return kept[2]
        found = self._units_now(side)
        self._kept[side] = (state.version - state.places_kept, state.units, found, self._changes)
        return found

    def units_known(self, attackers: list, defenders: list) -> None:
        """Take each side's units still fighting now as `units` would work them out (the exact
        chain, which has just put a state on the board, every unit in the space and none
        withdrawn: those of its lists but the submerged, in their order), kept as `units` keeps
        its own, so that it does not work them out again from the board."""
        state = self.game.state
        placed = state.version - state.places_kept
        self._kept["attacker"] = (placed, state.units, attackers, self._changes)
        self._kept["defender"] = (placed, state.units, defenders, self._changes)

    def _units_now(self, side: str) -> list:
        """`units(side)` worked out from the board now."""
        if side == "attacker":
            if self.retreated_to is not None:
                return []
            gone = set(self.withdrawn)
            return [u for u in self._alive(self.attacking) if u.id not in gone]
        return self._alive(self.defending)

    def unit_values(self, side: str, ctx) -> tuple:
        """`units(side)` as the rules see them (`battle_units(side)`), kept while those units are
        the same list and the board has not changed since (a unit's value holds its hits and
        moves): the rules' formulas ask for a side's units again for every unit they look at.
        Only for the game's own context (`ctx` is the battle's game's): another context (a watch
        noting what a step reads) makes its values each time."""
        state = self.game.state
        if ctx is self.game.ctx:
            # (the same version of the board, on the same list, and the same lists of the battle:
            # `units` would answer the units these values were made of, and asking it is spared)
            # (or the board's steps since are all hits the other side's units took: a fire step's
            # hits leave the firing side's values as they were)
            kept = self._values.get(side)
            if kept is not None and kept[1] is state.units and kept[2] == self._changes:
                steps = self._hit_steps
                if kept[0] == state.version or (kept[5] == steps[side] and state.version - kept[0]
                                                == steps["attacker"] + steps["defender"] - kept[4]):
                    return kept[3]
        units = self.units(side)
        if ctx is not self.game.ctx:
            # (looked up only when there are units, as the values of each were made before: a
            # watching context notes what is looked up)
            return tuple(map(ctx.unit_value, units)) if units else ()
        values = ctx.values_of_units(units) if units else ()
        steps = self._hit_steps
        self._values[side] = (state.version, state.units, self._changes, values,
                              steps["attacker"] + steps["defender"], steps[side])
        return values

    def tagged_units(self, side: str, tag: str) -> list:
        """The units still fighting on a side that have `tag` (`battle_units(side, tag: g)`), kept
        while the side's units are the same list (a unit's tags are its type's). The list is the
        battle's own (read it, do not change it)."""
        units = self.units(side)
        kept = self._tagged.get((side, tag))
        if kept is not None and kept[0] is units:
            return kept[1]
        has = self.game.ctx.unit_has_any_tag
        found = [u for u in units if has(u.type, (tag,))]
        self._tagged[(side, tag)] = (units, found)
        return found

    def support_units(self) -> list:
        return self._alive_anywhere(self.support)

    def _alive_anywhere(self, ids: list[int]) -> list:
        return [u for u in (self.game.unit_or_none(i) for i in ids) if u is not None]

    def side_of_unit(self, uid: int) -> str:
        return "attacker" if uid in self.attacking else "defender"

    def standing(self, side: str) -> list:
        """The units of a side that outlive this round: those still fighting but its casualties."""
        if not self.pending:
            return list(self.units(side))  # (no casualty yet this round: a copy, as below)
        dead = set(self.pending)
        return [u for u in self.units(side) if u.id not in dead]

    def _withdrawing(self, standing: list | None = None) -> list:
        """The standing attackers that may leave the battle where they stand (`withdraws`);
        `standing`: the standing attackers, when the caller has them."""
        withdraws = self.rules.withdraws
        if withdraws is None:
            return []
        return [u for u in (self.standing("attacker") if standing is None else standing) if withdraws(u)]

    def retreat_options(self, note=None) -> list[str]:
        """Where the attackers may retreat: the spaces their land or sea units moved in from
        (`came_from`; aircraft go with them) that the `retreat_to` setting allows, when the `retreats`
        setting allows a retreat from this battle (never from a raid) and both sides have units
        left after this round's casualties (a decided battle has no retreat). The battle's own
        space is an option (a partial retreat: the units `withdraws` allows leave the battle and
        stay there) when some standing attackers may withdraw and the others may not retreat
        (`retreats` false), and the only one when every standing attacker may withdraw.
        `note(kind, side)`, when given, is told what of the battle the answer looked at (the exact
        chain's watch): "any_standing" (whether the side has standing units), "standing" (which
        they are), "origins" (where the attackers came from)."""
        note = note or _look
        if self.kind != "battle":
            return []
        note("any_standing", "attacker")
        note("any_standing", "defender")
        # (the standing attackers worked out once: the settings asked below change no unit)
        attackers = self.standing("attacker")
        if not attackers or not self.standing("defender"):
            return []
        if self.rules.withdraws is not None or self.rules.stays_given:
            note("standing", "attacker")
        withdrawing = self._withdrawing(attackers)
        if withdrawing and len(withdrawing) == len(attackers):
            return [self.space]  # every unit left may withdraw: that is the retreat (TripleA's planes)
        may_retreat = self.rules.may_retreat(self)
        options = [self.space] if withdrawing and not may_retreat else []
        if not may_retreat:
            return options
        seen: set[str] = set()
        leaving = self.attacking
        if self.rules.stays_given:
            # only the units that leave say where the retreat may go
            leaving = [u.id for u in attackers if not self.rules.stays(u)]
        note("origins", "attacker")
        for uid in leaving:
            origin = self.came_from.get(uid)
            if origin is None or origin == self.space or origin in seen:
                continue
            seen.add(origin)
            if self.rules.retreat_to(self, origin):
                options.append(origin)
        return sorted(options, key=self.game.space_order)

    # ------------------------------------------------------------------ effects

    def hit(self, ctx, count: int, unit_ids: list[int], chooser: str, now: bool, each=None) -> None:
        """`hit N of UNITS by PLAYER`: PLAYER assigns N hits among those units still fighting.
        `each(uid)`, when given, is called with each casualty chosen, in turn, once it has taken
        its hit (the exact chain's makes of one hit for every count: runtime/odds/makings.py).
        A game whose `casualties_chosen` is set (the exact chain's host) answers the casualty
        decision itself, from the units: no `Decision` is made (`_casualties`, with its message and
        the check of the answer, is what a player is asked), and its `unit_hit` marks each hit.
        No hits (`count` of 0 or less) do nothing, as no units left to take them do."""
        if count <= 0:
            return  # no hit to assign (most fire steps' counts, a side's dice all missed): no unit looked up
        game = self.game
        candidates = self._hittable(unit_ids)
        hit_points = game.unit_rules().hit_points  # (`game.hit_points`, asked once for every candidate)
        # (loops, not comprehensions: each is a call of its own, and a hit is made for every
        # count of every state of the exact chain)
        room = {}
        by_id = {}
        for u in candidates:
            room[u.id] = hit_points(u) - u.hits
            by_id[u.id] = u
        total = 0
        for r in room.values():
            if r > 0:
                total += r
        count = min(count, total)
        if count <= 0:
            return
        side = self.side_of_unit(candidates[0].id)
        self.hits_taken[side] += count
        answer = game.casualties_chosen
        chosen = (self._casualties(candidates, room, count, chooser) if answer is None else
                  answer(self, candidates, room, count, side))
        chosen = self._own_casualties(list(chosen), candidates, room, chooser)
        left = dict(room)  # the hits each can take still (its hit points less its hits, as they rise)
        unit_hit = game.unit_hit
        state, steps = game.state, self._hit_steps
        for uid in chosen:
            unit = by_id[uid]
            before = state.version
            unit_hit(unit, unit.hits + 1)
            steps[self.side_of_unit(uid)] += state.version - before
            left[uid] -= 1
            if left[uid] <= 0:
                if now:
                    self._remove(with_cargo(self.game, [uid]))
                elif uid not in self.pending:
                    self.pending.append(uid)
            if each is not None:
                each(uid)
        ctx.log("hits", space=self.space, side=side, count=count, chosen=list(chosen), by=chooser,
                now=now, round=self.round)

    def _casualties(self, candidates: list, room: dict[int, int], count: int, chooser: str) -> list[int]:
        """The casualty decision of `hit` as a player is asked it (`Game.ask`): `count` hits among
        `candidates`, each taking no more than its `room`."""
        decision = Decision("casualties", chooser, f"{count} hit(s) in {self.space}: choose the casualties",
                            options=[u.id for u in candidates], mode="exactly", count=count,
                            context={"room": room, "battle": self})
        return self.game.ask(decision, lambda answer: _check_casualties(answer, room, count),
                             fallback=lambda: _cheapest_casualties(self.game, candidates, room, count))

    def _hittable(self, unit_ids: list[int]) -> list:
        """The units of `unit_ids` (in their order) still fighting on either side (`units`) and
        not this round's casualties: found among the sides' kept units by id, not each looked up
        on the board and tested against the battle's lists."""
        fighting = {u.id: u for u in self.units("attacker")}
        fighting.update({u.id: u for u in self.units("defender")})
        gone = self.pending
        return [fighting[uid] for uid in unit_ids if uid in fighting and uid not in gone]

    def _own_casualties(self, chosen: list[int], candidates: list, room: dict[int, int], chooser: str) -> list[int]:
        """With the `casualties_by` setting: `chosen` (the step's chooser's answer) says how many
        hits fall on the units of each player the setting names; each of those players but the
        chooser then chooses which of its own units take its share (in the turn order), in the
        places of `chosen` its share held."""
        by = self.rules.casualties_by
        if by is None:
            return chosen
        groups: dict[str, list] = {}
        for unit in candidates:
            groups.setdefault(getattr(by(unit), "name", None) or chooser, []).append(unit)
        out = list(chosen)
        for player in (sorted(groups, key=self.game.turn_position) if len(groups) > 1 else groups):
            if player == chooser:
                continue  # (the chooser's own share stands as chosen)
            units = groups[player]
            ids = {u.id for u in units}
            places = [i for i, uid in enumerate(chosen) if uid in ids]
            if not places:
                continue
            own_room = {u.id: room[u.id] for u in units}
            n = len(places)
            decision = Decision("casualties", player, f"{n} hit(s) on your units in {self.space}: choose the casualties",
                                options=[u.id for u in units], mode="exactly", count=n,
                                context={"room": own_room, "battle": self})
            own = self.game.ask(decision, lambda answer, r=own_room, k=n: _check_casualties(answer, r, k),
                                fallback=lambda us=units, r=own_room, k=n: _cheapest_casualties(self.game, us, r, k))
            for place, uid in zip(places, own):
                out[place] = uid
        return out

    def submerge(self, ctx, unit_ids: list[int]) -> None:
        ids = [uid for uid in unit_ids if uid not in self.submerged and uid not in self.pending]
        self.submerged.extend(ids)
        self._changes += 1
        if ids:
            ctx.log("submerge", space=self.space, units=ids, round=self.round)

    def retreat(self, ctx, to: str) -> None:
        options = self.retreat_options()
        if to not in options:
            raise EvalError("E543", f"the attackers in {self.space} cannot retreat to {to}"
                                    + (f"; they can retreat to {', '.join(options)}" if options else ""))
        if to == self.space:
            # a partial retreat: the units that may withdraw leave the battle and stay where they are
            movers = [u.id for u in self._withdrawing()]
            self.withdrawn.extend(movers)
            self._changes += 1
            if not self.standing("attacker"):
                self.retreated_to = to
                self._changes += 1
            ctx.log("retreat", space=self.space, to=to, units=movers, round=self.round)
            return
        staying = [u for u in self.standing("attacker") if self.rules.stays(u)]
        movers = [u.id for u in self.units("attacker") if u.id not in self.pending and u not in staying]
        self.game.state.move_units(movers, to)
        if not staying:
            self.retreated_to = to
            self._changes += 1
        # else a partial retreat: the others left the space (and so the battle); these fight on
        ctx.log("retreat", space=self.space, to=to, units=movers, round=self.round)

    def join_arrivals(self, present: set[int]) -> None:
        """Units the rules brought into the space before the first round (a hook adding
        defenders before the battle starts) fight with their side; `present`: the units there before."""
        fights = self.rules.fights
        here = units_at(self.game.state, self.space)
        carried = aboard(self.game.state, self.space, here)
        for unit in here:
            if unit.id in present or unit.id in carried:
                continue
            if unit.owner == self.attacker:
                self.attacking.append(unit.id)
                self.came_from.setdefault(unit.id, self.space)
            elif self.rules.enemy(unit.owner, self.attacker) and (fights is None or fights(unit)):
                self.defending.append(unit.id)
        self._changes += 1

    def end_round(self) -> None:
        if self.pending:
            self._remove(with_cargo(self.game, sorted(self.pending)))
            self.pending = []

    def _remove(self, ids: list[int]) -> None:
        """Casualties (`ids`, with their cargo) leave the board. Each side's units kept by `units`
        before are kept less them after (nothing else moved, came or went: the removal is the
        board's one change of its units), not worked out again from the board."""
        state = self.game.state
        placed, changes = state.version - state.places_kept, self._changes
        sides = [(side, kept[2]) for side, kept in self._kept.items()
                 if kept[0] == placed and kept[1] is state.units and kept[3] == changes]
        self.game.remove_units(ids, f"casualty in {self.space}")
        self.removals += 1
        gone = set(ids)
        placed, units = state.version - state.places_kept, state.units
        for side, kept in sides:
            self._kept[side] = (placed, units, [u for u in kept if u.id not in gone], changes)

    def standing_since(self, placed: tuple | None, here: list) -> list | None:
        """The units of `here` (the units in the battle's space at `placed`, a
        `GameState.placement_mark`) still on the board, in their order: the units in the space now
        when no unit moved or came since, the battle's own removals of its casualties the only
        changes of the board's units (each a step of its version that does not keep them in
        place); None when something else may have moved, come or gone."""
        state = self.game.state
        if placed is None or state.version - state.places_kept != placed[0] + self.removals:
            return None
        index = state.unit_index()
        return [u for u in here if index.get(u.id) is u]


def with_cargo(game, ids: list[int]) -> list[int]:
    """`ids` and the units they carry: cargo is lost with its transport."""
    out = list(ids)
    for uid in ids:
        unit = game.unit_or_none(uid)
        if unit is not None:
            out += [cid for cid in unit.cargo if cid not in out and game.unit_or_none(cid) is not None]
    return out


def aboard(state, space: str, here: list | None = None) -> set[int]:
    """The units carried by others in `space` (cargo at sea): they do not fight. `here`: the
    units in `space` (`units_at`), when the caller has them."""
    if here is None:
        here = units_at(state, space)
    return {cid for u in here for cid in u.cargo}


def units_at(state, space: str) -> list:
    """The board's units in `space`, in the board's order: one walk over the board, from which a
    battle's set-up finds its sides, its cargo and the units present (each was a walk of its own)."""
    return [u for u in state.units if u.space == space]


def _check_casualties(answer, room: dict[int, int], count: int) -> list[str]:
    if not isinstance(answer, (list, tuple)) or len(answer) != count:
        return [f"choose exactly {count} casualties"]
    used: dict[int, int] = {}
    for uid in answer:
        # a recorded answer may hold any JSON value: only a unit id (a whole number) can be in the room
        if isinstance(uid, bool) or not isinstance(uid, int) or uid not in room:
            return [f"unit {uid} is not one of the units that can take these hits"]
        used[uid] = used.get(uid, 0) + 1
        if used[uid] > room[uid]:
            return [f"unit {uid} can take only {room[uid]} more hit(s)"]
    return []


def _cheapest_casualties(game, candidates, room, count) -> list[int]:
    """Units that survive a hit absorb first, then the cheapest (the default when an agent fails;
    the casualty order of kit/casualties.py)."""
    return casualty_order(candidates, room, count, rank=cheapest_rank_of(candidates, game.unit_cost))


# ---------------------------------------------------------------------- the procedure


def run(ctx, proc) -> None:
    """The `battle` runtime procedure: every battle and raid the combat move left, one by one.
    Before each battle, and within a battle before its start step and each step of a round
    (`_resume_point`), the game is told (`Game.on_resume_point`) that the procedure could go on
    from the game's state alone: what is left to fight is then in the kit's state (`battles_left`,
    and `battle_at`: the battle and its step), and a copy of the game made there runs this
    procedure again to go on from it."""
    game = ctx.game
    config = procedure_config(ctx, proc)
    steps = {name: config.text(name) for name in ("round", "start", "capture", "raid")}
    sequence = game.sequence(steps["round"]) if steps["round"] else []
    rules = BattleRules(game, config)
    kit = game.kit
    if kit.battles_left is not None:  # a copy of the game made between two battles
        queue, zones, late = kit.battles_left
    else:
        queue, zones, late = _queue(ctx, game, steps, rules)
    while queue or kit.battle_at is not None:
        kit.battles_left = (queue, zones, late)
        if kit.battle_at is not None:  # a copy of the game made within a battle: its space, out of the queue
            space = kit.battle_at[0].space
            _fight(ctx, game, space, steps, sequence, rules)
        else:
            if game.on_resume_point is not None:
                game.on_resume_point(game)
            space = queue.pop(0)
            if space in kit.pending_battles and not rules.fought(space):
                # left unfought (the attacker declined it): a landing waiting for it is cancelled below
                ctx.contested_spaces = [s for s in ctx.contested_spaces if s != space]
            else:
                _fight(ctx, game, space, steps, sequence, rules)
        if space in zones:
            for territory in make_landings(game, space, rules):
                if territory not in queue:
                    queue.append(territory)
                    queue.sort(key=lambda s: (s not in zones, game.space_order(s)))
                    ctx.contested_spaces = ctx.contested_spaces + [territory]
    kit.battles_left = None
    for zone in sorted(zones - set(kit.pending_battles) - set(late), key=game.space_order):
        make_landings(game, zone, rules)  # no battle was fought there (its enemy units left): cancelled
    kit.pending_battles, kit.waiting_landings = [], []
    ctx.contested_spaces = []


def _queue(ctx, game, steps: dict, rules: BattleRules) -> tuple[list[str], set[str], list[str]]:
    """The raids fought, then the battles to fight in order: (the spaces, the sea zones landings
    wait for, the late sea battles)."""
    kit = game.kit
    for space in list(kit.pending_raids):
        _fight_raid(ctx, game, space, steps["raid"], rules)
    kit.pending_raids = []
    # sea battles where enemy units came after the combat move come first (they may sink the
    # ships of a landing), then those that landings wait for; each landing then adds its
    # territory's battle
    late = late_sea_battles(game, rules)
    if late:
        ctx.contested_spaces = ctx.contested_spaces + late
        recall_landings(game, late)
    zones = {zone for _, _, zone, _ in kit.waiting_landings}
    queue = late + [s for s in kit.pending_battles if s in zones] + [s for s in kit.pending_battles if s not in zones]
    return queue, zones, late


def _fight(ctx, game, space: str, steps: dict, sequence: list[str], rules: BattleRules) -> None:
    """The battle in `space`: set up, its start step, its rounds and its end; or, in a copy of the
    game made within it (the kit's `battle_at`), the battle from there."""
    state = game.state
    attacker = state.current_player
    board = game.board
    kit = game.kit
    resumed = kit.battle_at
    placed = None  # where the board's units stood as the battle was set up (`GameState.placement_mark`)
    if resumed is None:
        battle, enemies, here = _new_battle(game, space, rules)
        placed = state.placement_mark()
    else:
        battle, at, present = resumed
        battle.game, battle.rules = game, rules
    ctx.battle = battle
    try:
        if resumed is None:
            # the defender setting may ask the battle (`attacker()`, `battle_space()`)
            battle.defender = rules.defender(battle, enemies)
            game.log("battle", space=space, attacker=attacker, defender=battle.defender,
                     attacking=len(battle.attacking), defending=len(battle.defending), amphibious=battle.amphibious)
            at = START if steps["start"] else None
            # (the units there as the battle was set up: the defender setting and the log move none)
            present = {u.id for u in here} if steps["start"] else None
        if at == START:
            _resume_point(game, battle, START, present)
            run_procedure(ctx, steps["start"])
            # no unit can have come when none moved, came or went since the set-up: no walk over the board
            if not state.stand_as(placed):
                battle.join_arrivals(present)
            at = None
        _rounds(ctx, game, battle, sequence, rules, at)
        kit.battle_at = None
        defender = battle.defender
        # the attacker wins when it still stands and the defenders do not (both destroyed: the defender holds)
        won = not battle.units("defender") and bool(battle.units("attacker")) and battle.retreated_to is None
        enemy_land = won and takes_land(board, game.allied, space, attacker)
        taken = enemy_land and any(rules.captures(u) for u in battle.units("attacker"))
        result = "retreat" if battle.retreated_to else ("attacker" if won else "defender")
        if not board.is_land(space):
            _allied_air_follows_its_carriers(game, space, attacker, battle.retreated_to)
        if taken:
            # the capture step (and its hooks) see the enemy units that did not fight; those still
            # there afterwards change hands with the territory, or are destroyed
            if steps["capture"]:
                run_procedure(ctx, steps["capture"])
            # (the units there as the battle's set-up found them, less its casualties, when nothing
            # else moved, came or went since: no walk over the board)
            take_leftovers(game, space, attacker, rules.captured,
                           battle.standing_since(placed, here) if placed is not None else None)
        game.log("battle_end", space=space, attacker=attacker, defender=defender, result=result,
                 rounds=battle.round, taken=taken,
                 attacker_left=len(battle.units("attacker")), defender_left=len(battle.units("defender")))
        game.battle_results.append({"space": space, "attacker": attacker, "defender": defender,
                                    "result": result, "taken": taken, "rounds": battle.round,
                                    # won, but no unit left that takes a territory (aircraft only)
                                    "no_captor": enemy_land and not taken})
    finally:
        ctx.battle = None
        kit.battle_at = None


START = -1  # the step a battle is at (the kit's `battle_at`) before its start step


def _new_battle(game, space: str, rules: BattleRules) -> tuple[Battle, list, list]:
    """The battle in `space` as it starts (its defender not yet chosen), the enemy units there and
    all the units there (`units_at`)."""
    state = game.state
    attacker = state.current_player
    fights = rules.fights
    here = units_at(state, space)
    game.board.note_units_in(space, here)  # (the battle's first step asks for them: `units(battle_space(), ...)`)
    # units on a bombing raid raid the factory; they do not also fight for the territory
    carried = aboard(state, space, here)  # cargo at sea does not fight
    # the attacker's units, and the allies' units it commanded in its combat move (`commands`)
    commanded = game.kit.commanded
    attackers = [u for u in here if (u.owner == attacker or u.id in commanded)
                 and not u.flags.get("bombing") and u.id not in carried]
    attacking = [u.id for u in attackers]
    enemies = [u for u in here if rules.enemy(u.owner, attacker) and u.id not in carried]
    defending = [u.id for u in enemies if fights is None or fights(u)]
    battle = Battle(game, space, attacker, None, amphibious=game.kit.amphibious.get(space, False),
                    attacking=attacking, defending=defending,
                    # a retreat goes where a land or sea unit came from, not where only aircraft did
                    came_from={u.id: game.kit.moved_from.get(u.id, space) for u in attackers
                               if game.domain(u) != "air"},
                    support=_offshore(game, space, attacker), rules=rules)
    if game.board.is_sea(space):
        game.kit.supported.update(attacking)  # a ship that fought a sea battle does not bombard this turn
    return battle, enemies, here


def _rounds(ctx, game, battle: Battle, sequence: list[str], rules: BattleRules, at: int | None) -> None:
    """The battle's rounds until one side has no fighting units left, the attacker retreats or
    the rules call a stalemate; `at`: the step of the round being fought to go on from (a copy of
    the game made within the battle), None to start a round."""
    while True:
        if at is None:
            if not (battle.units("defender") and battle.units("attacker") and battle.retreated_to is None):
                return
            if battle.round >= MAX_ROUNDS or rules.stalemate():
                game.log("stalemate", space=battle.space, rounds=battle.round)
                return
            battle.round += 1
            at = 0
        for i in range(at, len(sequence)):
            _resume_point(game, battle, i, None)
            run_procedure(ctx, sequence[i])
            if battle.retreated_to is not None:
                break
        battle.end_round()
        at = None


def _resume_point(game, battle: Battle, at: int, present: set[int] | None) -> None:
    """Tell the game (`Game.on_resume_point`) the battle could go on from here: the battle, the
    step it is at and the units present before its start step kept in the kit's state."""
    if game.on_resume_point is not None:
        game.kit.battle_at = (battle, at, present)
        game.on_resume_point(game)


def _allied_air_follows_its_carriers(game, zone: str, attacker: str, retreated_to: str | None) -> None:
    """After a sea battle, the allies' air units in `zone` that rode the attacker's carriers there
    (the move setting `carries_allied_air`) share their carriers' fate: where the carriers of the
    attacker's side left in the zone have no room for them, they go with the carriers that retreated
    (as far as those have room) or are lost with the carriers that were sunk. The attacker's own
    air units fly on their own and land in its non-combat move."""
    facts, state = game.kit.facts(), game.state

    def side_units(space: str):
        return [u for u in state.units if u.space == space and game.allied(u.owner, attacker)]

    def room(space: str, units: list | None = None) -> int:
        if units is None:
            units = side_units(space)
        # the allies' air units already on carriers there keep their places first (by id)
        return (sum(facts.carrier_capacity(u) for u in units)
                - sum(facts.carrier_cost(u) for u in units if u.owner != attacker and game.domain(u) == "air"))

    # (the zone's units found once, for its guests and its room; no room worked out without guests)
    here = side_units(zone)
    guests = sorted((u for u in here if u.owner != attacker and game.domain(u) == "air"
                     and facts.carrier_cost(u) > 0), key=lambda u: u.id, reverse=True)
    if not guests:
        return
    free = room(zone, here)
    homeless = []
    for unit in guests:  # the last to have come (highest id) lose their places first
        if free >= 0:
            break
        homeless.append(unit)
        free += facts.carrier_cost(unit)
    if not homeless:
        return
    if retreated_to is not None and retreated_to != zone:
        space_left = room(retreated_to)
        riding = []
        for unit in sorted(homeless, key=lambda u: u.id):
            if facts.carrier_cost(unit) <= space_left:
                space_left -= facts.carrier_cost(unit)
                riding.append(unit.id)
        if riding:
            state.move_units(riding, retreated_to, 0, path=[zone, retreated_to])
        homeless = [u for u in homeless if u.id not in riding]
    if homeless:
        game.remove_units(sorted(u.id for u in homeless), f"lost with the carrier it rode in {zone}")


def _offshore(game, space: str, attacker: str) -> list[int]:
    """The attacker's ships (and the allies' it commanded) that support a landing on `space`
    (`support_units()`, which may bombard):
    those in a sea zone the landing came from when the battle begins (not ships that sailed away),
    each supporting one landing a turn (a ship bombards once a turn)."""
    zones = game.kit.landed_from.get(space)
    if not zones:
        return []  # (no landing came from the sea: most battles; no walk over the board)
    commanded = game.kit.commanded
    ships = [u.id for u in game.state.units if u.space in zones and (u.owner == attacker or u.id in commanded)
             and game.domain(u) == "sea" and u.id not in game.kit.supported]
    game.kit.supported.update(ships)
    return ships


def take_leftovers(game, space: str, attacker: str, captured, here: list | None = None) -> None:
    """The enemy units left in a territory the attacker took: kept by the taker (the holder when it
    is on the attacker's side) where `captured(u)` says so, removed otherwise. `here`: the units
    in `space` now, in the board's order, when the caller knows them."""
    state = game.state
    if here is None:
        here = units_at(state, space)
    leftovers = [u for u in here if not game.allied(u.owner, attacker)]
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
    step = game.kit.battle_setting("capture")
    if not step:
        game.state.set_control(space, player)
        return
    battle = Battle(game, space, player, game.board.controller(space), rules=BattleRules(game, game.kit.battle_config()))
    saved = ctx.battle
    ctx.battle = battle
    try:
        run_procedure(ctx, step)
    finally:
        ctx.battle = saved


def _fight_raid(ctx, game, space: str, step: str | None, rules: BattleRules) -> None:
    state = game.state
    attacker = state.current_player
    units_in_raid = [uid for uid in game.kit.raid_units.get(space, []) if game.unit_or_none(uid) is not None]
    factory = state.factories.get(space)
    # the factory's owner defends it; a raid the rules let target a territory without one: its holder
    defender = factory.owner if factory is not None else state.control.get(space)
    battle = Battle(game, space, attacker, defender, kind="raid", attacking=units_in_raid, rules=rules)
    ctx.battle = battle
    try:
        game.log("raid", space=space, attacker=attacker, defender=defender, units_in_raid=len(units_in_raid))
        if step and units_in_raid and defender is not None:
            battle.round = 1
            run_procedure(ctx, step)
            battle.end_round()
    finally:
        ctx.battle = None


def _look(kind: str, side: str) -> None:
    """What `Battle.retreat_options` looked at, when no one asks."""
