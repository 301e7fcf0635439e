"""The exact chain's battle states: how a state is written (`BattleStates._key`), and how the board
and the runtime's `Battle` are made to hold one (`_materialize`) to run a step from it.

A state is what the battle's steps can tell apart: each unit still in the battle, as its side,
type, owner, hits taken, whether it is a casualty leaving at the end of the round or has
submerged, and where it came from; and the counters the steps wrote (a rule that records
something of the battle, such as the AA guns there at its start). Units are not told apart by
id: two states with the same units merge, and a state is written in one order (its units
sorted), so the result never depends on hashing.
"""

from __future__ import annotations

import json
import weakref
from typing import Any

from ruleslang.base.errors import EvalError
from ruleslang.board.queries import BoardQueries
from ruleslang.board.state import Unit
from ruleslang.lang.eval.context import EvalContext
from ruleslang.lang.eval.host import Host
from ruleslang.runtime.game import GameServices
from ruleslang.runtime.kit.battle import Battle
from ruleslang.runtime.kit.turn_state import KitState
from ruleslang.runtime.odds.watch import FIGHTING, PENDING, SUBMERGED, changed_by, split_of

RETREATED = ("", (), "the attacker retreated")  # the mark of a state the attacker left (among its counters)
UNIT_PART = "@"  # in a counter key kept with a unit's record: where the unit's id was (no name or number is "@")


# The board's fields a chain changes in no way but by giving its copy a new value, shared with the
# board it copies (`GameState.copy_sharing`) rather than deep-copied for every chain: the effects
# that would change who holds a space, factories or treasuries are refused in a battle's branching
# run (E546), and the counters are given anew for each state (`_materialize`, `restore`) before a
# step can write one (`counter_writes`, which a written counter counts in place, is copied).
_UNCHANGED = frozenset({"control", "control_at_turn_start", "factories", "factories_at_turn_start", "treasury",
                        "income_override", "income_override_by_economy", "counters", "facts", "options"})


class _NoDice:
    """The dice of the chain's host: every roll goes through the exact evaluator, none is sampled."""

    def randint(self, a, b):
        raise EvalError("E546", "a die was rolled where the exact battle chain cannot follow it")


class _ConfigsFor(dict):
    """A game's procedure settings (`Game.configs`: id of the procedure -> `ProcedureConfig`) for
    another context, each made by `for_context` when it is first looked up; those whose lasting
    answers read counters at once (`reads_counters`: made later, they would be checked against
    the counters of a battle state instead of the board's)."""

    def __init__(self, source: dict, ctx):
        super().__init__()
        self._source, self._ctx = source, ctx
        for key, config in source.items():
            if config.reads_counters():
                self[key] = config.for_context(ctx)

    def __missing__(self, key):
        found = self[key] = self._source[key].for_context(self._ctx)
        return found

    def get(self, key, default=None):
        if key in self or key in self._source:
            return self[key]
        return default


