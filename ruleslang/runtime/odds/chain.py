"""Exact battle odds: the composition's own battle steps run over a distribution of battle states.

A state is what the battle's steps can tell apart: each unit still in the battle, as its side,
type, owner, hits taken, whether it is a casualty leaving at the end of the round or has
submerged, and where it came from; and the counters the steps wrote (a rule that records
something of the battle, such as the AA guns there at its start). Units are not told apart by id: two states with the same
units merge, and a state is written in one order (its units sorted), so the result never depends
on hashing. A step maps a state to a distribution of states: the step runs as in a game (the
runtime's `Battle` takes the hits, the casualty order below chooses the casualties), except that
where it rolls dice every outcome is followed with its probability (`lang/eval/branching.py`).

Rounds: the `start` step once, then the `round` sequence. The rounds after the first are taken as
alike (a step may ask `battle_round() == 1`, or compare the round with 1 in any way, but a rule
that tells the second round from the third is refused with E546), so from the second round the
battle is a Markov chain over states whose only loops are a state staying as it is (no unit is
ever given back): each state's outcome is its successors' outcomes weighed by their
probabilities, divided by the chance of leaving it, exactly. A state no round can leave (neither
side can hit the other) is a stalemate. With a round limit the rounds are followed one by one
and what still fights after the last one is reported as such.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from ruleslang.base.errors import EvalError
from ruleslang.board.queries import BoardQueries
from ruleslang.board.state import Unit
from ruleslang.lang.check.advice import OPTIONS
from ruleslang.lang.eval.branching import Branching, content
from ruleslang.lang.eval.context import EvalContext
from ruleslang.lang.eval.host import Host
from ruleslang.runtime.game import GameServices
from ruleslang.runtime.kit.battle import Battle, BattleRules
from ruleslang.runtime.kit.casualties import casualty_order, cheapest_rank, keep_rank, listed_rank
from ruleslang.runtime.kit.turn_state import KitState
from ruleslang.runtime.odds.watch import (EVERYTHING, FIGHTING, PENDING, ROUND, SUBMERGED, NotDeferred, StepWatch,
                                          changed_by, project, split_of)

# the outcomes of a battle, in the order they are reported
ATTACKER_WINS, DEFENDER_HOLDS, BOTH_DESTROYED, STALEMATE, ROUND_LIMIT, RETREAT = (
    "attacker wins", "defender holds", "both destroyed", "stalemate", "round limit", "attacker retreats")
OUTCOMES = (ATTACKER_WINS, DEFENDER_HOLDS, BOTH_DESTROYED, STALEMATE, ROUND_LIMIT, RETREAT)
RETREATED = ("", (), "the attacker retreated")  # the mark of a state the attacker left (among its counters)
WHOLE = "whole state"  # in a transition's changes: the successor's records are given whole
UNIT_PART = "@"  # in a counter key kept with a unit's record: where the unit's id was (no name or number is "@")


class LateRound(int):
    """The round number of every round after the first: it equals no number but is greater than
    1; a rule that asks more of it (is it the third round?) cannot be followed (E546)."""

    def __new__(cls):
        return super().__new__(cls, 2)

    def _settled(self, other, answer: bool | None, what: str) -> bool:
        if answer is None or not isinstance(other, int):
            raise EvalError("E546", f"the exact battle chain takes the rounds after the first as alike; "
                                    f"a rule asks whether the round {what} {other}",
                            hint="estimate by sampling the real battle instead (ruleslang odds --sample N)")
        return answer

    def __eq__(self, other):
        return self._settled(other, False if isinstance(other, int) and other < 2 else None, "is")

    def __ne__(self, other):
        return not self.__eq__(other)

    def __lt__(self, other):
        return self._settled(other, False if isinstance(other, int) and other <= 2 else None, "is below")

    def __le__(self, other):
        return self._settled(other, False if isinstance(other, int) and other < 2 else None, "is at most")

    def __gt__(self, other):
        return self._settled(other, True if isinstance(other, int) and other < 2 else None, "is above")

    def __ge__(self, other):
        return self._settled(other, True if isinstance(other, int) and other <= 2 else None, "is at least")

    def _arithmetic(self, other):
        raise EvalError("E546", "the exact battle chain takes the rounds after the first as alike; a rule "
                                "computes with the round number",
                        hint="estimate by sampling the real battle instead (ruleslang odds --sample N)")

    __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = __mod__ = __floordiv__ = _arithmetic
    __hash__ = int.__hash__


class _NoDice:
    """The dice of the chain's host: every roll goes through the exact evaluator, none is sampled."""

    def randint(self, a, b):
        raise EvalError("E546", "a die was rolled where the exact battle chain cannot follow it")


@dataclass
class BattleSpec:
    """A battle to compute: the attacker's units (type -> count) against the defenders at `space`
    (the scenario's units there, or `defending` owned by `defender`)."""

    space: str
    attacker: str
    attacking: dict[str, int]
    defending: dict[str, int] | None = None
    defender: str | None = None
    came_from: list[str] = field(default_factory=list)
    amphibious_from: str | None = None


