"""The heuristic agent's look-ahead: a rule decision (`choose`) valued by what each answer does.

The game keeps its phase starts and resume points for the look-ahead (phase_starts.py:
`PhaseStarts`, hooked in by the agent's `joined`). To value the answers of a decision asked in
a phase:

- a copy of the game is made from the start kept (phase_starts.py's `fork`), and the phase is
  run again in it with the answers the game was given since the phase started (or since the
  resume point it starts from): the same generator state and the same
  answers bring it to the same decision in the same state (checked: a decision of another kind,
  player or id ends the look-ahead, and the agent answers as it would without it);
- there the copy takes the answer being valued, and from then on its dice come from a generator
  of its own, seeded by the game's seed, the decision's number and the rollout (never the game's
  generator: the game's log records only the game's own dice), and its players answer with the
  agent's quick policies (the heuristic as shipped before the look-ahead, `policy`): they buy,
  move and attack, fight the battles, land their air units and place what they bought, so an
  answer whose worth shows only through what the units then do (where units stand, what they
  can reach) is valued by it; the copy plays to the end of the turn (the rest of the phase, then
  the turn's later phases) or for at most MAX_AFTER more decisions; with `horizon` (the heuristic
  agent's SPARE part "horizon"), a decision asked in a battle (the game's context fighting one:
  a rule's question before or within a battle, a retreat's destination) has its copies play the
  rest of the phase only (the turn's remaining battles), not the turn's later phases: these fight
  no battle in the rulesets measured, and added the same to every answer's rollout there
  (aar/house-rules@1 seeds 1-40: all 366 rounds of rollouts of decisions in the battle phase; the
  aa50 and g40 house rules, a few seeds: all 9),
  so the answers compare as they would (a win the later phases declare, or air units lost for
  want of a landing that one answer would leave, are not seen); with `fought` too (the part
  "fought"), those copies end with the battle the decision was asked in (`_Fought`): the phase's
  other battles, fought by the rollout's own dice that the answers shift, add noise rather than
  a difference the answer makes (a later battle the decision's battle changes, such as a landing
  waiting for a sea battle, and the battle procedure's `after` hooks, are not seen). Bounds on the cost: the
  quick policies share their battle estimates (`sims`: every rollout asks about the same
  battles, and so do the next decisions' rollouts), and their non-combat moves are only the
  landings of air units (the valuation does not see where the other units stand).
  `moves=False` keeps the copy's units still (every move answered "done"), as the look-ahead
  did before (benchmarks/play.py measures what moving costs);
- the state it ends in is valued for the deciding player's side (`valuation`): the cost of the
  units of each side (what is left of their hit points), treasuries, units bought and not yet
  placed, INCOME_TURNS turns of the composition's `income(p)`, the composition's `score(side)`
  (SCORE_WEIGHT an IPC) and a won game (WIN_VALUE), the enemies' counted against it.

Each answer is valued over ROLLOUTS rollouts, the same seeds for every answer (so answers are
compared on the same dice; an answer whose first rollout threw no die after it has its other
rollouts taken to come to the same value, which they would: `_Rollout.drew_no_die`), at most
MAX_CANDIDATES answers (the agent's own answer first, then
options spread over the rest); the best is taken when it beats the agent's own answer by more
than MARGIN, else the agent's own answer stands. With `settle` (the heuristic agent's SPARE
part "rollouts"), the rollouts are played a round at a time (each answer's first, then each
one's second, ...) and stop where the rounds so far settle the choice: after the first round,
when every answer came to exactly the own answer's value (the valuation saw no difference the
answers made: a retreat's destination, say), and after each round but the last, an answer more
than SETTLED (that round's) below the own answer's mean so far is dropped (the rest of the
rounds would have to make up more than it can be expected to) and valued -inf (it lost: never
taken); another answer's value is the mean of the rollouts played for it (all of them unless
every answer left was dropped, or the first round valued them alike). With `settle` too, the
first round of a decision outside a battle plays each answer's copy to the end of the decision's
phase and holds it there (`_phase`); when they are all the same game, the rest of the turn
would play alike in each, and the answers are valued alike there (`_same_game`: the own answer
stands, as the turn played on would choose); else the held copies play on (an answer written to
a counter that its hook sets back before it ends: its copies meet as the phase ends, where the
answers' effects came out alike). With `muster` (the part "muster"), a decision asked in a battle
before its first round is not looked ahead: the own answer stands (`choose`); with `whither` (the
part "whither", with `horizon` and `fought`), neither is a decision asked in a battle whose options
are all spaces (a retreat's destination). Everything is deterministic: the same game,
seed and decision give the same answer whatever the machine or PYTHONHASHSEED.
"""

