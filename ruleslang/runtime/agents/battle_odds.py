"""The heuristic agent's battle odds: the exact battle chain of `ruleslang odds` (runtime/odds) in
float mode, bounded, cached, with the quick estimate as a counted fallback.

The chain runs the composition's own battle steps (support fire, AA fire, bombardment, first strikes,
every house rule that changes a step), with the casualty order the agent itself takes (cheapest
first, multi-hit units absorbing first: runtime/kit/casualties.py, written once). It is still
slow (a step is interpreted once per battle state), so the work is bounded, deterministically
(never by the clock):

- a query whose battle is larger than QUERY_STATES estimated states ((hit points of the attack + 1)
  x (hit points of the defence + 1): the states of two sides losing units in one order) is not
  run ("over budget");
- once a decision's queries have run DECISION_STATES chain states, later queries of the same
  decision are not run ("decision budget");

Each of these answers None and is counted in `counts` by its reason; the agent then uses its quick
estimate (heuristic.py, `_wins`) for that query. `benchmarks/play.py` prints the counts.
- a battle with the same unit types on each side as one the chain could not follow (E546, E547:
  a counter keyed by a unit, an effect outside the battle) is not run ("not followed").

A battle being fought (a retreat question) is asked from the round after the one just fought
(`BattleSpec.round`: no `start` step, no first round again), with the hits its units took; the
chain of its first question is kept (`KeptBattle`) and answers its later rounds' questions from its
own states while the board outside the battle is unchanged ("kept chain" in `counts`).

Answers are cached per battle (the attacking units by type, the space, where an amphibious
assault comes from, the board as it stands: its version) for one decision, so a plan asks each
battle once. Each chain copies only its battle's units from the game's board, sharing the others
with it (`Chain`'s `board`: the chain changes no unit outside its battle, and is solved and dropped
before the game moves on), rather than from a copy of the whole board made per board version
(about 1.2 ms for a house-rules board, for two of every three chains).
"""

from __future__ import annotations

import copy
import gc
import time
from weakref import WeakKeyDictionary

from ruleslang.base.errors import EvalError
from ruleslang.runtime.kit.battle_rules import BattleRules, land_enemies
from ruleslang.runtime.odds.chain import ATTACKER_WINS, BattleSpec, Chain
from ruleslang.runtime.odds.shared import SharedRounds

QUERY_STATES = 36        # the largest battle (estimated states) a query runs in the chain: 5 v 5 single hits
DECISION_STATES = 100    # the chain states one decision's queries may run in all

CHAIN, CACHED, OVER_BUDGET, DECISION_BUDGET, NOT_FOLLOWED, KEPT, RECALLED_ANSWER = (
    "chain", "cached", "over budget", "decision budget", "not followed", "kept chain", "recalled")
REASONS = (CHAIN, CACHED, OVER_BUDGET, DECISION_BUDGET, NOT_FOLLOWED, KEPT, RECALLED_ANSWER)

# composition -> the round transitions its games' chains share (runtime/odds/shared.py), one store
# per map, options and facts the games were given (a game's scenario sets them; nothing else a
# transition depends on is the same in every chain of one game but not of another: the rest is in
# a chain's site or its reads): [(map, options, facts, store)], the latest STORES_PER_COMPOSITION.
# Every agent of every game of the process asks of it (each of its own battles, but the defender's
# agent may ask of the same ones, and a later game of the same ones again); kept weakly by the
# composition, so a dropped composition frees its stores
_STORES: WeakKeyDictionary = WeakKeyDictionary()
STORES_PER_COMPOSITION = 2  # (each up to `shared.TRANSITIONS`)
# (the part "sonar" of heuristic.py's SPARE: `BattleOdds(recall=True)`) the chain's answers kept
# across decisions and games: store (`_STORES`) -> the chain's `first_state` (its units, its site
# with its space) -> [(its `answer_reads`, its states, `_run`'s answer)]; a later chain of the same
# first state whose board and units answer those reads the same (`Chain.reads_hold`) takes the
# answer without solving: the answer it would work out (the reads are those that decide which
# shared transitions a chain may take, runtime/odds/shared.py; a read of the units at a space,
# as every battle's start step makes in the house rules (an AA gun's `units(battle_space(), ...)`),
# by those of them outside the battle, `units_outside`; one of the whole board's units keeps
# nothing). The same few sides are asked again and again at the same spaces, game after game
_RECALLED: WeakKeyDictionary = WeakKeyDictionary()
RECALLED = 20_000  # first states kept per store before it starts afresh