@dataclass
class CasualtyPolicy:
    """How a side orders its losses: "cheapest", "keep-attackers", or a list of unit types."""

    kind: str = "cheapest"
    types: tuple[str, ...] = ()


@dataclass
class Result:
    """The distribution of a battle's ends: `ends` maps (outcome, survivors) to its probability,
    survivors as ((side, type, owner, hits), count) pairs; `taken`: the probability that the
    attacker takes the territory; `rounds`: the expected number of rounds fought."""

    spec: BattleSpec
    attacker: str
    defender: str | None
    initial: dict[str, dict[tuple[str, str], int]]
    costs: dict[str, int]
    ends: dict[tuple, Any]
    taken: Any
    rounds: Any
    states: int
    method: str = "exact"

    def outcome(self, name: str):
        """The probability of one outcome (ATTACKER_WINS, ...)."""
        return sum((p for (kind, _), p in self.ends.items() if kind == name), _zero(self.taken))

    def expected_survivors(self, side: str) -> dict[tuple[str, str], Any]:
        """(type, owner) -> the expected number of that side's units left."""
        out: dict[tuple[str, str], Any] = {key: _zero(self.taken) for key in self.initial[side]}
        for (_, survivors), p in self.ends.items():
            for (s, utype, owner, _hits), n in survivors:
                if s == side:
                    out[(utype, owner)] = out.get((utype, owner), _zero(p)) + n * p
        return out

    def expected_loss(self, side: str):
        """The expected value (purchase cost) of the side's units destroyed."""
        left = self.expected_survivors(side)
        return sum(((self.initial[side][key] - left[key]) * self.costs[key[0]] for key in self.initial[side]),
                   _zero(self.taken))


def _zero(like):
    return 0.0 if isinstance(like, float) else Fraction(0)


class _Host(GameServices):
    """The battle's game as the steps see it: a copy of the board, the casualty order as every
    player's choice, the advice of the rules (or the retreat policy) as their decisions."""

    def __init__(self, chain: "Chain", source_game):
        self.chain = chain
        self.compiled = source_game.compiled
        self.state = source_game.state.copy(events=False)  # the battle does not read the game's past
        self.board = BoardQueries(self.state)
        host = Host(None)
        host.rng = _NoDice()
        self.ctx = EvalContext(self.compiled, host, state=self.state, board=self.board,
                               options=dict(source_game.ctx.options), facts=dict(source_game.ctx.facts),
                               decide=chain.decide)
        self.ctx.game = self
        self.configs: dict = {}
        self.kit = KitState(self)
        self._init_services()

    def unit_or_none(self, uid: int):
        """The unit with this id: the board's others are indexed once, the battle's per state."""
        if self._index_version != self.state.version:
            base = self.chain.base_index
            self._units_by_id = {u.id: u for u in self.state.units[len(base):]}
            self._index_version = self.state.version
        found = self._units_by_id.get(uid)
        return found if found is not None else self.chain.base_index.get(uid)

    def remove_units(self, ids: list[int], why: str) -> None:
        """Casualties leave the board (the rest of the board keeps its units)."""
        gone = set(ids)
        state = self.state
        base = len(self.chain.base_index)
        state.units = state.units[:base] + [u for u in state.units[base:] if u.id not in gone]
        state.version += 1

    def ask(self, decision, check, fallback):
        if decision.kind == "casualties":
            return self.chain.casualties(decision)
        return fallback()