from __future__ import annotations

import gc
import math
import random
import time
from typing import Any, Callable

from ruleslang.base.errors import EvalError
from ruleslang.lang.eval.statements import run_procedure
from ruleslang.lang.types import SPACE
from ruleslang.runtime.agents import phase_starts
from ruleslang.runtime.agents.phase_starts import Diverged, PhaseStart, PhaseStarts, Replay, keep_configs, resume
from ruleslang.runtime.decisions import DONE, Agent, Decision

ROLLOUTS = 3          # rollouts per answer valued
MAX_CANDIDATES = 6    # answers valued per decision
MAX_AFTER = 200       # decisions a rollout answers after the one valued before it stops
INCOME_TURNS = 2      # turns of income a state's income counts for
SCORE_WEIGHT = 10     # IPCs a point of the composition's score(side) is worth
WIN_VALUE = 1000      # what a won game is worth
MARGIN = 0.5          # what another answer must beat the agent's own answer by (IPCs)
SIMS_KEPT = 4096      # battle estimates a look-ahead keeps for its next decisions (`Lookahead.sims`)
# with `settle`: how far (IPCs) below the own answer's mean an answer is dropped after each
# round of rollouts but the last (seeds 1-60 of aar/house-rules@1: with these, 2 of 245 choices
# differ from those of every rollout played, and a third of the rollouts are not played)
SETTLED = (30.0, 10.0)

# why a decision was not looked ahead (counted in `Lookahead.counts`)
LOOKED, CHANGED, NO_START, ONE_ANSWER, DIVERGED, FAILED = (
    "looked ahead", "answer changed", "no phase start", "one answer", "diverged", "rules stopped")
# with `muster`: a decision asked in a battle before its first round, answered without a look-ahead
MUSTERED = "before the battle's first round"
# with `whither` (and `horizon` and `fought`): a battle's question of where its units go, answered
# without a look-ahead
WHITHER = "a battle's destination"
# an answer whose first rollout threw no die after it: its other rollouts not played (`Lookahead.values`)
DICELESS = "rollouts alike"
# with `settle`: rounds of rollouts not played since the answers' values settled the choice
SETTLED_ALIKE, SETTLED_BEHIND = "settled: valued alike", "settled: answer behind"
# ... and a decision outside a battle whose copies all come to the same game as its phase ends
SETTLED_SAME = "settled: same game"


class _Stop(Exception):
    """The rollout has answered MAX_AFTER decisions after the one valued: it is valued as it stands."""


class _Rollout(Replay):
    """Every player of a look-ahead's copy: the game's answers up to the decision, the answer
    valued there (then the copy's own dice), the quick policies after."""

    def __init__(self, replay: list, asked: list[tuple], target: Decision, answer, stream: str,
                 policy: Callable[[str, dict], Agent], sims: dict, moves: bool = True):
        super().__init__(replay, asked)
        self.target, self.answer = target, answer
        self.stream = stream
        self.policy, self.sims = policy, sims
        self.moves = moves
        self.policies: dict[str, Agent] = {}
        self.dice: random.Random | None = None  # the copy's own generator, from the answer valued on
        # whether the quick policies have kept nothing of what they answered so far (`_quiet`)
        self.untouched = True
        # (`Lookahead.values`, a decision outside a battle) the copy, played to its phase's end and
        # held there; whether its rollout stopped in the phase (`_Stop`)
        self.held, self.stopped = None, False

    def drew_no_die(self, game) -> bool:
        """Whether the copy `game` (played) threw no die after the answer valued: its generator
        is still the one given there, in the state its seed gave it. Then nothing after the
        answer read the rollout's own dice (its stream): the copy played from the same state,
        answer and quick policies whatever the stream (the battle estimates `sims` are the same
        whichever rollout asks them first), so every rollout of that answer comes to the same
        value (`Lookahead.values`)."""
        dice = self.dice
        return dice is not None and game.host.rng is dice and dice.getstate() == random.Random(self.stream).getstate()

    def past(self, d: Decision, game, after: int):
        """The answer valued at the decision (`after` 0), then the quick policies' answers."""
        if self.target is None:
            raise Diverged()  # (no answer to value: as a replay of the phases before a look-ahead's)
        if after == 0:
            t = self.target
            if (d.kind, d.player, d.id, d.mode, d.count) != (t.kind, t.player, t.id, t.mode, t.count) \
                    or d.options != t.options:
                raise Diverged()
            game.host.rng = self.dice = random.Random(self.stream)  # from here the copy's own dice
            return self.answer
        if after > MAX_AFTER:
            raise _Stop()
        if d.kind == "move" and not self.moves:
            return DONE
        if self.untouched and not _quiet(d, game):
            self.untouched = False
        agent = self.policies.get(d.player)
        if agent is None:
            agent = self.policies[d.player] = self.policy(d.player, self.sims)
        return agent.decide(d, game)