class BattleOdds:
    """The attacker's chance to win battles on a game's board, from the exact chain (see above)."""

    def __init__(self, query_states: int = QUERY_STATES, decision_states: int = DECISION_STATES, *,
                 recall: bool = False):
        self.query_states = query_states
        self.decision_states = decision_states
        self.recall = recall  # answers kept across battle sites (`_RECALLED`)
        self.counts = dict.fromkeys(REASONS, 0)
        self.seconds = 0.0  # CPU time in the chain's queries (benchmarks/play.py)
        self._cache: dict[tuple, float | None] = {}
        self._spent = 0
        self._refused: set[tuple] = set()  # the unit types of battles the chain cannot follow (E546/E547)
        self._kept: KeptBattle | None = None  # the chain of the battle being fought, across its rounds
        self.belligerents = Belligerents()

    def new_decision(self) -> None:
        """Start a decision's budget afresh; the answers of boards that have passed are dropped."""
        self._spent = 0
        self._cache = {}

    def close(self) -> None:
        """Let go of the chain kept for a battle in progress (`KeptBattle`; `Chain.close`), for an
        agent whose game is closed (`Agent.left`)."""
        if self._kept is not None:
            self._kept.chain.close()
            self._kept = None

    def chance(self, game, attacker: str, attack: list, space: str, *, defence: list | None = None,
               amphibious_from: str | None = None, take: bool = False, round_number: int = 1) -> float | None:
        """The chance that `attack` (units of `attacker`) destroys the defence of `space` with some
        of it left (`take`: and takes the territory, the battle's `captures` setting): None when
        the query is over a budget or the chain cannot follow the battle (counted). The defence:
        the enemy units at `space` as the board stands (the battle's `fights` setting chooses who
        defends), or the units `defence` (a battle being fought: those that outlive its round,
        with the hits they took, as if all of them were the most numerous owner's; the attack's
        hits are counted too). `round_number`: the round the battle is fought from (a battle
        being fought: the round after the one just fought, which runs no `start` step and no
        first round again; its answers come from one chain kept across its rounds: `KeptBattle`)."""
        found = self._answer(game, attacker, attack, space, defence, amphibious_from, round_number)
        if found is None:
            return None
        return found[1] if take else found[0]

    def exchange(self, game, attacker: str, attack: list, space: str) -> tuple[float, float, float] | None:
        """(the chance that `attack` destroys the defence of `space` with some of it left, the
        expected value its side loses, the expected value the defence loses; values by purchase
        cost), from the same cached chain as `chance`; None as there."""
        found = self._answer(game, attacker, attack, space, None, None)
        return None if found is None else (found[0], found[2], found[3])

    def _answer(self, game, attacker: str, attack: list, space: str, defence: list | None,
                amphibious_from: str | None, round_number: int = 1) -> tuple | None:
        """`_run`'s answer for this battle on the board as it stands, cached (and counted) per battle."""
        types = _types(attack)
        defending = _types(defence) if defence is not None else None
        # the hits of a battle in progress (`_run`); the chain tells round 1 only from a later one
        hits = _hits(attack, defence) if defence is not None else {}
        key = (game.state.version, attacker, space, tuple(sorted(types.items())),
               tuple(sorted(defending.items())) if defending is not None else None, amphibious_from,
               tuple(sorted(hits.items())), round_number > 1)
        if key in self._cache:
            self.counts[CACHED] += 1
            return self._cache[key]
        spec = BattleSpec(space, attacker, types, amphibious_from=amphibious_from, round=round_number, hits=hits)
        found = self._cache[key] = self._run(game, attack, spec, defence)
        return found

    def _run(self, game, attack: list, spec: BattleSpec, defence: list | None) -> tuple | None:
        """(the chance the attacker wins, the chance it takes the territory, the expected value
        each side loses: attacker, defender) from the chain; of a battle in progress (a later
        round), the chance to win alone (the rest None), from the chain kept across its rounds."""
        if defence is None:
            defence = self.belligerents.enemies_at(game, spec.space, spec.attacker)  # as the chain picks them
        elif defence:
            spec.defending, spec.defender = _types(defence), most_numerous_owner(defence)
        else:
            return (1.0, 1.0, 0.0, 0.0) if attack else (0.0, 0.0, 0.0, 0.0)
        in_progress = spec.round > 1 and spec.defending is not None
        if in_progress:
            kept = self._kept
            if kept is not None and kept.serves(game, spec):
                began = time.process_time()
                won = kept.win_chance(spec)
                self.seconds += time.process_time() - began
                if won is not None:
                    self.counts[KEPT] += 1
                    return (float(won), None, None, None)
        types = spec.attacking
        kinds = (tuple(sorted(types)), tuple(sorted({u.type for u in defence})), spec.amphibious_from is not None,
                 spec.round > 1)
        if kinds in self._refused:
            return self._skip(NOT_FOLLOWED)
        estimate = (_hit_points(game, attack) + 1) * (_hit_points(game, defence) + 1)
        if estimate > self.query_states:
            return self._skip(OVER_BUDGET)
        if self._spent + estimate > self.decision_states:
            return self._skip(DECISION_BUDGET)
        began = time.process_time()
        # the cyclic collector stays paused until the chain is dropped, not only while it solves
        # (`Chain.solve`): its objects, all made with the collector paused, were scanned by the
        # first collection after it (about a seventh of the agents' chain time); dropped, they
        # are freed at once, all but a few hundred small ones in cycles
        collecting = gc.isenabled()
        gc.disable()
        try:
            found = self._solve(game, spec, in_progress)
        finally:
            if collecting:
                gc.enable()
            self.seconds += time.process_time() - began
        if found is None:
            self._refused.add(kinds)
            return self._skip(NOT_FOLLOWED)
        states, answer, recalled = found
        self._spent += max(states, 1)
        self.counts[RECALLED_ANSWER if recalled else CHAIN] += 1
        return answer

    def _solve(self, game, spec: BattleSpec, keep: bool = False) -> tuple[int, tuple, bool] | None:
        """(the chain's states, `_run`'s answer, whether it was an answer kept for another chain:
        `recall`) for `spec`; None when the chain cannot follow the battle (E546, E547). The
        chain is dropped on return, but with `keep` (a battle in progress), when it is kept for the
        battle's later rounds (`KeptBattle`)."""
        store = self._store(game)
        try:
            chain = Chain(game, spec, exact=False, board=game.state, store=store, recall=self.recall)
        except EvalError:
            return None
        if self.recall:
            first = chain.first_state()
            recalled = _recalled(store, chain, first)
            if recalled is not None:
                chain.close()
                if keep and self._kept is not None:  # no chain is kept for this battle's later rounds
                    self._kept.chain.close()
                    self._kept = None
                return recalled + (True,)
        try:
            result = chain.solve()
        except EvalError:
            chain.close()  # (as below: freed at once)
            return None
        answer = (float(result.outcome(ATTACKER_WINS)), float(result.taken),
                  float(result.expected_loss("attacker")), float(result.expected_loss("defender")))
        if self.recall:
            _keep_answer(store, chain, first, result.states, answer)
        if keep:
            if self._kept is not None:  # the battle kept before is done with
                self._kept.chain.close()
            self._kept = KeptBattle(game, spec, chain)
        else:
            chain.close()  # freed at once as it is dropped, not by the collector (`Chain.close`)
        return result.states, answer, False

    @staticmethod
    def _store(game) -> SharedRounds:
        """The round transitions shared by the chains of the games of `game`'s composition played
        with its map, options and facts (`_STORES`)."""
        kept = _STORES.get(game.compiled)
        if kept is None:
            kept = _STORES[game.compiled] = []
        board_map, options, facts = game.state.map, game.ctx.options, game.ctx.facts
        for entry in kept:
            if entry[0] is board_map and entry[1] == options and entry[2] == facts:
                return entry[3]
        store = SharedRounds()
        # copies of the dicts (their values are a program's values, never changed in place; a deep
        # copy would make an enumeration's member anew, equal to no other: `EnumValue`)
        kept.append((board_map, dict(options), dict(facts), store))
        if len(kept) > STORES_PER_COMPOSITION:
            kept.pop(0)
        return store

    def _skip(self, reason: str) -> None:
        self.counts[reason] += 1
        return None