class Chain:
    """The exact odds of one battle of a game's composition and board (`source_game`: a `Game`,
    whose state is copied and not changed). `exact`: fractions, else floats; `policies`: the
    casualty order of each side ("attacker", "defender"); `round_limit`: fight at most so many
    rounds (None: until the battle ends); `retreat_below`: the attacker retreats (where the rules
    let it) when its chance to win, fighting on, falls below this (None: never); `share`: share a
    step's transition between the states that agree on what it read (`_step`; off: each state's
    own run, the check of the sharing). `step_runs` counts the steps run, `runs` each step's."""

    def __init__(self, source_game, spec: BattleSpec, *, exact: bool = True,
                 policies: dict[str, CasualtyPolicy] | None = None, round_limit: int | None = None,
                 retreat_below=None, share: bool = True):
        self.spec = spec
        self.share = share
        self.step_runs = 0
        self.runs: dict[str, int] = {}  # the runs of each step
        self.retreat_below = retreat_below
        self._source_game = source_game
        self._fight_on: Chain | None = None
        self._retreating = False
        self.exact = exact
        self.policies = policies or {}
        self.round_limit = round_limit
        self.host = _Host(self, source_game)
        self.game = self.host
        self.ctx = self.host.ctx
        self.compiled = self.host.compiled
        self.prob = (lambda w, t: Fraction(w, t)) if exact else (lambda w, t: w / t)
        self.one = Fraction(1) if exact else 1.0
        self.branching = Branching(self.compiled, self, self.prob)
        config = self.host.kit.battle_config()
        if config is None:
            raise EvalError("E546", "these rulesets have no 'runtime battle' phase, so there is no battle to compute")
        self.rules = BattleRules(self.host, config)
        self.steps = {name: config.text(name) for name in ("round", "start")}
        self.sequence = self.host.sequence(self.steps["round"]) if self.steps["round"] else []
        self._round_cache: dict[tuple, dict] = {}
        self._transitions: dict[tuple, tuple] = {}
        self._watch: StepWatch | None = None
        self._casualty_memo: dict[tuple, tuple] = {}
        self._rolled: dict[tuple, tuple] = {}
        self._end_cache: dict[tuple, tuple] = {}
        self._solved: dict[tuple, tuple] = {}
        self._solving: set[tuple] = set()
        self._plans: dict[str, tuple] = {}     # step -> its deferred runs, kept as `_transitions` are
        self._applied: dict[tuple, tuple] = {}  # deferred hits -> their changes, kept the same way
        self._plain: set[str] = set()          # the steps whose effects cannot wait (NotDeferred)
        self.deferring = False                 # Branching's world: a run's hits are deferred now
        self._deferred: list = []              # the hits deferred so far in this run
        self._applying: tuple = ()             # the deferred hits being made, and how many are made
        self._made = 0
        self._setup()

    # ------------------------------------------------------------------ setting up

    def _setup(self) -> None:
        """Put the battle's units on the copied board and set up the battle as `_fight` does."""
        spec, state, host = self.spec, self.host.state, self.host
        self.base_index: dict = {}  # the board's units outside the battle, by id (none yet)
        space = spec.space
        sea_support = spec.amphibious_from
        state.units = [u for u in state.units if not (u.space == space and u.owner == spec.attacker)]
        if spec.defending is not None:
            state.units = [u for u in state.units if not (u.space == space and not host.allied(u.owner, spec.attacker))]
            for utype, n in spec.defending.items():
                state.add_units(space, utype, spec.defender, n)
        for utype, n in spec.attacking.items():
            made = state.add_units(space, utype, spec.attacker, n)
            if sea_support is not None and host.domain(made[0]) == "sea":
                state.move_units([u.id for u in made], sea_support)
        state.version += 1
        enemies = [u for u in state.units if u.space == space and not host.allied(u.owner, spec.attacker)]
        fights = self.rules.fights
        attacking = [u.id for u in state.units if u.space == space and u.owner == spec.attacker]
        origins = spec.came_from or []
        came_from = {}
        for i, uid in enumerate(u for u in attacking if host.domain(host.unit_or_none(u)) != "air"):
            came_from[uid] = origins[i % len(origins)] if origins else space
        support = []
        if sea_support is not None:
            support = [u.id for u in state.units if u.space == sea_support and u.owner == spec.attacker
                       and host.domain(u) == "sea"]
            for uid in support:
                host.unit_or_none(uid).cargo = []
            for uid in attacking:
                if host.domain(host.unit_or_none(uid)) == "land":
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
            utype = host.unit_or_none(uid).type
            if utype not in order:
                order.append(utype)
        self._type_order = {t: i for i, t in enumerate(order)}
        self._base = [u for u in state.units if u.id not in set(attacking) | set(battle.defending)]
        self.base_index = {u.id: u for u in self._base}
        self._next_id = state.next_unit_id
        state.units = self._base + [u for u in state.units if u.id not in self.base_index]
        state.version += 1
        self._base_counters = {name: dict(store) for name, store in state.counters.items()}
        self.initial = self._key()
        self._id_block = len(self.initial[0])  # no side ever has more units than the battle began with
        self.costs = {t: host.unit_rules().cost(t) for t in order}

    # ------------------------------------------------------------------ states

    def _key(self) -> tuple:
        """The battle's current state, canonical: (its units sorted, without ids, each with the
        counter entries keyed by it; the other counters the battle wrote, sorted)."""
        battle, host = self.battle, self.host
        pending, submerged = set(battle.pending), set(battle.submerged)
        retreated = battle.retreated_to is not None
        written, marks = self._counters_written()
        out = []
        for side, ids in (("attacker", battle.attacking), ("defender", battle.defending)):
            for uid in ids:
                u = host.unit_or_none(uid)
                if u is None or (u.space != battle.space and not (retreated and side == "attacker")):
                    continue
                status = SUBMERGED if uid in submerged else PENDING if uid in pending else FIGHTING
                out.append((side, self._type_order[u.type], u.type, u.owner, u.hits, status,
                            battle.came_from.get(uid), marks.get(str(uid), ())))
        out.sort(key=lambda r: (r[0], r[1], r[2], r[3], r[4], r[5], r[6] or "", r[7]))
        return tuple(out), ((RETREATED,) + written if retreated else written)

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

    def _materialize(self, key: tuple, round_number) -> None:
        """Make the battle and the board hold state `key` (fresh unit ids, in the key's order)."""
        battle, state = self.battle, self.host.state
        units, attacking, defending, came_from, pending, submerged = [], [], [], {}, [], []
        records, counters = key
        # the board's counters before the battle, copied: the steps' `set` and `change` write here
        state.counters = {name: dict(store) for name, store in self._base_counters.items()}
        for name, k, value in counters:
            state.counters.setdefault(name, {})[k] = json.loads(value)
        split = split_of(records)
        # fresh ids, the defenders' from a second block: a side's ids do not depend on how many
        # units the other side has (the distributions of its dice are kept under them: `remember`)
        for i, (side, _order, utype, owner, hits, status, origin, marks) in enumerate(records):
            uid = self._next_id + i if side == "attacker" else self._next_id + self._id_block + i - split
            units.append(Unit(uid, utype, owner, battle.space, hits))
            (attacking if side == "attacker" else defending).append(uid)
            if origin is not None:
                came_from[uid] = origin
            if status == PENDING:
                pending.append(uid)
            elif status == SUBMERGED:
                submerged.append(uid)
            for name, k, value in marks:
                part = str(uid)
                state.counters.setdefault(name, {})[tuple(part if x == UNIT_PART else x for x in k)] = json.loads(value)
        state.units = self._base + units
        state.events = []
        state.version += 1
        battle.attacking, battle.defending, battle.came_from = attacking, defending, came_from
        battle.pending, battle.submerged, battle.retreated_to = pending, submerged, None
        battle.round = round_number
        self.ctx.host.reset_budget()

    def snapshot(self) -> Any:
        """What a step's effects change: the board's units, their hits, the battle's lists."""
        battle, state = self.battle, self.host.state
        return (state.units, [(u, u.hits, u.space) for u in state.units[len(self._base):]],
                list(battle.pending), list(battle.submerged), battle.retreated_to,
                {name: dict(store) for name, store in state.counters.items()}, len(self._deferred))

    def restore(self, saved: Any) -> None:
        """Put back what `snapshot` saved."""
        battle, state = self.battle, self.host.state
        units, hits, pending, submerged, retreated, counters, deferred = saved
        del self._deferred[deferred:]
        if self._watch is not None and self.deferring:
            self._watch.reads.dirty = set().union(*map(changed_by, self._deferred)) or None
        state.units = units
        state.counters = {name: dict(store) for name, store in counters.items()}
        for u, h, s in hits:
            u.hits, u.space = h, s
        battle.pending, battle.submerged, battle.retreated_to = list(pending), list(submerged), retreated
        state.version += 1

    # ------------------------------------------------------------------ decisions

    def casualties(self, decision) -> list[int]:
        """The casualty order of the side taking the hits. The order only looks at the units'
        types, owners, hits and room, and breaks ties by id: the choice is kept under those, as
        places among the options, and reused in every state that offers the same."""
        ids = decision.options
        room = decision.context["room"]
        units = [self.host.unit_or_none(uid) for uid in ids]
        memo_key = (decision.count, self.battle.side_of_unit(ids[0]) if ids else None,
                    tuple((u.type, u.owner, u.hits, room.get(u.id)) for u in units),
                    tuple(sorted(range(len(ids)), key=ids.__getitem__)))
        places = self._casualty_memo.get(memo_key)
        if places is None:
            chosen = choose_casualties(self.host, self.battle, self.policies, decision)
            where = {uid: i for i, uid in enumerate(ids)}
            places = self._casualty_memo[memo_key] = tuple(where[uid] for uid in chosen)
        return [ids[i] for i in places]

    def decide(self, decision_id, player, options, mode, count, prompt):
        """A `choose` in a battle step: the rules' advice (`advised_answer`). A retreat question
        (its advice asks for `win_chance`) is answered as the advice answers a lost battle when
        the attacker's chance to win from the state as it stands, fighting on, is below the
        retreat threshold, and as it answers a won one otherwise (never retreating without a
        threshold); once the attacker retreats, a decision without advice (where to) takes the
        first option."""
        compiled = self.compiled
        ctx = self._watch or self.ctx  # the advice's reads are noted as the step's
        if self._retreating and compiled.advice(decision_id) is None and mode == "one" and options:
            return options[0]
        if not asks_win_chance(compiled, decision_id):
            return advised_answer(compiled, ctx, decision_id, options, mode, self.one)
        fight_on = advised_answer(compiled, ctx, decision_id, options, mode, self.one)
        if self.retreat_below is None:
            return fight_on
        if self._watch is not None:  # the chance to win from here reads the whole state
            self._watch.reads.add(EVERYTHING)
        give_up = advised_answer(compiled, ctx, decision_id, options, mode, 0 * self.one)
        if give_up == fight_on or self._chance_now() >= self.retreat_below:
            return fight_on
        self._retreating = True
        return give_up

    def _chance_now(self):
        """The attacker's chance to win from the battle as it stands (this round's casualties
        gone), fighting on without retreating (the chain without a retreat threshold)."""
        if self._fight_on is None:
            self._fight_on = Chain(self._source_game, self.spec, exact=self.exact, policies=self.policies,
                                   share=self.share)
        key = self._key()
        key = (tuple(r for r in key[0] if r[5] != PENDING), key[1])
        inner = self._fight_on
        end = inner._end(key)
        if end:
            return self.one if end[0] == ATTACKER_WINS else 0 * self.one
        dist, _rounds, _taken = inner._solve(key)
        return sum((p for (kind, _), p in dist.items() if kind == ATTACKER_WINS), 0 * self.one)

    def remember(self, key, compute):
        """The distribution of a rolled expression (`Branching`'s world): kept under `key` (the
        expression and the values of the locals it reads, units by all they hold) when all it
        read of the battle besides them is the hits of those units, which the key holds; the
        reads are noted again for the step that reuses it."""
        watch = self._watch
        if watch is None:
            return compute()
        found = self._rolled.get(key)
        if found is not None:
            dist, noted = found
            watch.reads.update(noted)
            return dist
        reads = watch.reads
        outer, reads.log = reads.log, []
        try:
            dist = compute()
            noted = reads.log
        finally:
            reads.log = outer
        if outer is not None:
            outer.extend(noted)
        if all(aspect[0] == "hits" for aspect in noted):
            self._rolled[key] = (dist, frozenset(noted))
        return dist

    # ------------------------------------------------------------------ transitions

    def _run(self, key: tuple, round_number, name: str, watch: StepWatch | None = None) -> dict:
        """The distribution of states after running step `name` from state `key` (seen through
        `watch`, when given, which notes what the step read)."""
        out: dict = {}
        self.step_runs += 1
        self.runs[name] = self.runs.get(name, 0) + 1
        self._materialize(key, round_number)

        def finish(p) -> None:
            k = self._key()
            out[k] = out.get(k, 0) + p
        self._retreating = False
        config = self.rules.config
        if watch is None:
            self.branching.run_procedure(self.ctx, name, self.one, finish)
            return out
        # the battle's settings (retreat_to, ...) are evaluated through the watch too
        self._watch, saved, config.ctx = watch, config.ctx, watch
        try:
            self.branching.run_procedure(watch, name, self.one, finish)
        finally:
            self._watch, config.ctx = None, saved
        return out

    def _step(self, name: str, key: tuple, round_class) -> dict:
        """Step `name` from state `key` in round 1 (`round_class` 1), a later round or the start (0).

        A step's transition is shared between states: the step runs through a `StepWatch`, and
        its transition is kept under what it read of the state (`watch.project`, and the round
        when it read the round); a state that agrees with an earlier one on that takes its
        transition, as changes of the sides the step changed (it read those whole)."""
        rclass = int(round_class) if round_class is not None else 0
        if self.share and name not in self._plain:
            try:
                return self._deferred_step(name, key, round_class, rclass)
            except NotDeferred:
                self._plain.add(name)
        if not self.share:
            found = self._transitions.get((name, rclass, key))
            if found is None:
                found = self._transitions[(name, rclass, key)] = self._run(key, round_class, name)
            return found
        table = self._transitions.get(name)
        if table is None:
            table = self._transitions[name] = ([], {})
        seen, known = table
        split = split_of(key[0])
        for aspects in seen:
            found = known.get((aspects, project(key, aspects, split), rclass if ROUND in aspects else None))
            if found is not None:
                return _apply(key, split, found)
        watch = StepWatch(self.ctx, self.battle)
        out = self._run(key, round_class, name, watch)
        aspects = frozenset(watch.reads)
        changes = _changes(key, split, out, aspects)
        if changes is None:  # a side changed that the step did not read whole: keep it for this state only
            aspects = frozenset((EVERYTHING, ROUND))
            changes = _changes(key, split, out, aspects)
        if aspects not in seen:
            seen.append(aspects)
        known[(aspects, project(key, aspects, split), rclass if ROUND in aspects else None)] = changes
        return out

    # ------------------------------------------------------------------ deferred hits

    def deferred(self) -> int:
        """How many hits the run has deferred so far (Branching's world)."""
        return len(self._deferred)

    def defer(self, hit) -> None:
        """Take a hit the run defers (Branching's world): kept with a key of what it will read (its
        statement, count, and the values of its frame's slots, units by all they hold); the
        battle's units among them are read with their hits, so the run's key holds those."""
        try:
            hit.desc = (id(hit.stmt), hit.count, hit.now, tuple(content(hit.env[s]) for s in hit.reads))
            hash(hit.desc)
        except TypeError:
            raise NotDeferred("a value that cannot be a key") from None
        reads = self._watch.reads
        sides = self._unit_sides(hit.desc[3])
        if sides:
            saved, reads.dirty = reads.dirty, None  # what it read before the earlier hits are made
            reads.update(("hits", side) for side in sides)
            reads.dirty = saved
        self._deferred.append(hit)
        reads.dirty = (reads.dirty or set()) | changed_by(hit)

    def _unit_sides(self, value) -> set:
        """The sides of the battle's units inside a key made by `content`."""
        found: set = set()
        stack = [value]
        battle = self.battle
        while stack:
            v = stack.pop()
            if type(v) is tuple:
                if len(v) == 8 and v[0] == "unit":
                    side = battle.side_of_unit(v[1])
                    if side is not None:
                        found.add(side)
                else:
                    stack.extend(v)
        return found

    def _deferred_step(self, name: str, key: tuple, round_class, rclass: int) -> dict:
        """Step `name` from state `key` with its hits deferred: its statements run once per what
        they read (the dice of a side's fire read that side's units, not the targets), giving a
        distribution of lists of hits; the hits are made afterwards, kept per what they read
        (the side hit, `_make`), so a side's casualties of n hits are worked out once and reused
        in every state with that side. NotDeferred when the step's effects cannot wait."""
        split = split_of(key[0])
        table = self._plans.get(name)
        if table is None:
            table = self._plans[name] = ([], {})
        seen, known = table
        plan = None
        for aspects in seen:
            plan = known.get((aspects, project(key, aspects, split), rclass if ROUND in aspects else None))
            if plan is not None:
                break
        if plan is None:
            watch = StepWatch(self.ctx, self.battle, deferring=True)
            plan = self._plan(key, round_class, name, watch)
            aspects = frozenset(watch.reads)
            if aspects not in seen:
                seen.append(aspects)
            known[(aspects, project(key, aspects, split), rclass if ROUND in aspects else None)] = plan
        out: dict = {}
        for desc, hits, p in plan:
            if not hits:
                out[key] = out.get(key, 0) + p
                continue
            for k2, q in self._make(desc, hits, key, split, round_class, rclass).items():
                out[k2] = out.get(k2, 0) + p * q
        return out

    def _plan(self, key: tuple, round_class, name: str, watch: StepWatch) -> list:
        """Run step `name` from state `key` deferring its hits: [(their key, the hits, probability)]."""
        self.step_runs += 1
        self.runs[name] = self.runs.get(name, 0) + 1
        self._materialize(key, round_class)
        plan: dict = {}

        def finish(p) -> None:
            hits = tuple(self._deferred)
            desc = tuple(h.desc for h in hits)
            found = plan.get(desc)
            plan[desc] = (desc, hits, p) if found is None else (desc, found[1], found[2] + p)
        self._retreating = False
        config = self.rules.config
        self._watch, saved, config.ctx = watch, config.ctx, watch
        self.deferring, self._deferred = True, []
        try:
            self.branching.run_procedure(watch, name, self.one, finish)
        finally:
            self._watch, config.ctx = None, saved
            self.deferring, self._deferred = False, []
        return list(plan.values())

    def _make(self, desc: tuple, hits: tuple, key: tuple, split: int, round_class, rclass: int) -> dict:
        """The state after making deferred `hits` (`desc`: their key) in state `key`, kept under the
        hits and what making them read (the units hit, with their hits and casualties)."""
        table = self._applied.get(desc)
        if table is None:
            table = self._applied[desc] = ([], {})
        seen, known = table
        for aspects in seen:
            found = known.get((aspects, project(key, aspects, split), rclass if ROUND in aspects else None))
            if found is not None:
                return _apply(key, split, found)
        self._materialize(key, round_class)
        watch = StepWatch(self.ctx, self.battle)
        config = self.rules.config
        self._watch, saved, config.ctx = watch, config.ctx, watch
        self._applying = hits
        try:
            for i, hit in enumerate(hits):
                self._made = i
                self.branching.apply_hit(watch, hit, self._force)
        finally:
            self._watch, config.ctx = None, saved
            self._applying, self._made = (), 0
        out = {self._key(): self.one}
        aspects = frozenset(watch.reads)
        changes = _changes(key, split, out, aspects)
        if changes is None:
            aspects = frozenset((EVERYTHING, ROUND))
            changes = _changes(key, split, out, aspects)
        if aspects not in seen:
            seen.append(aspects)
        known[(aspects, project(key, aspects, split), rclass if ROUND in aspects else None)] = changes
        return out

    def _force(self, lazy, ctx, force):
        """A `let` the run left for later, evaluated while its hits are made: it must read nothing
        the hits made since it was written (those deferred after it) changed."""
        reads = self._watch.reads
        since = self._applying[lazy.epoch:self._made]
        saved, reads.dirty = reads.dirty, (set().union(*map(changed_by, since)) or None)
        try:
            return self.branching.force(lazy, ctx, force)
        finally:
            reads.dirty = saved

    def _round(self, key: tuple, round_class) -> dict:
        """One round from `key` (round 1, or a LateRound): every step of the sequence, states merged
        between steps, then the round's casualties leave."""
        cache_key = (key, int(round_class))
        found = self._round_cache.get(cache_key)
        if found is not None:
            return found
        dist = {key: self.one}
        for name in self.sequence:
            nxt: dict = {}
            for k, p in dist.items():
                if k[1] and k[1][0] == RETREATED:  # the attackers left: the round's other steps are not run
                    nxt[k] = nxt.get(k, 0) + p
                    continue
                for k2, q in self._step(name, k, round_class).items():
                    nxt[k2] = nxt.get(k2, 0) + p * q
            dist = nxt
        ended: dict = {}
        for (records, counters), p in dist.items():
            k2 = (tuple(r for r in records if r[5] != PENDING), counters)
            ended[k2] = ended.get(k2, 0) + p
        self._round_cache[cache_key] = ended
        return ended

    def _end(self, key: tuple) -> tuple | None:
        """(outcome, taken) when the battle in state `key` is over, else None."""
        found = self._end_cache.get(key)
        if found is None and key[1] and key[1][0] == RETREATED:
            found = self._end_cache[key] = (RETREAT, False)
        if found is None:
            attackers = any(r[0] == "attacker" and r[5] != SUBMERGED for r in key[0])
            defenders = any(r[0] == "defender" and r[5] != SUBMERGED for r in key[0])
            if attackers and defenders:
                found = ()
            elif attackers:
                found = (ATTACKER_WINS, self._taken(key))
            elif defenders:
                found = (DEFENDER_HOLDS, False)
            else:
                found = (BOTH_DESTROYED, False)
            self._end_cache[key] = found
        return found or None

    def _taken(self, key: tuple) -> bool:
        host, space = self.host, self.spec.space
        board = host.board
        if not board.is_land(space) or host.allied(board.controller(space) or self.attacker, self.attacker):
            return False
        self._materialize(key, 0)
        return any(self.rules.captures(u) for u in self.battle.units("attacker"))

    # ------------------------------------------------------------------ solving

    def solve(self) -> Result:
        """The distribution of the battle's ends."""
        ends: dict = {}
        taken = 0 * self.one
        rounds = 0 * self.one

        def absorb(key, kind, p, is_taken):
            nonlocal taken
            survivors = _survivors(key)
            ends[(kind, survivors)] = ends.get((kind, survivors), 0) + p
            if is_taken:
                taken += p

        def settle(dist: dict) -> dict:
            """Absorb the states of `dist` that ended; the live ones, with their chances."""
            live: dict = {}
            for key, p in dist.items():
                end = self._end(key)
                if end:
                    absorb(key, end[0], p, end[1])
                else:
                    live[key] = live.get(key, 0) + p
            return live

        def advance(live: dict, round_key) -> dict:
            """The states one more round makes of the live ones."""
            out: dict = {}
            for key, p in live.items():
                for k2, q in self._round(key, round_key).items():
                    out[k2] = out.get(k2, 0) + p * q
            return out

        start = self._run(self.initial, 0, self.steps["start"]) if self.steps["start"] else {self.initial: self.one}
        live = settle(start)
        if live:
            rounds += sum(live.values(), 0 * self.one)
        if self.round_limit is not None and self.round_limit < 1:
            for key, p in live.items():
                absorb(key, ROUND_LIMIT, p, False)
            live = {}
        live = settle(advance(live, 1))
        if self.round_limit is not None:
            late = LateRound()
            for _ in range(2, self.round_limit + 1):
                if not live:
                    break
                rounds += sum(live.values(), 0 * self.one)
                live = settle(advance(live, late))
            for key, p in live.items():
                absorb(key, ROUND_LIMIT, p, False)
        else:
            for key, p in live.items():
                dist, e_rounds, t = self._solve(key)
                rounds += p * e_rounds
                for (kind, survivors), q in dist.items():
                    ends[(kind, survivors)] = ends.get((kind, survivors), 0) + p * q
                taken += p * t
        initial = {"attacker": {}, "defender": {}}
        for side, _o, utype, owner, *_ in self.initial[0]:
            initial[side][(utype, owner)] = initial[side].get((utype, owner), 0) + 1
        return Result(self.spec, self.attacker, self.defender, initial, self.costs,
                      dict(sorted(ends.items(), key=lambda kv: (OUTCOMES.index(kv[0][0]), kv[0][1]))),
                      taken, rounds, len(self._round_cache), "exact" if self.exact else "float")

    def _solve(self, key: tuple) -> tuple:
        """From a live state at the start of a round after the first: (its ends' distribution,
        the expected rounds still fought, the chance the territory is taken)."""
        found = self._solved.get(key)
        if found is not None:
            return found
        if key in self._solving:
            raise EvalError("E547", "the exact battle chain found a battle state that comes back after it "
                                    "changed; only a battle whose units are only lost can be computed",
                            hint="estimate by sampling the real battle instead (ruleslang odds --sample N)")
        self._solving.add(key)
        trans = self._round(key, LateRound())
        stay = trans.get(key, 0)
        zero = 0 * self.one
        if stay == self.one or (not self.exact and stay > 1 - 1e-15):
            found = ({(STALEMATE, _survivors(key)): self.one}, zero, zero)
        else:
            dist: dict = {}
            rounds = self.one
            taken = zero
            for k2, q in trans.items():
                if k2 == key:
                    continue
                end = self._end(k2)
                if end:
                    d2, r2, t2 = {(end[0], _survivors(k2)): self.one}, zero, (self.one if end[1] else zero)
                else:
                    d2, r2, t2 = self._solve(k2)
                for item, v in d2.items():
                    dist[item] = dist.get(item, 0) + q * v
                rounds += q * r2
                taken += q * t2
            leave = self.one - stay
            found = ({item: v / leave for item, v in dist.items()}, rounds / leave, taken / leave)
        self._solving.discard(key)
        self._solved[key] = found
        return found