def _quiet(d: Decision, game) -> bool:
    """Whether a quick policy keeps nothing of its answer to `d`: a rule question the ruleset gives
    no advice on, which the heuristic agent without a look-ahead answers by its options alone
    (heuristic.py `_choose`, `_neutral`), its per-decision caches started anew as any decision
    starts them (`HeuristicAgent.decide`). A policy that answered only such questions is as one
    made anew (tests/runtime/test_lookahead_same.py)."""
    return d.kind == "choose" and (not d.id or game.compiled.advice(d.id) is None)


class _Fought:
    """`Game.on_resume_point` of a copy whose rollout ends with the battle its decision was asked
    in (`Lookahead.fought`): past the decision, the first point outside a battle (before the
    phase's next battle, or as its procedure ends) stops the rollout there."""

    def __init__(self, agent: _Rollout):
        self.agent = agent

    def __call__(self, game) -> None:
        if game.ctx.battle is None and self.agent.count > len(self.agent.replay):
            raise _Stop()


class Lookahead:
    """Values the answers of a heuristic agent's rule decisions (see the module docstring)."""

    def __init__(self, player: str, policy: Callable[[str, dict], Agent], rollouts: int = ROLLOUTS,
                 moves: bool = True, settle: bool = False, horizon: bool = False, fought: bool = False,
                 muster: bool = False, whither: bool = False):
        self.player = player
        self.settle = settle  # `choose` stops the rollouts where the rounds so far settle the choice
        # a decision asked in a battle: its rollouts end with the phase (the module docstring)
        self.horizon = horizon
        # ... and, with `horizon`, with the battle it was asked in (the module docstring)
        self.fought = fought
        # a decision asked in a battle before its first round: the own answer stands (`choose`)
        self.muster = muster
        # with `horizon` and `fought`, a decision in a battle whose options are all spaces: the own
        # answer stands (`choose`)
        self.whither = whither
        # (player, a memo of battle estimates) -> the quick policy playing it in rollouts
        self.policy = policy
        self.rollouts = rollouts
        self.moves = moves
        self.counts: dict[str, int] = {}
        self.seconds = 0.0  # CPU time spent looking ahead (benchmarks/play.py)
        # the quick policies' battle estimates, shared by the rollouts of all this agent's
        # decisions: an estimate is made with dice of its own, seeded by the game's seed and the
        # battle (heuristic.py `_wins`), so it is the same whichever rollout asks it first; emptied
        # at SIMS_KEPT estimates (emptying changes no answer, only what is simulated again)
        self.sims: dict = {}

    def _count(self, reason: str) -> None:
        self.counts[reason] = self.counts.get(reason, 0) + 1

    def values(self, game, d: Decision, answers: list, settle: bool = False) -> list[float] | None:
        """Each answer's value (the mean of the rollouts' valuations), or None when the game cannot
        be looked ahead here (counted by reason). `settle`: the rounds of rollouts stop where they
        settle the choice (the module docstring); the first answer is the own one."""
        hook = game.on_phase
        if not isinstance(hook, PhaseStarts) or hook.start is None or not hook.start.current(game):
            self._count(NO_START)
            return None
        began = time.process_time()
        # the cyclic collector is paused while looking ahead: a copy of the game is in reference
        # cycles (its context, kit and settings point back at it), and collected as the rollout
        # made it, the copy's objects were promoted while it played (it is alive till the rollout
        # ends) and, dead, left to the full collections their numbers then set off (a tenth of a
        # Global 1940 game). Each copy is closed once valued (`_rollout`, `Game.close`): freed by
        # reference counting as the rollout ends, it leaves the collector nothing (a collection of
        # the young objects after each rollout, which freed it before, found none left: session 18).
        collecting = gc.isenabled()
        gc.disable()
        try:
            start = hook.start_of(game)
            replay = game.answers[start.answered:]
            asked = [(e["kind"], e["player"]) for e in game.decisions[start.answered:]]
            number = len(game.answers)
            sims = self.sims
            if len(sims) > SIMS_KEPT:
                sims.clear()
            # played a round at a time (each answer's rollout r, then r + 1): a rollout's value does
            # not depend on the rollouts played before it (its seed is its own, the battle estimates
            # `sims` and the settings kept are the same whichever copy makes them first), and each
            # answer's values are summed in the order of its rollouts, as one answer at a time did
            # with `horizon`, a decision asked in a battle: its rollouts end with the phase
            within = self.horizon and game.ctx.battle is not None
            # with `settle`, a decision outside a battle whose turn has phases after its own: the
            # first round's copies are played to the phase's end and held there (`_same_game`)
            hold = settle and not within and bool(self._later(game, start, within))
            n = len(answers)
            totals, played = [0.0] * n, [0] * n
            same: list = [None] * n  # an answer's value in every rollout, when its first threw no die after it
            live = list(range(n))
            for r in range(self.rollouts):
                firsts = []
                # (the rollouts' agents are not kept past the round: their players hold the copies)
                agents = {i: _Rollout(replay, asked, d, answers[i], f"look-ahead:{game.seed}:{number}:{r}", self.policy,
                                      sims, self.moves) for i in live if same[i] is None}
                if hold and r == 0:
                    for agent in agents.values():
                        self._phase(game, start, agent, within)
                    alike = self._same_game(list(agents.values()))
                    if alike is not None:
                        self._count(SETTLED_SAME)
                        self._count(LOOKED)
                        return [alike] * n
                for i in live:
                    played[i] += 1
                    if same[i] is not None:
                        totals[i] += same[i]  # (the rollout would play as the first did: added as it would be)
                        continue
                    value, diceless = self._rollout(game, start, agents[i], note_dice=r == 0 and r + 1 < self.rollouts,
                                                    within=within)
                    totals[i] += value
                    firsts.append(value)
                    if diceless:
                        same[i] = value
                        self._count(DICELESS)
                if not settle or r + 1 >= self.rollouts:
                    continue
                if r == 0 and all(v == firsts[0] for v in firsts):
                    self._count(SETTLED_ALIKE)
                    break
                behind = totals[0] / played[0] - SETTLED[min(r, len(SETTLED) - 1)]
                live = [i for i in live if i == 0 or totals[i] / played[i] >= behind]
                if len(live) == 1:
                    self._count(SETTLED_BEHIND)
                    break
            self._count(LOOKED)
            if not settle:
                return [total / self.rollouts for total in totals]
            kept = set(live)
            return [total / k if i in kept else -math.inf for i, (total, k) in enumerate(zip(totals, played))]
        except Diverged:
            self._count(DIVERGED)
            return None
        except EvalError:
            self._count(FAILED)
            return None
        finally:
            if collecting:
                gc.enable()
            self.seconds += time.process_time() - began

    def _rollout(self, game, start: PhaseStart, agent: _Rollout, note_dice: bool = False,
                 within: bool = False) -> tuple[float, bool]:
        """The value of the state a copy of `game` from `start`, played by `agent`, comes to, and
        (`note_dice`) whether the copy threw no die after the answer valued (`_Rollout.drew_no_die`).
        `within`: the copy plays the rest of the phase only, not the turn's later phases. The
        copy is the one `agent` holds at its phase's end (`_phase`), if it holds one."""
        if agent.held is None:
            self._phase(game, start, agent, within)
        copy_, agent.held = agent.held, None
        kept = game.on_phase.configs
        try:
            if not agent.stopped:
                for phase in self._later(game, start, within):
                    if copy_.ctx.winner is not None:
                        break
                    copy_.state.set_phase(phase)
                    copy_.host.reset_budget()
                    copy_.ctx.running = []
                    run_procedure(copy_.ctx, phase)
        except _Stop:
            pass
        finally:
            keep_configs(game, copy_, kept)
        if agent.count <= len(agent.replay):
            raise Diverged()  # the phase ended before the decision came
        found = valuation(copy_, self.player), note_dice and agent.drew_no_die(copy_)
        # freed now, not by a collection (`values`); the settings it built and the game keeps
        # (`keep_configs`) are templates that later copies copy for their own context
        copy_.close()
        return found

    @staticmethod
    def _later(game, start: PhaseStart, within: bool) -> list[str]:
        """The turn's phases a rollout plays after the decision's (none after the bid phase, which
        is outside turns, nor for a decision `within` a battle)."""
        sequence = game.turn_sequence
        return sequence[sequence.index(start.phase) + 1:] if start.phase in sequence and not within else []

    def _phase(self, game, start: PhaseStart, agent: _Rollout, within: bool) -> None:
        """A copy of `game` from `start`, played by `agent` to the end of the decision's phase (or
        of its battle: `fought`), held by `agent` (`_Rollout.held`, `stopped`)."""
        kept = game.on_phase.configs
        copy_ = agent.held = phase_starts.fork(game, start, {p: agent for p in game.agents}, kept)
        if within and self.fought:
            copy_.on_resume_point = _Fought(agent)
        try:
            copy_.host.reset_budget()
            if start.point is None:
                run_procedure(copy_.ctx, start.phase)
            else:
                resume(copy_.ctx, start.phase)
        except _Stop:
            agent.stopped = True
        finally:
            keep_configs(game, copy_, kept)

    def _same_game(self, agents: list[_Rollout]) -> float | None:
        """The value every answer comes to when the copies `agents` hold at the decision's phase's
        end are the same game (`phase_starts.likeness`), each having answered as many decisions
        since its answer, and the quick policies kept nothing of their answers (`_quiet`): from
        there the rest of the turn plays alike in each (the same game, dice and policies), and the
        answers' rollouts come to one value. It is the value there, which ranks the answers as
        the turn's end would (all alike: the own answer stands), and the copies are closed; else
        None, the copies still held."""
        seen = None
        for agent in agents:
            if agent.stopped or agent.count <= len(agent.replay) or not agent.untouched:
                return None
            found = (agent.count, phase_starts.likeness(agent.held))
            if seen is None:
                seen = found
            elif found != seen:
                return None
        value = valuation(agents[0].held, self.player)
        for agent in agents:
            agent.held.close()
            agent.held = None
        return value

    def choose(self, game, d: Decision, own) -> Any:
        """The best of the decision's answers by look-ahead; `own` (the agent's answer without
        it) unless another beats it by more than MARGIN. With `muster` (the heuristic agent's SPARE
        part "muster"), a decision asked in a battle before its first round (a rule's question in
        a hook before or after the battle's start) is not looked ahead: its rollouts fight the
        battle with the rollouts' own dice, and their values for one answer spread by tens of IPCs
        while the answers' means part by a few (aar/house-rules@1 seeds 1-80: 26 of 160 such
        decisions taken from the own answer, by 0.7-32 IPCs against a spread of 1-50 a rollout),
        so the own answer stands. With `whither` (the part "whither"; with `horizon` and
        `fought`), a decision asked in a battle whose options are all spaces (where units go: a
        retreat's destination) is not looked ahead: its rollouts end with the battle, which such
        an answer ends or leaves as it is, and the valuation does not see where units stand, so
        every answer came to the same value (aar seeds 1-10 of a compare: all 35 such decisions
        looked ahead) and the own answer stood."""
        battle = game.ctx.battle
        if self.muster and battle is not None and battle.round == 0:
            self._count(MUSTERED)
            return own
        answers = candidates(d, own)
        if len(answers) < 2:
            self._count(ONE_ANSWER)
            return own
        if self.whither and self.horizon and self.fought and battle is not None and _destinations(d):
            self._count(WHITHER)
            return own
        values = self.values(game, d, answers, settle=self.settle)
        if values is None:
            return own
        best = max(range(len(answers)), key=lambda i: (values[i], -i))
        if values[best] > values[0] + MARGIN:
            self._count(CHANGED)
            return answers[best]
        return own