class KeptBattle:
    """The chain of a battle being fought, kept to answer its later rounds' questions: the chance
    to win from the state a later round starts in, never retreating, worked out from the chain's
    own states (`Chain.win_chance_at`), where a chain made afresh would fight them again.

    It serves only while nothing the chain read can have changed: the same game, the same battle
    (space, sides, where an assault comes from), and the board outside the battle as it was when
    the chain was made (`_outside`: every unit but the battle's sides in its space, with its
    space, hits, moves, flags and cargo; every counter; who holds each territory; the
    factories, treasuries, income, facts and options, which a chain reads from the game's board
    itself (`GameState.copy_sharing`); the round, player and phase). A step that writes a counter or moves a unit out of the battle changes
    that, and the next question makes a new chain."""

    def __init__(self, game, spec: BattleSpec, chain: Chain):
        self.game = game
        self.spec = spec
        self.chain = chain
        self.outside = _outside(game, spec)

    def serves(self, game, spec: BattleSpec) -> bool:
        """True when this chain may answer `spec` (the same battle, on the same board outside it)."""
        mine = self.spec
        return (game is self.game and spec.space == mine.space and spec.attacker == mine.attacker
                and spec.defender == mine.defender and spec.amphibious_from == mine.amphibious_from
                and _outside(game, spec) == self.outside)

    def win_chance(self, spec: BattleSpec) -> float | None:
        """The attacker's chance to win from the state `spec` names (None: not one of this battle's)."""
        collecting = gc.isenabled()
        gc.disable()
        try:
            return self.chain.win_chance_at(spec)
        finally:
            if collecting:
                gc.enable()


