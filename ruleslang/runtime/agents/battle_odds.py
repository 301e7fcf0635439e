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

Answers are cached per battle (the attacking units by type, the space, where an amphibious
assault comes from, the board as it stands: its version) for one decision, so a plan asks each
battle once. Each chain copies only its battle's units from the game's board, sharing the others
with it (`Chain`'s `board`: the chain changes no unit outside its battle, and is solved and dropped
before the game moves on), rather than from a copy of the whole board made per board version
(about 1.2 ms for a house-rules board, for two of every three chains).
"""

from __future__ import annotations

import gc
import time

from ruleslang.base.errors import EvalError
from ruleslang.runtime.kit.battle import BattleRules
from ruleslang.runtime.odds.chain import ATTACKER_WINS, BattleSpec, Chain

QUERY_STATES = 36        # the largest battle (estimated states) a query runs in the chain: 5 v 5 single hits
DECISION_STATES = 100    # the chain states one decision's queries may run in all

CHAIN, CACHED, OVER_BUDGET, DECISION_BUDGET, NOT_FOLLOWED = (
    "chain", "cached", "over budget", "decision budget", "not followed")
REASONS = (CHAIN, CACHED, OVER_BUDGET, DECISION_BUDGET, NOT_FOLLOWED)


class BattleOdds:
    """The attacker's chance to win battles on a game's board, from the exact chain (see above)."""

    def __init__(self, query_states: int = QUERY_STATES, decision_states: int = DECISION_STATES):
        self.query_states = query_states
        self.decision_states = decision_states
        self.counts = dict.fromkeys(REASONS, 0)
        self.seconds = 0.0  # CPU time in the chain's queries (benchmarks/play.py)
        self._cache: dict[tuple, float | None] = {}
        self._spent = 0
        self._refused: set[tuple] = set()  # the unit types of battles the chain cannot follow (E546/E547)
        self.belligerents = Belligerents()

    def new_decision(self) -> None:
        """Start a decision's budget afresh; the answers of boards that have passed are dropped."""
        self._spent = 0
        self._cache = {}

    def chance(self, game, attacker: str, attack: list, space: str, *, defence: list | None = None,
               amphibious_from: str | None = None, take: bool = False) -> float | None:
        """The chance that `attack` (units of `attacker`) destroys the defence of `space` with some
        of it left (`take`: and takes the territory, the battle's `captures` setting): None when
        the query is over a budget or the chain cannot follow the battle (counted). The defence:
        the enemy units at `space` as the board stands (the battle's `fights` setting chooses who
        defends), or the units `defence` (a battle being fought: those that outlive its round),
        undamaged, as if all of them were the most numerous owner's."""
        found = self._answer(game, attacker, attack, space, defence, amphibious_from)
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
                amphibious_from: str | None) -> tuple[float, float, float, float] | None:
        """`_run`'s answer for this battle on the board as it stands, cached (and counted) per battle."""
        types = _types(attack)
        defending = _types(defence) if defence is not None else None
        key = (game.state.version, attacker, space, tuple(sorted(types.items())),
               tuple(sorted(defending.items())) if defending is not None else None, amphibious_from)
        if key in self._cache:
            self.counts[CACHED] += 1
            return self._cache[key]
        found = self._cache[key] = self._run(game, attacker, attack, types, space, defence, amphibious_from)
        return found

    def _run(self, game, attacker: str, attack: list, types: dict, space: str, defence: list | None,
             amphibious_from: str | None) -> tuple[float, float, float, float] | None:
        """(the chance the attacker wins, the chance it takes the territory, the expected value
        each side loses: attacker, defender) from the chain."""
        spec = BattleSpec(space, attacker, types, amphibious_from=amphibious_from)
        if defence is None:
            defence = self.belligerents.enemies_at(game, space, attacker)  # as the chain picks them
        elif defence:
            spec.defending, spec.defender = _types(defence), most_numerous_owner(defence)
        else:
            return (1.0, 1.0, 0.0, 0.0) if attack else (0.0, 0.0, 0.0, 0.0)
        kinds = (tuple(sorted(types)), tuple(sorted({u.type for u in defence})), amphibious_from is not None)
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
            found = self._solve(game, spec)
        finally:
            if collecting:
                gc.enable()
            self.seconds += time.process_time() - began
        if found is None:
            self._refused.add(kinds)
            return self._skip(NOT_FOLLOWED)
        states, answer = found
        self._spent += max(states, 1)
        self.counts[CHAIN] += 1
        return answer

    def _solve(self, game, spec: BattleSpec) -> tuple[int, tuple[float, float, float, float]] | None:
        """(the chain's states, `_run`'s answer) for `spec`; None when the chain cannot follow the
        battle (E546, E547). The chain is dropped on return."""
        try:
            result = Chain(game, spec, exact=False, board=game.state).solve()
        except EvalError:
            return None
        return result.states, (float(result.outcome(ATTACKER_WINS)), float(result.taken),
                               float(result.expected_loss("attacker")), float(result.expected_loss("defender")))

    def _skip(self, reason: str) -> None:
        self.counts[reason] += 1
        return None


class Belligerents:
    """Who fights whom in the game's battles, for agents: its battle rules (`BattleRules.enemies_at`),
    made again for another game or phase (what `at_war` answers is kept for a phase, as a battle
    phase keeps it)."""

    def __init__(self):
        self._kept: tuple | None = None  # (game, (round, player, phase), rules)

    def enemies_at(self, game, space: str, attacker: str) -> list:
        """The units at `space` that fight `attacker` there: those its battle counts as the defence."""
        state = game.state
        key = (state.round, state.current_player, state.phase)
        kept = self._kept
        if kept is None or kept[0] is not game or kept[1] != key:
            kept = self._kept = (game, key, BattleRules(game, game.kit.battle_config()))
        return kept[2].enemies_at(space, attacker)


def _types(units: list) -> dict[str, int]:
    """Unit type -> how many of `units` are of it."""
    out: dict[str, int] = {}
    for u in units:
        out[u.type] = out.get(u.type, 0) + 1
    return out


def most_numerous_owner(units: list) -> str:
    """The power with the most of `units` (the first of them on a tie)."""
    counts: dict[str, int] = {}
    for u in units:
        counts[u.owner] = counts.get(u.owner, 0) + 1
    return max(counts, key=lambda owner: counts[owner])


def _hit_points(game, units: list) -> int:
    """The hits `units` take before they are all destroyed."""
    return sum(max(1, game.hit_points(u) - getattr(u, "hits", 0)) for u in units)