def _destinations(d: Decision) -> bool:
    """Whether `d` asks for one of its options, each a space (where units go)."""
    return d.mode == "one" and all(getattr(o, "kind", None) == SPACE.name for o in d.options)


def candidates(d: Decision, own) -> list:
    """The answers a look-ahead values: `own` first, then for `choose one` options spread over
    the list (the first and last among them), for `choose N` the first N and the last N, for
    `choose up to N` none, each option alone and the first N; at most MAX_CANDIDATES."""
    options = list(d.options)
    if d.mode == "one":
        n = len(options)
        if n <= MAX_CANDIDATES:
            spread = options
        else:
            spread = [options[round(i * (n - 1) / (MAX_CANDIDATES - 2))] for i in range(MAX_CANDIDATES - 1)]
        found = [own]
    else:
        k = min(d.count, len(options))
        spread = [tuple(options[:k]), tuple(options[len(options) - k:])]
        if d.mode != "exactly":
            spread = [()] + [(o,) for o in options] + spread
        found = [tuple(own)]
    for answer in spread:
        if len(found) >= MAX_CANDIDATES:
            break
        if answer not in found:
            found.append(answer)
    return found


def valuation(game, player: str) -> float:
    """What the state of `game` is worth to `player`'s side, in IPCs: see the module docstring."""
    side_of = game.compiled.side_of_player
    mine = side_of.get(player)

    def sign(owner: str | None) -> int:
        side = side_of.get(owner) if owner is not None else None
        return 0 if side is None else (1 if side == mine else -1)
    total = units_worth(game, sign)
    for owner, economies in game.state.treasury.items():
        total += sign(owner) * sum(economies.values())
    for owner, bought in getattr(game.kit, "purchased", {}).items():
        s = sign(owner)
        if s:
            total += s * sum(game.unit_rules().cost(t) for t in bought)
    for owner in game.state.map.turn_order:
        s = sign(owner)
        income = game.income(owner) if s else None
        if income is not None:
            total += s * INCOME_TURNS * income
    scores = {side: value for side, value in game.scores().items() if isinstance(value, (int, float))}
    if mine in scores and len(scores) > 1:
        others = [v for side, v in scores.items() if side != mine]
        total += SCORE_WEIGHT * (scores[mine] - sum(others) / len(others))
    if game.ctx.winner is not None:
        total += WIN_VALUE if game.ctx.winner[0].name == mine else -WIN_VALUE
    return total