def _outside(game, spec: BattleSpec) -> tuple:
    """What a chain of `spec` may read of `game`'s board besides the battle's own units (`KeptBattle`)."""
    state, allied, space, attacker = game.state, game.allied, spec.space, spec.attacker
    units = tuple((u.id, u.type, u.owner, u.space, u.hits, u.moved, sorted(u.flags.items()), tuple(u.cargo))
                  for u in state.units
                  if u.space != space or (u.owner != attacker and allied(u.owner, attacker)))
    counters = {name: dict(store) for name, store in state.counters.items()}
    # the fields a chain shares with the game's board rather than copies (states.py's `_UNCHANGED`):
    # a kept chain reads them as they are now, so they too must be as they were
    factories = {s: (f.owner, f.kind, f.damage, sorted(f.flags.items())) for s, f in state.factories.items()}
    economy = ({p: dict(e) for p, e in state.treasury.items()}, dict(state.income_override),
               {p: dict(e) for p, e in state.income_override_by_economy.items()})
    return (state.round, state.current_player, state.phase, units, counters, dict(state.control),
            dict(state.control_at_turn_start), factories, dict(state.factories_at_turn_start), economy,
            copy.deepcopy(state.facts), copy.deepcopy(state.options))


class Belligerents:
    """Who fights whom in the game's battles, for agents: its battle rules (`BattleRules.enemies_at`),
    made again for another game or phase (what `at_war` answers is kept for a phase, as a battle
    phase keeps it)."""

    def __init__(self):
        self._kept: tuple | None = None  # (game, (round, player, phase), rules)

    def enemies_at(self, game, space: str, attacker: str) -> list:
        """The units at `space` that fight `attacker` there: those its battle counts as the defence."""
        board = game.board
        if board.is_land(space):  # every unit not on its side: no battle setting asked, no rules made
            return land_enemies(game, board.units_in(space), attacker)
        return self.rules(game).enemies_at(space, attacker)

    def rules(self, game) -> BattleRules:
        """The game's battle rules for the phase it is in, made once a phase (`enemies_at` asks
        them at sea; another asker of the same phase may share them: `Stalemates`)."""
        state = game.state
        key = (state.round, state.current_player, state.phase)
        kept = self._kept
        if kept is None or kept[0] is not game or kept[1] != key:
            kept = self._kept = (game, key, BattleRules(game, game.kit.battle_config()))
        return kept[2]


def _recalled(store: SharedRounds, chain: Chain, first: tuple) -> tuple | None:
    """(states, `_run`'s answer) kept for a chain of the first state `first` (`Chain.first_state`)
    whose reads `chain`'s board and units answer the same (`_RECALLED`), else None."""
    for reads, states, answer in _RECALLED.get(store, {}).get(first, ()):
        if chain.reads_hold(reads):
            return states, answer
    return None


def _keep_answer(store: SharedRounds, chain: Chain, first: tuple, states: int, answer: tuple) -> None:
    """Keep `chain`'s answer for later chains of its first state `first` (`_RECALLED`), where it
    read only what its reads note (`Chain.answer_reads`)."""
    reads = chain.answer_reads()
    if reads is None:
        return
    kept = _RECALLED.get(store)
    if kept is None or len(kept) >= RECALLED:
        kept = _RECALLED[store] = {}
    kept.setdefault(first, []).append((reads, states, answer))


def _types(units: list) -> dict[str, int]:
    """Unit type -> how many of `units` are of it."""
    out: dict[str, int] = {}
    for u in units:
        out[u.type] = out.get(u.type, 0) + 1
    return out


def _hits(attack: list, defence: list) -> dict[tuple[str, str], tuple[int, ...]]:
    """(side, unit type) -> the hits taken by the damaged units of that type (`BattleSpec.hits`)."""
    out: dict[tuple[str, str], tuple[int, ...]] = {}
    for side, units in (("attacker", attack), ("defender", defence)):
        for u in units:
            if u.hits:
                out[(side, u.type)] = out.get((side, u.type), ()) + (u.hits,)
    return {key: tuple(sorted(hits, reverse=True)) for key, hits in out.items()}


def most_numerous_owner(units: list) -> str:
    """The power with the most of `units` (the first of them on a tie)."""
    counts: dict[str, int] = {}
    for u in units:
        counts[u.owner] = counts.get(u.owner, 0) + 1
    return max(counts, key=lambda owner: counts[owner])


def _hit_points(game, units: list) -> int:
    """The hits `units` take before they are all destroyed."""
    return sum(max(1, game.hit_points(u) - getattr(u, "hits", 0)) for u in units)
