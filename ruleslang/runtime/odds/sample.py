"""The odds of a battle by fighting the real battle many times (`ruleslang odds --sample N`).

The fallback where the exact chain cannot follow a step, and its independent check: the battle is
set up as the chain sets it up (the same units, the same casualty order and decisions), and then
fought by the runtime's `battle` procedure with seeded dice, as in a game.
"""

from __future__ import annotations

import copy
import math
import pickle
from dataclasses import dataclass

from ruleslang.base.errors import EvalError
from ruleslang.board.queries import BoardQueries
from ruleslang.lang.eval.host import Host
from ruleslang.runtime.config import runtime_procedures
from ruleslang.runtime.decisions import Agent
from ruleslang.runtime.kit import battle as battle_kit
from ruleslang.runtime.kit.turn_state import KitState
from ruleslang.runtime.odds.chain import (ATTACKER_WINS, BOTH_DESTROYED, DEFENDER_HOLDS, OUTCOMES, RETREAT, STALEMATE,
                                          BattleSpec, Chain, Result, advised_answer, choose_casualties)


@dataclass
class SampleResult(Result):
    """A Result estimated from `trials` battles; `interval(p)`: the half-width of the 95% interval."""

    trials: int = 0

    def interval(self, p) -> float:
        """The half-width of the 95% (normal) interval of a frequency `p` over the battles fought."""
        p = float(p)
        return 1.96 * math.sqrt(max(p * (1 - p), 0.0) / self.trials)


class _PolicyAgent(Agent):
    """Every player of a sampled battle: the chain's casualty order and decisions."""

    name = "odds"

    def __init__(self, policies: dict, compiled):
        self.policies = policies
        self.compiled = compiled

    def decide(self, decision, game):
        if decision.kind == "casualties":
            return choose_casualties(game, decision.context["battle"], self.policies, decision)
        return advised_answer(self.compiled, game.ctx, decision.id, decision.options, decision.mode, 1.0)


class _Fresh:
    """Copies of a board as it was when this was made, one per battle: its data pickled once and
    unpickled per copy (about twice as fast as `GameState.copy`'s deep copy, which a battle of a
    few milliseconds would otherwise spend most of its time in); the map is shared, as there, and
    everything else copied together (an index of the units holds the copy's units)."""

    def __init__(self, state):
        self.state = state
        self.data = pickle.dumps({k: v for k, v in vars(state).items() if k != "map"},
                                 protocol=pickle.HIGHEST_PROTOCOL)

    def make(self):
        """A new copy of the board."""
        clone = copy.copy(self.state)
        vars(clone).update(pickle.loads(self.data))
        return clone


def sample_battle(game, spec: BattleSpec, trials: int, *, seed: int = 1, policies: dict | None = None) -> SampleResult:
    """Fight the battle `spec` `trials` times on a copy of `game`'s board (which `game` then holds:
    build a game for sampling alone), with dice seeded by `seed`."""
    policies = policies or {}
    if spec.round > 1:
        raise EvalError("E567", "sampling a battle in progress (a round after the first) is not yet supported: "
                                "the sampled battle is fought from its start",
                        hint="compute it with the exact chain instead")
    chain = Chain(game, spec, exact=False, policies=policies)
    prepared = chain.host.state
    chain_battle = chain.battle
    attacking, defending = list(chain_battle.attacking), list(chain_battle.defending)
    proc = next(p for _, p in runtime_procedures(game.compiled, "battle") if p.config is not None)
    players = [p.name for p in prepared.map.players]
    game.agents = {p: _PolicyAgent(policies, game.compiled) for p in players}
    game.host = Host(seed)
    game.ctx.host = game.host
    counts: dict = {}
    taken = 0
    rounds = 0
    fresh = _Fresh(prepared)
    version = prepared.version
    for trial in range(trials):
        state = fresh.make()
        # a new board, with a version no board of an earlier battle had: what is kept per version
        # (the game's unit index, the context's counters) is made again, not taken from a battle
        # that passed through the same version number (its artillery already fired, its units gone)
        version = state.version = max(version, game.state.version) + 1
        state.current_player = spec.attacker
        game.state = state
        game.board = BoardQueries(state)
        game.ctx.state, game.ctx.board = state, game.board
        game.host.rolls = []
        game.host.reset_budget()  # each battle starts with the whole step budget
        game.decisions = []
        game.kit = KitState(game)
        game.kit.pending_battles = [spec.space]
        game.kit.amphibious[spec.space] = chain_battle.amphibious
        game.kit.moved_from = dict(chain_battle.came_from)
        if spec.amphibious_from is not None:
            game.kit.landed_from[spec.space] = [spec.amphibious_from]
        game.battle_results = []
        battle_kit.run(game.ctx, proc)
        outcome = game.battle_results[-1]
        left = []
        for side, ids in (("attacker", attacking), ("defender", defending)):
            for uid in ids:
                unit = game.unit_or_none(uid)
                if unit is not None and (unit.space == spec.space or side == "attacker"):
                    left.append((side, unit.type, unit.owner, unit.hits))
        alive = {side for side, *_ in left}
        if outcome["result"] == "retreat":
            kind = RETREAT
        elif "attacker" in alive and "defender" in alive:
            kind = STALEMATE
        elif "attacker" in alive:
            kind = ATTACKER_WINS
        elif "defender" in alive:
            kind = DEFENDER_HOLDS
        else:
            kind = BOTH_DESTROYED
        survivors: dict = {}
        for item in left:
            survivors[item] = survivors.get(item, 0) + 1
        key = (kind, tuple(sorted(survivors.items())))
        counts[key] = counts.get(key, 0) + 1
        taken += bool(outcome["taken"])
        rounds += outcome["rounds"]
    initial = {"attacker": {}, "defender": {}}
    for side, _o, utype, owner, *_ in chain.initial[0]:
        initial[side][(utype, owner)] = initial[side].get((utype, owner), 0) + 1
    ends = {key: n / trials for key, n in sorted(counts.items(), key=lambda kv: (OUTCOMES.index(kv[0][0]), kv[0][1]))}
    return SampleResult(spec, spec.attacker, chain.defender, initial, dict(chain.costs), ends, taken / trials,
                        rounds / trials, 0, f"sampled, {trials} battles", trials=trials)
