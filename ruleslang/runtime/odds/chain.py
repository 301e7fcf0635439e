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
ever given back): the chance of reaching each state is carried forward in an order where it
comes after every state that leads to it, a state left with probability 1 - s being fought
1 / (1 - s) times per arrival, exactly (`_flow`). A state no round can leave (neither side can
hit the other) is a stalemate. A round itself is worked out in factors (runtime/odds/factors.py). With a round limit the rounds are followed one by one
and what still fights after the last one is reported as such. A battle in progress (`BattleSpec.round`
after the first: the units standing at the end of a round, as an agent's retreat question sees them)
runs no `start` step and no first round: every round it fights is a late one.
"""

from __future__ import annotations

import gc
from fractions import Fraction

from ruleslang.base.errors import EvalError
from ruleslang.lang.eval import branching
from ruleslang.lang.eval.branching import Branching
from ruleslang.runtime.kit.landings import takes_land
from ruleslang.runtime.kit.battle_rules import BattleRules
from ruleslang.runtime.odds.decisions import BattleDecisions, advised_answer, asks_win_chance, choose_casualties
from ruleslang.runtime.odds.factors import BattleFactors
from ruleslang.runtime.odds.progress import BattleProgress, check_progress
from ruleslang.runtime.odds.results import (ATTACKER_WINS, BOTH_DESTROYED, DEFENDER_HOLDS, OUTCOMES, RETREAT,
                                            ROUND_LIMIT, STALEMATE, BattleSpec, CasualtyPolicy, Result, survivors)
from ruleslang.runtime.odds.rounds import LateRound, came_back, never_left
from ruleslang.runtime.odds.shared import BoardReads, SharedRounds, ask_board
from ruleslang.runtime.odds.states import RETREATED, BattleHost, BattleStates
from ruleslang.runtime.odds.kept import Kept
from ruleslang.runtime.odds.makings import BattleMakings
from ruleslang.runtime.odds.steps import BattleSteps
from ruleslang.runtime.odds.watch import EVERYTHING, RecordingWatch, StepWatch

# what callers take from here (the parts live in results, decisions, states, steps, makings)
__all__ = ["ATTACKER_WINS", "BOTH_DESTROYED", "DEFENDER_HOLDS", "OUTCOMES", "RETREAT", "ROUND_LIMIT", "STALEMATE",
           "BattleSpec", "CasualtyPolicy", "Chain", "LateRound", "Result", "advised_answer", "asks_win_chance",
           "battle_odds", "choose_casualties"]


def _fraction(w: int, t: int) -> Fraction:
    return Fraction(w, t)


def _ratio(w: int, t: int) -> float:
    return w / t


def _branching(game, exact: bool) -> Branching:
    """The Branching of the battle steps of `game`'s program (fractions when `exact`, else floats):
    its executors are compiled once per program (`CompiledProgram.kept`, kept with the program) and
    shared by the chains of every game of it (an agent asks battle after battle, a process plays game
    after game), each chain the world of its own runs (`BattleSteps._in_world`). They depend on the
    program alone: a run's own values (its `Lazy` lets, the world) are set for the run and put back
    after it. (Compiled per game, they cost 31-42M instructions a game: under 1% of a heuristic game.)"""
    kept = game.compiled.kept
    key = (Branching, exact, branching.GENERATE_BLOCKS)  # (tests run the closures' own chaining too)
    found = kept.get(key)
    if found is None:
        found = kept[key] = Branching(game.compiled, None, _fraction if exact else _ratio)
    return found


class Chain(BattleStates, BattleDecisions, BattleSteps, BattleMakings, BattleFactors, BattleProgress):
    """The exact odds of one battle of a game's composition and board (`source_game`: a `Game`,
    whose state is copied and not changed). `exact`: fractions, else floats; `policies`: the
    casualty order of each side ("attacker", "defender"); `round_limit`: the battle's last round
    (counted from its first, also for a battle in progress; None: until the battle ends); `retreat_below`: the attacker retreats (where the rules
    let it) when its chance to win, fighting on and following this same threshold after, falls
    below this (None: never); `share`: share a step's transition between the states that agree
    on what it read (`_step`; off: each state's own run, the check of the sharing). `step_runs` counts the steps run, `runs` each step's.
    `board`: a copy of `source_game`'s board (its `GameState`) that the chain copies its own from,
    sharing the units outside the battle (`GameState.copy_sharing`), for callers that ask many
    battles of one board (the agents' battle odds): the chain changes none of those units (a step
    that would is refused: `hold`), so one copy serves them all (None: the chain copies the game's
    board itself)."""

    def __init__(self, source_game, spec: BattleSpec, *, exact: bool = True,
                 policies: dict[str, CasualtyPolicy] | None = None, round_limit: int | None = None,
                 retreat_below=None, share: bool = True, board=None, store: SharedRounds | None = None,
                 recall: bool = False):
        self.spec = spec
        self.share = share
        self.step_runs = 0
        self.runs: dict[str, int] = {}  # the runs of each step
        self.retreat_below = retreat_below
        self._source_game = source_game
        self._board = board
        self._fight_on: Chain | None = None  # the chain that values states for the threshold
        self._retreating = False
        # in the chain that values states (`BattleDecisions._policy_value`): it fights on, noting
        # the states where the attacker could retreat; their values under the threshold
        self._notes_retreats = False
        self._policy_below = None
        self._may_retreat: set[tuple] = set()
        self._values: dict[tuple, object] = {}
        self._valuing: set[tuple] = set()
        self.exact = exact
        self.policies = policies or {}
        self.round_limit = round_limit
        check_progress(spec)
        self.host = BattleHost(self, source_game, board)
        self.game = self.host
        self.ctx = self.host.ctx
        self.compiled = self.host.compiled
        self.prob = _fraction if exact else _ratio
        self.one = Fraction(1) if exact else 1.0
        self.branching = _branching(source_game, exact)
        config = self.host.kit.battle_config()
        if config is None:
            raise EvalError("E546", "these rulesets have no 'runtime battle' phase, so there is no battle to compute")
        self.rules = BattleRules(self.host, config)
        self.steps = {name: config.text(name) for name in ("round", "start")}
        self.sequence = self.host.sequence(self.steps["round"]) if self.steps["round"] else []
        self._round_cache: dict[tuple, dict] = {}
        self._transitions: dict[tuple, dict] = {}  # without sharing: (step, round class, state) -> transition
        self._shared: dict[str, Kept] = {}         # step -> its transitions, kept under what they read
        self._watch: StepWatch | None = None
        self._casualty_memo: dict[tuple, tuple] = {}
        self._rolled: dict[tuple, tuple] = {}
        self._rolled_kept: dict[tuple, Kept] = {}  # the same, kept under what they read of the state
        self._at: tuple | None = None               # the state a run whose hits wait started from
        self._end_cache: dict[tuple, tuple] = {}
        self._plans: dict[str, Kept] = {}      # step -> its deferred runs, kept as `_shared` are
        self._applied: dict[tuple, Kept] = {}  # deferred hits -> their changes, kept the same way
        # (deferred hits, counters, side index, side number) -> what making them did to that side
        self._made_on: dict[tuple, tuple] = {}
        self._unmade: set = set()              # deferred hits whose making is not one side's alone
        # (a deferred hit but its count, counters, side index, side number) -> its making for every count
        self._families: dict[tuple, tuple] = {}
        self._uncounted: set = set()           # hits but their counts that `_every_count` cannot make
        self._most: dict[int, int] = {}        # a hit statement's id -> the most hits it made in a plan (`_most_hits`)
        self._every_applied: dict[tuple, Kept] = {}  # a deferred hit but its count -> its makings, kept as `_applied`
        self._count_by_count: set = set()      # hits but their counts that `_every_made` cannot make
        self._units_read: dict[int, tuple] = {}  # a side's number -> what the kit reads of its units (`_side_units`)
        self._saturated: dict[tuple, Kept] = {}  # a deferred hit but its count -> (its changes, the most it made)
        self._plain: set[str] = set()          # the steps whose effects cannot wait (NotDeferred)
        self.deferring = False                 # Branching's world: a run's hits are deferred now
        self._deferred: list = []              # the hits deferred so far in this run
        self._last_defer: tuple | None = None  # the run's last deferred hit: (statement, frame values, key, sides)
        self._applying: tuple = ()             # the deferred hits being made, and how many are made
        self._made = 0
        self._init_factors()
        # the round transitions shared with the other chains of this battle (`store`,
        # runtime/odds/shared.py): their generation, and what this chain's steps read of the board
        # outside the battle (none: not shared)
        self._store, self._gen, self._outside, self._first_units = None, None, None, None
        self._start_reads: BoardReads | None = None
        self._setup()
        if store is not None and share and retreat_below is None and not self.policies:
            ctx = self.ctx
            self._first_units = self._unit_reads()  # (its units as set up: `answer_reads`)
            self._gen = store.generation(self._site(), lambda key: ask_board(ctx, key), self._first_units)
            self._store, self._outside = store, BoardReads(self._gen.answers, self._base_counters)
            if recall:  # what the start step reads, noted apart from the generation's (`answer_reads`)
                self._start_reads = BoardReads({}, self._base_counters)

    def close(self) -> None:
        """Let go of the chain's host, its context and its copy of the board, for a caller done
        with the chain (its `Result` holds none of them). The host is in reference cycles (its
        context names it as the game and holds its `decide`; the context's battle holds the
        battle settings, whose closures name the context), so a chain simply dropped left its
        host, context and board copy (the board's list of units, the battle's units, the index of
        units by id, the settings' closures: a few hundred objects a chain) to the cyclic
        collector's next pass, which the query that made the chain set off as it turned the
        collector back on (`BattleOdds._run`); emptied, they are freed by reference counting as
        the chain is dropped. The chain answers nothing after (`solve`, `win_chance_at`)."""
        self.host.close()

    def _site(self) -> tuple:
        """What this chain's round transitions depend on besides a state, the board outside the
        battle and what the kit reads of its units (`_unit_reads`; runtime/odds/shared.py): the
        battle (its space, sides, where an assault comes from and the ships that support it), exact
        or float, the round limit. Not whether it is in progress (`spec.round`: what a battle in
        progress does otherwise is in its states, the reads or the site: shared.py), nor the order of
        the unit types in the states' records (the shared transitions hold the records without it:
        `_unordered_side`), nor the ids the states' units are given (`_materialize`: from the board's
        next id, after the battle's units were added): only their order tells them apart, the
        attacker's first, each side's in its records' order, whatever the first id."""
        spec, host = self.spec, self.host
        support = tuple((u.id, u.type, u.owner, u.hits) for u in map(host.unit_or_none, self.battle.support)
                        if u is not None)
        return (spec.space, self.attacker, self.defender, spec.amphibious_from, support, self.exact, self.round_limit)

    def first_state(self) -> tuple:
        """The battle's first state (`initial`: its units' records, the counters it wrote) with
        what else its answer depends on besides the board outside the battle: its site (the
        space, the sides' players, where an assault comes from and the ships supporting it, exact
        or float, the round limit: `_site`), whether it is in progress (with a round limit, its
        round: the rounds it has left), and whether winning takes the territory (`takes_land`). A
        key for answers kept across chains and games (battle_odds.py's part "sonar"), with
        `answer_reads`."""
        spec, host = self.spec, self.host
        progress = spec.round if self.round_limit is not None else spec.round > 1
        return (self.initial, self._site(), progress, takes_land(host.board, host.allied, spec.space, self.attacker))

    def answer_reads(self) -> tuple | None:
        """What this chain's answer read of the board outside the battle (the reads its generation
        of shared transitions holds: runtime/odds/shared.py, and its start step's) and of its units
        past the steps' watch (`_unit_reads`, as it was set up), for a caller that keeps the answer
        for later chains of the same `first_state` (`reads_hold`); None when the chain shares no
        transitions or a step read what no read notes (`BoardReads.poisoned`; made without
        `recall`, none)."""
        start = self._start_reads
        if self._outside is None or self._outside.poisoned or start is None or start.poisoned:
            return None
        answers = dict(self._gen.answers)
        answers.update(start.answers)
        return answers, self._first_units

    def reads_hold(self, reads: tuple) -> bool:
        """Whether this chain's board and units answer `reads` (`answer_reads` of another chain)
        as they answered that chain."""
        answers, units = reads
        if self._outside is None or units != self._first_units:
            return False
        ctx = self.ctx
        for key, value in answers.items():
            if ask_board(ctx, key) != value:
                return False
        return True

    def _unit_reads(self) -> dict:
        """What the kit reads of the battle's units past the steps' watch (the casualty order's
        costs, the hits a unit takes), which may follow the board's counters (a technology): by unit
        type and owner, the (cost, hit points) its units have. A generation of shared transitions
        holds those of every chain that joined it, and a chain joins only where they agree on the
        types and owners both have (`SharedRounds.generation`): a transition reads those of its
        state's units alone."""
        facts = self.host.unit_rules()
        found: dict = {}
        for u in self.host.state.units[len(self._base):]:
            key = (u.type, u.owner)
            if key not in found:  # both answers are kept per type and owner: one unit of each asks
                found[key] = ((facts.cost(u.type), facts.hit_points(u)),)
        return found

    def _end(self, sid: tuple) -> tuple | None:
        """(outcome, taken) when the battle in the state named `sid` (`sid`) is over, else None."""
        found = self._end_cache.get(sid)
        if found is None and sid[2] and sid[2][0] == RETREATED:
            found = self._end_cache[sid] = (RETREAT, False)
        if found is None:
            attackers, defenders = self._fights_on(sid[0]), self._fights_on(sid[1])
            if attackers and defenders:
                found = ()
            elif attackers:
                found = (ATTACKER_WINS, self._taken(self.key_of(sid)))
            elif defenders:
                found = (DEFENDER_HOLDS, False)
            else:
                found = (BOTH_DESTROYED, False)
            self._end_cache[sid] = found
        return found or None

    def _taken(self, key: tuple) -> bool:
        host = self.host
        if not takes_land(host.board, host.allied, self.spec.space, self.attacker):
            return False
        self._materialize(key, 0)
        return any(self.rules.captures(u) for u in self.battle.units("attacker"))

    # ------------------------------------------------------------------ solving

    def solve(self) -> Result:
        """The distribution of the battle's ends.

        The cyclic garbage collector is paused while the chain is solved: a chain makes tens of
        thousands of small tuples (its states, keys and transitions), nearly all of them kept to
        the end, and their young collections, each also promoting them to be scanned again by the
        older ones, took about a tenth of a warm chain's time. A chain is in no cycle (its host
        holds it weakly, its kept results are handed its projection, the branching runs' loops
        and hooks are not closures calling themselves): dropped, it is freed at once with its
        states and transitions, not left for a collection that scans it (tests/test_odds.py); a
        few hundred small objects it made are still in cycles (closures, its step watch) and
        wait for the collector."""
        collecting = gc.isenabled()
        gc.disable()
        try:
            return self._solve_ends()
        finally:
            if collecting:
                gc.enable()

    def _solve_ends(self) -> Result:
        """`solve`, with the collector paused."""
        ends: dict = {}
        taken = 0 * self.one
        rounds = 0 * self.one

        left_of: dict = {}  # a state's name -> its survivors (a state ends in several ways' sums)

        def absorb(sid, kind, p, is_taken):
            nonlocal taken
            left = left_of.get(sid)
            if left is None:
                left = left_of[sid] = survivors(self.key_of(sid))
            ends[(kind, left)] = ends.get((kind, left), 0) + p
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

        # a battle in progress (`spec.round` after the first) starts at a late round: its `start`
        # step and first round are behind it
        first = self.spec.round
        fresh = first == 1 and self.steps["start"]
        start = self._start() if fresh else {self.initial: self.one}
        named: dict = {}
        for key, p in start.items():
            sid = self.sid(key)
            named[sid] = named.get(sid, 0) + p
        live = settle(named)
        if self.round_limit is not None and self.round_limit < first:
            for key, p in live.items():
                absorb(key, ROUND_LIMIT, p, False)
            live = {}
        if first == 1:
            if live:
                rounds += sum(live.values(), 0 * self.one)
            live = settle(advance(live, 1))
        if self.round_limit is not None:
            late = LateRound()
            for _ in range(max(first, 2), self.round_limit + 1):
                if not live:
                    break
                rounds += sum(live.values(), 0 * self.one)
                live = settle(advance(live, late))
            for key, p in live.items():
                absorb(key, ROUND_LIMIT, p, False)
        else:
            rounds += self._flow(live, absorb)
        initial = {"attacker": {}, "defender": {}}
        for side, _o, utype, owner, *_ in self.initial[0]:
            initial[side][(utype, owner)] = initial[side].get((utype, owner), 0) + 1
        return Result(self.spec, self.attacker, self.defender, initial, self.costs,
                      dict(sorted(ends.items(), key=lambda kv: (OUTCOMES.index(kv[0][0]), kv[0][1]))),
                      taken, rounds, len(self._round_cache), "exact" if self.exact else "float")

    def _start(self) -> dict:
        """The states after the battle's `start` step, from its first state; with `recall`, run
        through a watch that notes what it reads of the board outside the battle (the units in a
        space by those of them outside the battle, as an AA gun's `units(battle_space(), ...)` asks;
        a read of the whole board's units poisons them: `answer_reads`). Its run is not shared, so
        elsewhere it reads past any watch."""
        noted = self._start_reads
        if noted is None:
            return self._run(self.initial, 0, self.steps["start"])
        watch = RecordingWatch(self.ctx, self.battle, False, None, self._shares_counters(), noted)
        out = self._run(self.initial, 0, self.steps["start"], watch)
        if EVERYTHING in watch.reads:
            noted.poisoned = True
        return out

    def _flow(self, live: dict, absorb) -> object:
        """From the live states at the start of the second round (name -> probability): the chance
        of reaching each later state, carried forward in an order where every state comes after
        those that lead to it (`_order`); each end is absorbed (`absorb(sid, outcome, p, taken)`).
        A state left with probability 1 - s is fought 1 / (1 - s) times per arrival. Gives the
        expected number of rounds fought after the first."""
        reach = dict(live)
        rounds = 0 * self.one
        late = LateRound()
        ended = self._end_cache
        for sid in self._order(live):
            p = reach.pop(sid)
            trans = self._round(sid, late)
            stay = trans.get(sid, 0)
            if never_left(stay, self.one, self.exact):
                absorb(sid, STALEMATE, p, False)
                continue
            visits = p / (self.one - stay)
            rounds += visits
            for k2, q in trans.items():
                if k2 == sid:
                    continue
                end = ended.get(k2)  # `_end`, looked up without a call (asked of every successor)
                if end is None:
                    end = self._end(k2)
                if end:
                    absorb(k2, end[0], visits * q, end[1])
                else:
                    reach[k2] = reach.get(k2, 0) + visits * q
        return rounds

    def _order(self, live: dict) -> list:
        """The live states reachable from `live` after the first round, each after every state that
        leads to it (a depth-first search's finishing order, reversed); E547 when a state comes
        back after changing."""
        late = LateRound()
        ended = self._end_cache
        done: set = set()
        on_path: set = set()
        finished: list = []
        for root in live:
            if root in done:
                continue
            stack = [(root, iter(self._round(root, late)))]
            on_path.add(root)
            while stack:
                sid, successors = stack[-1]
                for k2 in successors:
                    if k2 == sid or k2 in done:
                        continue
                    end = ended.get(k2)  # `_end`, looked up without a call
                    if end is None:
                        end = self._end(k2)
                    if end:
                        continue
                    if k2 in on_path:
                        raise came_back()
                    on_path.add(k2)
                    stack.append((k2, iter(self._round(k2, late))))
                    break
                else:
                    stack.pop()
                    on_path.discard(sid)
                    done.add(sid)
                    finished.append(sid)
        finished.reverse()
        return finished


def battle_odds(game, spec: BattleSpec, **options) -> Result:
    """The exact odds of `spec` on `game`'s board under its composition (see `Chain`)."""
    return Chain(game, spec, **options).solve()