def units_worth(game, sign: Callable[[str | None], int]) -> float:
    """The board's units as `valuation` counts them: each unit's cost times the share of its hit
    points left, signed by `sign(owner)` (1, -1 or 0: not counted)."""
    total = 0.0
    # (type, owner) -> (sign, cost, hit points): the settings give a unit's hit points and cost by
    # its type and owner (cached so for the phase: `ProcedureConfig.unit_fn`), so they are asked
    # once per kind; the sum is still made unit by unit, in the board's order (the same float),
    # each unit adding the term worked out once for its kind and hits (`terms`: None, not counted)
    kinds: dict[tuple[str, str], tuple] = {}
    terms: dict[tuple, Any] = {}
    term_of = terms.get  # (bound once: a look-up per unit)
    facts = game.unit_rules()  # (what `game.unit_cost` and `game.hit_points` ask)
    for unit in game.state.units:
        key = (unit.type, unit.owner, unit.hits)
        term = term_of(key, kinds)
        if term is kinds:  # (the kinds' dict: a marker no term can be)
            kind = (unit.type, unit.owner)
            found = kinds.get(kind)
            if found is None:
                s = sign(unit.owner)
                found = kinds[kind] = (s, facts.cost(unit.type), max(1, facts.hit_points(unit))) if s else (0, 0, 1)
            s, cost, points = found
            term = terms[key] = s * cost * max(0, points - unit.hits) / points if s else None
        if term is not None:
            total += term
    return total