def choose_casualties(host, battle, policies: dict, decision) -> list[int]:
    """The casualties of a `hit` (a "casualties" decision of `battle` on `host`'s board): the
    casualty order of the side taking the hits, by its policy (default: cheapest first)."""
    room = decision.context["room"]
    units = [host.unit_or_none(uid) for uid in decision.options]
    side = battle.side_of_unit(units[0].id) if units else "defender"
    policy = policies.get(side, CasualtyPolicy())
    cost = host.unit_cost
    if policy.kind == "keep-attackers" and side == "attacker":
        rank = keep_rank(battle.rules.captures, units, cost)
    elif policy.kind == "list":
        rank = listed_rank(policy.types, cost)
    else:
        rank = cheapest_rank(cost)
    return casualty_order(units, room, decision.count, rank=rank)


def advised_answer(compiled, ctx, decision_id: str, options, mode: str, chance):
    """The answer to a `choose` in a battle step that the rules' advice gives; an advice that asks
    for the `win_chance` (a retreat) is given `chance`. A decision without advice, or whose
    advice asks another estimate, is E546."""
    advice = compiled.advice(decision_id)
    if advice is None:
        raise EvalError("E546", f"the exact battle chain cannot follow the decision {decision_id}: the rules "
                                "give no advice for it (only casualties, retreats and advised choices are followed)",
                        hint="write an `advice` for it, or estimate by sampling (ruleslang odds --sample N)")
    args = []
    for name in advice.params:
        if name == OPTIONS:
            args.append(tuple(options))
        elif name == "win_chance":
            args.append(chance)
        else:
            raise EvalError("E546", f"the exact battle chain cannot give the estimate '{name}' that the advice "
                                    f"of decision {decision_id} asks for")
    answer = advice.fn(ctx, *args)
    if mode != "one":
        answer = tuple(o for o in options if o in answer)
    return answer