class BattleHost(GameServices):
    """The battle's game as the steps see it: a copy of the board, the casualty order as every
    player's choice, the advice of the rules (or the retreat policy) as their decisions."""

    def __init__(self, chain: "Chain", source_game, board=None):
        # the chain, held weakly (as its decisions are): the host is in cycles of its own (its
        # context, kit and battle), and a chain in one with them would be freed by the garbage
        # collector only, with all it kept (`Chain.solve`), where dropping it frees it at once
        self.chain = weakref.proxy(chain)
        self.compiled = source_game.compiled
        # the battle does not read the game's past; its own units (those of its space, and of the
        # zone an assault comes from, whose ships it changes) copied, the rest shared with `board`
        spec = chain.spec
        self.state = (source_game.state.copy(events=False) if board is None else
                      board.copy_sharing({s for s in (spec.space, spec.amphibious_from) if s is not None}, _UNCHANGED))
        self.board = BoardQueries(self.state)
        host = Host(None, rng=_NoDice())  # no generator seeded: the chain rolls no die
        self.ctx = EvalContext(self.compiled, host, state=self.state, board=self.board,
                               options=dict(source_game.ctx.options), facts=dict(source_game.ctx.facts),
                               decide=self._decide)
        self.ctx.game = self
        # the game's procedure settings for this context: their compiled code shared (a chain is made
        # for every battle an agent asks about), nothing cached for the battle's own board; each
        # made on first use (a battle reads a few of the game's procedures' settings)
        self.configs: dict = _ConfigsFor(source_game.configs, self.ctx)
        self.kit = KitState(self)
        self._init_services(source_game)
        self._indexed_units, self._index_length = None, -1
        self.base_index: dict = {}  # the board's units outside the battle, by id (the chain's, once set up)

    def close(self) -> None:
        """Let go of everything the host and its context hold (`Chain.close`): neither answers
        anything after."""
        vars(self.ctx).clear()
        vars(self).clear()

    def _decide(self, *args, **kwargs):
        """A `choose`: the chain's (`BattleDecisions.decide`)."""
        return self.chain.decide(*args, **kwargs)

    def unit_or_none(self, uid: int):
        """The unit with this id: the board's others are indexed once, the battle's per list of the
        board's units (a list the board only extends or replaces; a unit's hits change in place)."""
        units = self.state.units
        if self._indexed_units is not units or self._index_length != len(units):
            self._units_by_id = {u.id: u for u in units[len(self.base_index):]}
            self._indexed_units, self._index_length = units, len(units)
        found = self._units_by_id.get(uid)
        return found if found is not None else self.base_index.get(uid)

    def remove_units(self, ids: list[int], why: str) -> None:
        """Casualties leave the board (the rest of the board keeps its units)."""
        gone = set(ids)
        state = self.state
        base = len(self.base_index)
        state.units = state.units[:base] + [u for u in state.units[base:] if u.id not in gone]
        state.version += 1

    def ask(self, decision, check, fallback):
        if decision.kind == "casualties":
            return self.chain.casualties(decision)
        return fallback()

    def casualties_chosen(self, battle, candidates: list, room: dict, count: int, side: str) -> list[int]:
        """A `hit`'s casualties, by the chain's casualty policy (`ask` with the decision `Battle`
        would make, without making it: nothing of the chain reads its message)."""
        return self.chain.casualties_of([u.id for u in candidates], candidates, room, count, side)

    def unit_hit(self, unit, hits: int) -> None:
        """`GameServices.unit_hit` without the board's event (nothing reads a chain's events): the
        board's version steps as that event's does, its units where they stood."""
        unit.hits = hits
        state = self.state
        state.version += 1
        state.places_kept += 1