def asks_win_chance(compiled, decision_id: str) -> bool:
    """True when the advice of the decision asks for the chance to win (a retreat question)."""
    advice = compiled.advice(decision_id)
    return advice is not None and "win_chance" in advice.params


def _changes(key: tuple, split: int, out: dict, aspects: frozenset) -> list | None:
    """The transition `out` from state `key` as changes: (the attacker's records after, or None
    when unchanged; the defender's; the counters written after; probability) per successor
    (WHOLE and the records after when the step read everything). None when a side the step did
    not read whole changed (the transition is then kept whole)."""
    if EVERYTHING in aspects:
        return [(WHOLE, k2[0], k2[1], p) for k2, p in out.items()]
    full = {side for kind, side in aspects if kind == "full"}
    before = (key[0][:split], key[0][split:])
    changes = []
    for (records, counters), p in out.items():
        s2 = split_of(records)
        after = (records[:s2], records[s2:])
        sides = []
        for i, side in enumerate(("attacker", "defender")):
            if side in full:
                sides.append(after[i])
            elif after[i] != before[i]:
                return None
            else:
                sides.append(None)
        changes.append((sides[0], sides[1], counters, p))
    return changes


def _apply(key: tuple, split: int, changes: list) -> dict:
    """The successors of state `key` by the changes of a transition kept for a state like it."""
    records = key[0]
    out: dict = {}
    for attackers, defenders, counters, p in changes:
        if attackers is WHOLE:  # the whole state (a transition kept for this state only)
            k2 = (defenders, counters)
        else:
            k2 = ((records[:split] if attackers is None else attackers)
                  + (records[split:] if defenders is None else defenders), counters)
        out[k2] = out.get(k2, 0) + p
    return out


def _survivors(key: tuple) -> tuple:
    """The units left in state `key`, counted: ((side, type, owner, hits), count) pairs in order."""
    counts: dict = {}
    for side, _o, utype, owner, hits, *_ in key[0]:
        counts[(side, utype, owner, hits)] = counts.get((side, utype, owner, hits), 0) + 1
    return tuple(sorted(counts.items()))


def battle_odds(game, spec: BattleSpec, **options) -> Result:
    """The exact odds of `spec` on `game`'s board under its composition (see `Chain`)."""
    return Chain(game, spec, **options).solve()