class BattleStates:
    """The states part of `Chain`: setting the battle up, writing its state, putting a state on
    the board, and saving and restoring what a step's effects change (Branching's world)."""

    def _setup(self) -> None:
        """Put the battle's units on the copied board and set up the battle as `_fight` does."""
        spec, state, host = self.spec, self.host.state, self.host
        self.base_index: dict = {}  # the board's units outside the battle, by id (none yet)
        space = spec.space
        sea_support = spec.amphibious_from
        attacker = spec.attacker
        # the defence: the units the spec names (they fight, and no one else there does), else the
        # attacker's enemies there as its battle picks them (not on its side, and at war with it by
        # the battle's `at_war` setting): a power at peace sharing the space stays out. The
        # attacker's own units there leave for those the spec names (one pass over the board)
        named: list = []
        if spec.defending is None:
            state.units = [u for u in state.units if u.space != space or u.owner != attacker]
        else:
            allied = host.allied
            state.units = [u for u in state.units if u.space != space or (u.owner != attacker and allied(u.owner, attacker))]
            for utype, n in spec.defending.items():
                named += self._damaged(state.add_units(space, utype, spec.defender, n), "defender")
        for utype, n in spec.attacking.items():
            made = self._damaged(state.add_units(space, utype, spec.attacker, n), "attacker")
            if sea_support is not None and host.domain(made[0]) == "sea":
                state.move_units([u.id for u in made], sea_support)
        state.version += 1
        if named and len(self.rules.enemies_at(space, spec.attacker, named)) < len(named):
            # the game's battle would leave them out (a power at peace sharing a sea zone: sailing in
            # makes no war), so a chain that fought them would answer a battle the game never fights
            raise EvalError("E548", f"{spec.defender} is not at war with {spec.attacker} on this board (the battle's "
                                    f"`at_war` setting): its units in {space} would not fight",
                            hint="give a --scenario where they are at war (the rules' own counters)")
        here = [u for u in state.units if u.space == space]
        here_by_id = {u.id: u for u in here}  # the battle's units are all here (not the board's index of all)
        enemies = named or self.rules.enemies_at(space, spec.attacker, here)
        fights = self.rules.fights
        attacking = [u.id for u in here if u.owner == spec.attacker]
        origins = spec.came_from or []
        came_from = {}
        for i, uid in enumerate(u for u in attacking if host.domain(here_by_id[u]) != "air"):
            came_from[uid] = origins[i % len(origins)] if origins else space
        support = []
        if sea_support is not None:
            support = [u.id for u in state.units if u.space == sea_support and u.owner == spec.attacker
                       and host.domain(u) == "sea"]
            for uid in support:
                host.unit_or_none(uid).cargo = []
            for uid in attacking:
                if host.domain(here_by_id[uid]) == "land":
                    came_from[uid] = sea_support
        battle = Battle(host, space, spec.attacker, None, amphibious=sea_support is not None,
                        attacking=attacking, defending=[u.id for u in enemies if fights is None or fights(u)],
                        came_from=came_from, support=support, rules=self.rules)
        self.battle = battle
        self.ctx.battle = battle
        battle.defender = self.rules.defender(battle, enemies)
        self.attacker, self.defender = spec.attacker, battle.defender
        order: list[str] = []
        for uid in attacking + battle.defending:
            utype = here_by_id[uid].type
            if utype not in order:
                order.append(utype)
        self._type_order = {t: i for i, t in enumerate(order)}
        fighting = set(attacking) | set(battle.defending)  # made once, not per unit of the board
        # the board's units outside the battle first, in the board's order (those fighting are all here)
        self._base = [u for u in state.units if u.space != space or u.id not in fighting]
        battle_units = [u for u in here if u.id in fighting]
        self.base_index = self.host.base_index = {u.id: u for u in self._base}  # the host's without a proxy
        # the board's index of units (`set_units`): those outside the battle, and the battle's of the
        # state on the board, kept from one state to the next (`_materialize`: a state's ids are the
        # first of each side's block, and an id's unit is always its `_pool` one)
        self._board_index = dict(self.base_index)
        self._indexed = (0, 0)  # how many of each side's block of ids `_board_index` holds
        self._next_id = state.next_unit_id
        state.units = self._base + battle_units
        state.version += 1
        self._base_counters = {name: dict(store) for name, store in state.counters.items()}
        self._pool: dict[int, Unit] = {}  # the battle's units by id, set anew for each state (`_materialize`)
        self._held: tuple | None = None  # (state, round) the board holds unchanged since a run (`_planned`)
        self.initial = self._key()
        self._id_block = len(self.initial[0])  # no side ever has more units than the battle began with
        self.costs = {t: host.unit_rules().cost(t) for t in order}

    # ------------------------------------------------------------------ states

    def _key(self) -> tuple:
        """The battle's current state, canonical: (its units sorted, without ids, each with the
        counter entries keyed by it; the other counters the battle wrote, sorted)."""
        written, marks = self._counters_written()
        index = self._battle_index()
        battle = self.battle
        records = (tuple(sorted(self.side_rows("attacker", battle.attacking, marks, index).values()))
                   + tuple(sorted(self.side_rows("defender", battle.defending, marks, index).values())))
        return records, ((RETREATED,) + written if battle.retreated_to is not None else written)

    def _battle_index(self) -> dict:
        """The board's units after those outside the battle, by id (`BattleHost.unit_or_none`
        without a call per unit)."""
        return {u.id: u for u in self.host.state.units[len(self.base_index):]}

    def side_rows(self, side: str, uids, marks: dict, index: dict) -> dict:
        """The records of units `uids` of one side that are in the battle now, by id (a state's
        records are its attacker's, then its defender's, each sorted); `marks`: the counter
        entries keyed by units (`_counters_written`); `index`: the units by id (`_battle_index`)."""
        battle = self.battle
        base_index = self.base_index
        pending, submerged = set(battle.pending), set(battle.submerged)
        away = battle.retreated_to is not None and side == "attacker"  # retreated attackers are still its
        # attackers that withdrew where they stand (a partial retreat of those the rules let withdraw)
        # have left the battle, as those that moved away have; after a retreat they are still its
        gone = set(battle.withdrawn) if battle.withdrawn and not away else ()
        out = {}
        space, order, came_from = battle.space, self._type_order, battle.came_from
        for uid in uids:
            u = index.get(uid)
            if u is None:
                u = base_index.get(uid)
            if u is None or (u.space != space and not away) or uid in gone:
                continue
            status = SUBMERGED if uid in submerged else PENDING if uid in pending else FIGHTING
            # where it came from: "" for none (a record is all of one kind of value per field: they sort)
            out[uid] = (side, order[u.type], u.type, u.owner, u.hits, status, came_from.get(uid) or "",
                        marks.get(str(uid), ()) if marks else ())
        return out

    def _counters_written(self) -> tuple:
        """The counter entries that differ from the board's before the battle: (those keyed by no
        unit of the battle, as sorted (name, key, value as JSON text) triples; those keyed by one,
        as its unit id -> sorted (name, key with UNIT_PART for the unit, value as JSON text)). The
        units have no identity from one state to the next, so an entry keyed by a unit is part of
        that unit's record, and is dropped with the unit when it leaves the battle."""
        state, base = self.host.state, self._base_counters
        written = []
        marks: dict[str, list] = {}
        ids = None
        for name, store in state.counters.items():
            before = base.get(name, {})
            if store == before:  # nothing written in it (most stores, most states): no entry to look at
                continue
            for k, v in store.items():
                if k in before and before[k] == v:
                    continue
                if ids is None:
                    ids = {str(uid) for uid in self.battle.attacking + self.battle.defending}
                unit = next((part for part in k if part in ids), None)
                if unit is None:
                    written.append((name, tuple(k), json.dumps(v, sort_keys=True)))
                else:
                    entry = (name, tuple(UNIT_PART if part == unit else part for part in k), json.dumps(v, sort_keys=True))
                    marks.setdefault(unit, []).append(entry)
        written.sort()
        return tuple(written), {uid: tuple(sorted(entries)) for uid, entries in marks.items()}

    def _materialize(self, key: tuple, round_number, split: int | None = None) -> None:
        """Make the battle and the board hold state `key` (fresh unit ids, in the key's order;
        `split`: where its defenders' records begin, when the caller knows)."""
        battle, state = self.battle, self.host.state
        held, self._held = self._held, None
        if held is not None and held[1] is round_number and held[0] == key:
            # the board holds this state still: the run that put it there deferred its hits and had
            # no other effect (`_planned`), and the hits are made now (a step's plan, then its hits)
            state.events = []
            self.ctx.host.reset_budget()
            return
        records, counters = key
        # the board's counters before the battle, copied: the steps' `set` and `change` write here
        state.counters = {name: dict(store) for name, store in self._base_counters.items()}
        for name, k, value in counters:
            state.counters.setdefault(name, {})[k] = json.loads(value)
        if split is None:
            split = split_of(records)
        # fresh ids, the defenders' from a second block: a side's ids do not depend on how many
        # units the other side has (the distributions of its dice are kept under them: `remember`)
        # the units of the state before are made again (each id's, `_pool`): their fields are set
        # anew rather than new units made, since nothing holds a battle unit from one state to the
        # next (the rules see copies, `unit_value`); a unit's flags and cargo are new ones
        units, came_from, pending, submerged = [], {}, [], []
        pool, space = self._pool, battle.space
        first = self._next_id
        second = first + self._id_block
        sides = ((list(range(first, first + split)), records[:split], []),
                 (list(range(second, second + len(records) - split)), records[split:], []))
        for uids, rows, fighting in sides:  # each side's ids; its units still fighting (`Battle.units`)
            for uid, (_side, _order, utype, owner, hits, status, origin, marks) in zip(uids, rows):
                unit = pool.get(uid)
                if unit is None:
                    unit = pool[uid] = Unit(uid, utype, owner, space, hits)
                else:
                    unit.type, unit.owner, unit.space, unit.hits, unit.moved = utype, owner, space, hits, 0
                    if unit.flags:
                        unit.flags = {}
                    if unit.cargo:
                        unit.cargo = []
                units.append(unit)
                if origin:
                    came_from[uid] = origin
                if status == SUBMERGED:
                    submerged.append(uid)
                else:
                    fighting.append(unit)
                    if status == PENDING:
                        pending.append(uid)
                if not marks:  # (most units: no counter entry keyed by them)
                    continue
                for name, k, value in marks:
                    part = str(uid)
                    state.counters.setdefault(name, {})[tuple(part if x == UNIT_PART else x for x in k)] = json.loads(value)
        index, (had_a, had_d) = self._board_index, self._indexed
        now_a, now_d = len(sides[0][0]), len(sides[1][0])
        for block, had, now in ((first, had_a, now_a), (second, had_d, now_d)):
            for uid in range(block + now, block + had):
                del index[uid]
            for uid in range(block + had, block + now):
                index[uid] = pool[uid]
        self._indexed = (now_a, now_d)
        state.set_units(self._base + units, index)
        state.events = []
        state.version += 1
        battle.attacking, battle.defending, battle.came_from = sides[0][0], sides[1][0], came_from
        battle.pending, battle.submerged, battle.retreated_to = pending, submerged, None
        battle.withdrawn = []  # a state's units are all in the battle (those that withdrew left its records)
        battle.round = round_number
        battle.units_known(sides[0][2], sides[1][2])
        self.ctx.host.reset_budget()

    def snapshot(self) -> Any:
        """What a step's effects change: the board's units, their hits, the battle's lists. While a
        run's hits are deferred, only how many (its other effects are NotDeferred: watch.py)."""
        if self.deferring:
            return len(self._deferred)
        battle, state = self.battle, self.host.state
        return (state.units, [(u, u.hits, u.space) for u in state.units[len(self._base):]],
                list(battle.pending), list(battle.submerged), battle.retreated_to,
                {name: dict(store) for name, store in state.counters.items()}, len(self._deferred),
                list(battle.withdrawn))

    def restore(self, saved: Any) -> None:
        """Put back what `snapshot` saved."""
        if type(saved) is int:  # deferring: the hits deferred since
            del self._deferred[saved:]
            if self._watch is not None:
                self._watch.reads.dirty = set().union(*map(changed_by, self._deferred)) or None
            return
        battle, state = self.battle, self.host.state
        units, hits, pending, submerged, retreated, counters, deferred, withdrawn = saved
        del self._deferred[deferred:]
        state.units = units
        state.counters = {name: dict(store) for name, store in counters.items()}
        for u, h, s in hits:
            u.hits, u.space = h, s
        battle.pending, battle.submerged, battle.retreated_to = list(pending), list(submerged), retreated
        battle.withdrawn = list(withdrawn)
        state.version += 1
