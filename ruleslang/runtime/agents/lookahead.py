"""The heuristic agent's look-ahead: a rule decision (`choose`) valued by what each answer does.

The game tells the look-ahead when each phase starts (`Game.on_phase`, hooked in by the agent's
`joined`), and it keeps the game there (`PhaseStart`): the board without its event log, the dice
generator's state, the kit's state between phases, the option values and how many answers the
game had been given. The board is kept at a round's first phase (and after many events); a later
phase's start is made only when a look-ahead asks for it, taken from the game as it stands when
nothing changed since the phase started, else by replaying the phases between with the game's
answers and dice (`PhaseStarts`). Within a phase, the game also tells where its runtime
procedure could go on from the game's state alone (`Game.on_resume_point`: before each battle and
each step of a battle, as a procedure ends); a look-ahead after such a point has the game made
there once and its rollouts go on from it (`resume`), not from the phase's start: taken from the
game as it stands when nothing but rule code that changed nothing ran since the point (a decision
asked at a battle's start or in its retreat step, `PhaseStarts._untouched`), else made by
replaying the phase up to it. To value the answers of a decision asked in that phase:

- a copy of the game is made from what was kept (`fork`: its own board, host, context, kit and
  settings' caches, these starting with the answers the game's settings have cached; the
  compiled rules, the map and the memo of sets of spaces shared, and the settings' compiled
  code: the game's, and those a copy built for a phase the game has not reached,
  `PhaseStarts.configs`), and the phase is run again in it with
  the answers the game was given since the phase started: the same generator state and the same
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
  want of a landing that one answer would leave, are not seen). Bounds on the cost: the
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
every answer left was dropped, or the first round valued them alike). Everything is deterministic: the same game,
seed and decision give the same answer whatever the machine or PYTHONHASHSEED.
"""

from __future__ import annotations

import collections
import copy
import dataclasses
import gc
import math
import pickle
import random
import time
from typing import Any, Callable

from ruleslang.base.errors import EvalError
from ruleslang.board.queries import BoardQueries
from ruleslang.lang.eval.context import EvalContext
from ruleslang.lang.eval.host import Host
from ruleslang.lang.eval.statements import run_procedure
from ruleslang.lang.syntax.declarations import RuntimeProcedure
from ruleslang.runtime.decisions import DONE, Agent, Decision

ROLLOUTS = 3          # rollouts per answer valued
MAX_CANDIDATES = 6    # answers valued per decision
MAX_AFTER = 200       # decisions a rollout answers after the one valued before it stops
INCOME_TURNS = 2      # turns of income a state's income counts for
SCORE_WEIGHT = 10     # IPCs a point of the composition's score(side) is worth
WIN_VALUE = 1000      # what a won game is worth
MARGIN = 0.5          # what another answer must beat the agent's own answer by (IPCs)
ANCHOR_EVENTS = 400   # events after which a phase start keeps the board again (`PhaseStarts`)
SIMS_KEPT = 4096      # battle estimates a look-ahead keeps for its next decisions (`Lookahead.sims`)
# with `settle`: how far (IPCs) below the own answer's mean an answer is dropped after each
# round of rollouts but the last (seeds 1-60 of aar/house-rules@1: with these, 2 of 245 choices
# differ from those of every rollout played, and a third of the rollouts are not played)
SETTLED = (30.0, 10.0)

# why a decision was not looked ahead (counted in `Lookahead.counts`)
LOOKED, CHANGED, NO_START, ONE_ANSWER, DIVERGED, FAILED = (
    "looked ahead", "answer changed", "no phase start", "one answer", "diverged", "rules stopped")
# an answer whose first rollout threw no die after it: its other rollouts not played (`Lookahead.values`)
DICELESS = "rollouts alike"
# with `settle`: rounds of rollouts not played since the answers' values settled the choice
SETTLED_ALIKE, SETTLED_BEHIND = "settled: valued alike", "settled: answer behind"


class PhaseMark:
    """The game as a phase starts, without its board: where the phase is, how many answers the
    game had been given, the board's version and the option values. Cheap: it is taken at most
    phase starts (`PhaseStarts`), and a `PhaseStart` is made from it only when a look-ahead asks.
    `point`: None at the phase's start; at the phase's resume point number `point` (counted from
    0 in each phase: `Game.on_resume_point`), the game there."""

    def __init__(self, game, phase: str, point: int | None = None):
        state = game.state
        self.phase, self.point = phase, point
        self.round, self.player = state.round, state.current_player
        # the board's version as the game had it (what-ifs step it too): a board made again by
        # replaying the phases is given the game's (caches compare versions)
        self.version, self.quiet_changes = state.version, state.quiet_changes
        self.events = len(state.events)
        self.options = dict(game.ctx.options)
        self.contested = list(game.ctx.contested_spaces)
        self.bid_purse = game.bid_purse
        self.answered = len(game.answers)

    def current(self, game) -> bool:
        """Whether the game is still in the phase this was kept at."""
        state = game.state
        return (state.phase, state.round, state.current_player) == (self.phase, self.round, self.player)


class PhaseStart(PhaseMark):
    """The game as a phase starts: what a look-ahead's copy of the game is made from. `mark`: the
    game's own mark of this phase start, when `game` is a copy brought there by replaying the
    phases before it (`PhaseStarts.start_of`): the copy's board and dice, the game's answers count,
    version and options; `version`: (version, quiet changes) to give its board instead of the
    mark's. At a resume point (`mark.point`) the battles' results so far are kept too (at a
    phase start a copy has none: those of the turn's earlier phases are not read), and the
    winner the rules declared so far."""

    def __init__(self, game, phase: str, mark: PhaseMark | None = None, version: tuple | None = None,
                 point: int | None = None, ended: bool | None = None):
        super().__init__(game, phase, point)
        if mark is not None:
            vars(self).update(vars(mark))
        if version is not None:
            self.version, self.quiet_changes = version
        self.results = pickle.dumps(game.battle_results) if self.point is not None else None
        # a side the rules declared the winner earlier in the phase (the phase goes on; none at
        # a phase start: the game stops after the phase); the compiled enumeration's own value
        self.winner = game.ctx.winner
        state = game.state
        # the units (most of the board) pickled as tuples of their fields: several times faster
        # than pickling the unit objects
        units = state.units
        self.unit_class = type(units[0]) if units else None
        self.unit_fields = tuple(vars(units[0])) if units else ()
        self.by_init = _init_takes(self.unit_class, self.unit_fields)
        skip = ("map", "events", "_unit_index", "_indexed", "units")
        # data only: a method put on the instance (a test's observer) stays with the game's board
        data = {k: v for k, v in vars(state).items() if k not in skip and not callable(v)}
        data["units"] = [tuple(vars(u).values()) for u in units]
        data["version"], data["quiet_changes"] = self.version, self.quiet_changes
        self.board = pickle.dumps(data, protocol=pickle.HIGHEST_PROTOCOL)
        # the kit's state between phases; its caches (private names) are made again by the copy
        kit = {k: v for k, v in vars(game.kit).items() if k != "game" and not k.startswith("_")}
        if ended is not None:
            kit["ended"] = ended  # (a start at a point taken from the game later: `PhaseStarts._untouched`)
        self.kit = pickle.dumps(kit, protocol=pickle.HIGHEST_PROTOCOL)
        self.rng = game.host.rng.getstate()


def _init_takes(cls, names: tuple) -> bool:
    """Whether `cls(*values)` makes an object whose attributes are `names` (in that order) set to
    `values` and nothing else: a dataclass whose fields are just these, each set by __init__,
    with nothing done after."""
    if cls is None or not dataclasses.is_dataclass(cls) or hasattr(cls, "__post_init__"):
        return False
    fields = dataclasses.fields(cls)
    return all(f.init for f in fields) and tuple(f.name for f in fields) == names


class PhaseStarts:
    """`Game.on_phase` for the look-ahead: keeps the latest phase start (one for all the agents
    of a game).

    The board is kept (`PhaseStart`: pickled) at the first phase of each round (of each turn in
    the bids, round 0), and again once ANCHOR_EVENTS events have passed since the last board
    kept; at the other phase starts only a `PhaseMark`. A look-ahead in such a phase has its
    start made then (`start_of`): taken from the game as it stands when nothing changed since the
    phase started (`_untouched`), else by a copy of the game from the last board kept that replays
    the phases between with the game's answers and dice (what a rollout does within the phase),
    beginning each player's turn as the game did (`_turn_of`); the start is kept. A game passes
    about 350 phase starts and asks 3-5 look-aheads; since the starts are taken from the game, a
    house-rules game replays none (seeds 1-20: 86 starts, all taken), and the boards kept once a
    turn (44 a game, 0.011 s) were kept for nothing: now once a round and every ANCHOR_EVENTS
    events (20 a game).

    The resume points of a phase (`Game.on_resume_point`: where a runtime procedure could go on
    from the game's state alone: kit/battle.py's before each battle and before each step of a
    battle, kit/table.py's as each runtime procedure ends) are counted, and the last one noted
    when the phase's own body runs the procedure (no step or hook between): a look-ahead in a
    battle, or in a hook after a runtime phase (a move's `after` hooks), then replays the phase
    up to that point once, keeps the copy there, and each rollout goes on from it (`resume`)
    rather than playing the phase's earlier battles, steps or moves again."""

    def __init__(self):
        self.start: PhaseMark | None = None
        self.anchor: PhaseStart | None = None  # the last phase start whose board was kept
        self.marks: list[PhaseMark] = []       # the phase starts since it, in order
        self.point = 0                         # the resume points the game's phase has passed
        # the last of them a copy can resume at: (its number, the game's answers, events, board version
        # and quiet changes then, whether it is a runtime procedure's end: the kit's `ended`)
        self.at: tuple[int, int, int, int, int, bool] | None = None
        # procedure id -> the settings (runtime/config.py) a copy built for a runtime procedure the
        # game had not run yet (a look-ahead early in a turn plays phases the game has not reached):
        # given to the next copies as the game's own are (`fork`), so that each copy does not
        # compile the settings again and work out their lasting answers anew
        self.configs: dict = {}
        # what keeping them cost (benchmarks/play.py): CPU time at phase starts, boards kept there,
        # starts only marked, starts made by replay (their time is the look-ahead's, `Lookahead.seconds`)
        self.seconds, self.boards, self.marked, self.replayed = 0.0, 0, 0, 0
        # starts (at a phase start or a resume point) taken from the game as it stands (`_untouched`),
        # not made by replay
        self.taken = 0

    def __call__(self, game, phase: str) -> None:
        began = time.process_time()
        self.point, self.at = 0, None
        mark = PhaseMark(game, phase)
        anchor = self.anchor
        if anchor is None or anchor.round != mark.round or (not mark.round and anchor.player != mark.player) \
                or mark.events - anchor.events > ANCHOR_EVENTS:
            self.start = self.anchor = PhaseStart(game, phase)
            self.marks = []
            self.boards += 1
        else:
            self.start = mark
            self.marks.append(mark)
            self.marked += 1
        self.seconds += time.process_time() - began

    def resume_point(self, game) -> None:
        """`Game.on_resume_point`: counts the point (as a copy does) and notes it when the phase's
        body runs the procedure itself (a copy resumes the phase's body, `resume`), with what
        tells whether the game is still as it was there (`_untouched`). Called before every step
        of every battle: kept to a few operations (its time is the game's)."""
        point = self.point
        self.point = point + 1
        if game.ctx.running == [game.state.phase]:
            state = game.state
            self.at = (point, len(game.answers), len(state.events), state.version, state.quiet_changes, game.kit.ended)
        else:
            self.at = None

    def start_of(self, game) -> PhaseStart | None:
        """The start of the phase `game` is in, with its board (made now if only marked), or None
        when it was not kept. Raises _Diverged (or the rules' EvalError) when the phases before
        it, replayed, do not come to it as the game did."""
        start = self.start
        if start is None or not start.current(game):
            return None
        if self.at is not None:
            point, answered, events, version, quiet, ended = self.at
            if self._untouched(game, events, version, quiet):
                # the game is as it was at the point: the start there is the game as it stands (the
                # kit's `ended` as it was there: set only while the game was told)
                start = PhaseStart(game, game.state.phase, point=point, ended=ended)
                start.answered, start.events = answered, events
                self.taken += 1
            else:
                mark = PhaseMark(game, game.state.phase, point)
                mark.answered, mark.events = answered, events
                start = self._replayed(game, mark)
                self.replayed += 1
            self.start = self.anchor = start
            self.marks, self.at = [], None
        elif not isinstance(start, PhaseStart):
            if self._untouched(game, start.events, start.version, start.quiet_changes):
                start = PhaseStart(game, start.phase, start)  # (as the phase started: a hook before its body)
                self.taken += 1
            else:
                start = self._replayed(game, start)
                self.replayed += 1
            self.start = self.anchor = start
            self.marks = []
        return start

    @staticmethod
    def _untouched(game, events: int, version: int, quiet: int) -> bool:
        """Whether the game as it stands is the game at a resume point or phase start where it had
        logged `events` events and its board was at `version` and `quiet` changes, but for its
        Python stack (a decision asked in a step or hook begun since): nothing ran since but rule
        code that changed nothing. The board's version and quiet changes are as they were (every
        change of the board steps them, and so does a what-if of an agent), and every event logged
        since is a decision, a hook fired or the start of a phase or step that is not a runtime
        procedure: every effect of the rules logs an event (the board's, a battle's hits, submerges
        and retreats, a win) and so does every die the game throws (`Game.__init__` has the host
        log each), while the kit's own code (a runtime procedure) may change its state without
        one, and a procedure that ended since did more than start. Then the start at the point
        is taken from the game (`start_of`): the same board, kit state, dice, results and options
        as a copy replaying the phases up to the point has (tests/runtime/test_lookahead.py), and
        the game's own board version, which the copies read only through their own changes. (At
        a phase start, the phase's own start is among the events: a decision in a hook before a
        rule phase's body; a runtime phase's body may have begun.)"""
        state = game.state
        if state.version != version or state.quiet_changes != quiet:
            return False
        symbols = game.compiled.symbols
        for event in state.events[events:]:
            kind = event["kind"]
            if kind == "phase":
                sym = symbols.get(event["name"])
                if event.get("stage") != "start" or sym is None \
                        or isinstance(getattr(sym.decl, "procedure", None), RuntimeProcedure):
                    return False
            elif kind not in ("decision", "hook"):
                return False
        return True

    def _replayed(self, game, mark: PhaseMark) -> PhaseStart:
        """`mark`'s start, made by a copy of the game from the last board kept, the phases since
        played again with the game's answers (its dice: the copy goes on from the generator's
        state kept there); at a resume point, the copy is kept as it comes to it (`_Points`)."""
        anchor = self.anchor
        replay = game.answers[anchor.answered:mark.answered]
        asked = [(e["kind"], e["player"]) for e in game.decisions[anchor.answered:mark.answered]]
        agent = _Rollout(replay, asked, None, None, "", None, {})
        copy_ = fork(game, anchor, {p: agent for p in game.agents}, self.configs)
        points = copy_.on_resume_point = _Points(anchor, mark)
        starts = [anchor] + (self.marks if mark.point is not None else self.marks[:self.marks.index(mark)])
        try:
            for i, start in enumerate(starts):
                if i:
                    _turn_of(copy_, start)
                    copy_.state.set_phase(start.phase)
                    points.phase_starts(copy_, start)
                if start is starts[-1] and mark.point is not None:
                    points.armed = True
                copy_.host.reset_budget()
                copy_.ctx.running = []
                if i or start.point is None:
                    run_procedure(copy_.ctx, start.phase)
                else:
                    resume(copy_.ctx, start.phase)
                if copy_.ctx.winner is not None:
                    raise _Diverged()
            if mark.point is not None:
                raise _Diverged()  # the phase ended before the point came
            _turn_of(copy_, mark)
            copy_.state.set_phase(mark.phase)
            made = PhaseStart(copy_, mark.phase, mark)
        except _Reached as reached:
            made = reached.start
        finally:
            _keep_configs(game, copy_, self.configs)
        if agent.count != len(replay):
            raise _Diverged()
        return made


def _turn_of(copy_, start: PhaseMark) -> None:
    """Begin `start`'s player's turn in a copy replaying the phases when the copy is in another
    player's, as `Game.run` begins a turn (its battle results emptied, the income it notes asked;
    a round begins with a board kept, so a replay never crosses one)."""
    if copy_.state.current_player != start.player:
        copy_.state.start_turn(start.player)
        copy_.battle_results = []
        copy_.income(start.player)


class _Reached(Exception):
    """A copy replaying the phases came to the resume point wanted: `start` is the game there."""

    def __init__(self, start: PhaseStart):
        super().__init__()
        self.start = start


class _Points:
    """`Game.on_resume_point` of a copy replaying the phases up to `mark` (`PhaseStarts._replayed`):
    counts the resume points of the phase it runs as the game did and, armed (in the mark's
    phase), raises `_Reached` at the mark's with the copy kept there. The board's version given
    is the one a copy made at the phase's start would have there: the game's at the phase's
    start (`PhaseStart`'s) plus the copy's changes since (so rollouts from the point see the
    board as rollouts from the phase's start did)."""

    def __init__(self, anchor: PhaseStart, mark: PhaseMark):
        self.mark, self.armed = mark, False
        self.answered = anchor.answered  # the copy's answers count from the anchor's
        self.count = anchor.point or 0  # a copy resumed at a point comes to it again first
        self.base = self.given = (anchor.version, anchor.quiet_changes)

    def phase_starts(self, copy_, start: PhaseMark) -> None:
        """A new phase in the copy: its points counted from 0, its version as the game's there."""
        self.count = 0
        self.base = (copy_.state.version, copy_.state.quiet_changes)
        self.given = (start.version, start.quiet_changes)

    def __call__(self, game) -> None:
        point = self.count
        self.count += 1
        if self.armed and point == self.mark.point:
            state = game.state
            version = tuple(g + now - b for g, now, b in zip(self.given, (state.version, state.quiet_changes),
                                                              self.base))
            if self.answered + len(game.answers) != self.mark.answered:
                raise _Diverged()
            # the copy's options and contested spaces (the game's, replayed), the game's answers count
            start = PhaseStart(game, self.mark.phase, version=version, point=self.mark.point)
            start.answered, start.events = self.mark.answered, self.mark.events
            raise _Reached(start)


def resume(ctx, phase: str) -> None:
    """Go on with `phase` in a copy of the game made at one of its resume points: the phase's body
    (the runtime procedure, which goes on from what the kit's state kept), then its `after` hooks;
    its `before` hooks ran before the point."""
    run_procedure(ctx, phase, resumed=True)


def follow(game) -> bool:
    """Have `game` keep its phase starts for look-aheads; False when its phase hook is another's."""
    if game.on_phase is None:
        game.on_phase = PhaseStarts()
        if game.on_resume_point is None:
            game.on_resume_point = game.on_phase.resume_point
    return isinstance(game.on_phase, PhaseStarts)


def fork(game, start: PhaseStart, agents: dict, configs: dict | None = None):
    """A copy of `game` as it was at `start`, played by `agents`, logging into its own event list;
    `configs`: settings of procedures the game has not built (`PhaseStarts.configs`), given to the
    copy as the game's are."""
    clone = copy.copy(game)
    cls = type(game.state)
    state = cls.__new__(cls)  # the board's data only (see PhaseStart), the map shared
    state.map = game.state.map
    vars(state).update(pickle.loads(start.board))
    names, cls = start.unit_fields, start.unit_class
    units = state.units
    if start.by_init:  # the class's own __init__ sets just these fields, in this order: about twice as fast
        units[:] = [cls(*values) for values in units]
    else:
        for i, values in enumerate(units):
            unit = units[i] = cls.__new__(cls)
            vars(unit).update(zip(names, values))
    # the copy's events go nowhere (a log that keeps none): no one reads them (the game's own
    # summaries, saves and reports read the game's), and kept they were a tenth of the objects
    # a dead copy left to the collector (`Lookahead.values`)
    state.events, state._unit_index, state._indexed = collections.deque(maxlen=0), None, None
    clone.state, clone.board = state, BoardQueries(state)
    clone.host = Host(game.seed, budget=game.host.budget)
    clone.host.rng.setstate(start.rng)
    # the options as the phase started (given: the options' defaults are not worked out again)
    ctx = clone.ctx = EvalContext(game.compiled, clone.host, state=state, board=clone.board,
                                  options=start.options, decide=clone._decide_choose)
    ctx.game = clone
    ctx.runtime_procedures = game.ctx.runtime_procedures
    ctx.share_space_sets(game.ctx)  # (the same names, the same set: not made again in every copy)
    ctx.contested_spaces = list(start.contested)
    ctx.winner = start.winner
    clone.agents = agents
    clone.decisions, clone.answers, clone.summaries = [], [], []
    clone.battle_results = pickle.loads(start.results) if start.results is not None else []
    clone.recorder = clone.on_turn = clone.on_phase = clone.on_resume_point = None
    clone.records_decisions = False  # the copy's answers are kept, not their log entries (nothing reads them)
    # every copy made from `start` holds the same counters: the settings' lasting answers are
    # checked against the first copy's (`ProcedureConfig.for_context`'s `like`); the game's
    # settings give the copy the answers they have cached (`cached`: a unit kind's setting is asked
    # once for a phase), so the copy asks the rules only what the game would (the settings a copy
    # built for a phase the game has not reached give none; the battle's are read again at the
    # copy's first ask, its kit not knowing which phase the game's answers were cached in:
    # `KitState.battle_config`)
    clone.configs = {key: config.for_context(ctx, start, cached=True) for key, config in game.configs.items()}
    for key, config in (configs or {}).items():
        if key not in clone.configs:
            clone.configs[key] = config.for_context(ctx, start)
    kit = clone.kit = copy.copy(game.kit)
    for name in vars(kit):
        if name.startswith("_"):
            setattr(kit, name, None)  # caches of the game's own (unit facts read through its context)
    vars(kit).update(pickle.loads(start.kit))
    kit.game = clone
    clone.bid_purse = start.bid_purse
    clone._init_services(like=game)  # the game's index of spaces and turn order, read only (not made again)
    return clone


class _Stop(Exception):
    """The rollout has answered MAX_AFTER decisions after the one valued: it is valued as it stands."""


class _Diverged(Exception):
    """The copy did not reach the decision as the game did."""


class _Rollout(Agent):
    """Every player of a look-ahead's copy: the game's answers up to the decision, the answer
    valued there (then the copy's own dice), the quick policies after."""

    name = "look-ahead"

    def __init__(self, replay: list, asked: list[tuple], target: Decision, answer, stream: str,
                 policy: Callable[[str, dict], Agent], sims: dict, moves: bool = True):
        self.replay, self.asked, self.target, self.answer = replay, asked, target, answer
        self.stream = stream
        self.policy, self.sims = policy, sims
        self.moves = moves
        self.policies: dict[str, Agent] = {}
        self.count = 0
        self.dice: random.Random | None = None  # the copy's own generator, from the answer valued on

    def drew_no_die(self, game) -> bool:
        """Whether the copy `game` (played) threw no die after the answer valued: its generator
        is still the one given there, in the state its seed gave it. Then nothing after the
        answer read the rollout's own dice (its stream): the copy played from the same state,
        answer and quick policies whatever the stream (the battle estimates `sims` are the same
        whichever rollout asks them first), so every rollout of that answer comes to the same
        value (`Lookahead.values`)."""
        dice = self.dice
        return dice is not None and game.host.rng is dice and dice.getstate() == random.Random(self.stream).getstate()

    def decide(self, d: Decision, game):
        i = self.count
        self.count += 1
        n = len(self.replay)
        if i < n:
            if d.refusals or (d.kind, d.player) != self.asked[i]:
                raise _Diverged()
            return self.replay[i]
        if self.target is None:
            raise _Diverged()  # a replay of the phases before a look-ahead's: no answer past the game's
        if i == n:
            t = self.target
            if (d.kind, d.player, d.id, d.mode, d.count) != (t.kind, t.player, t.id, t.mode, t.count) \
                    or d.options != t.options:
                raise _Diverged()
            game.host.rng = self.dice = random.Random(self.stream)  # from here the copy's own dice
            return self.answer
        if i - n > MAX_AFTER:
            raise _Stop()
        if d.kind == "move" and not self.moves:
            return DONE
        agent = self.policies.get(d.player)
        if agent is None:
            agent = self.policies[d.player] = self.policy(d.player, self.sims)
        return agent.decide(d, game)


class Lookahead:
    """Values the answers of a heuristic agent's rule decisions (see the module docstring)."""

    def __init__(self, player: str, policy: Callable[[str, dict], Agent], rollouts: int = ROLLOUTS,
                 moves: bool = True, settle: bool = False, horizon: bool = False):
        self.player = player
        self.settle = settle  # `choose` stops the rollouts where the rounds so far settle the choice
        # a decision asked in a battle: its rollouts end with the phase (the module docstring)
        self.horizon = horizon
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
            n = len(answers)
            totals, played = [0.0] * n, [0] * n
            same: list = [None] * n  # an answer's value in every rollout, when its first threw no die after it
            live = list(range(n))
            for r in range(self.rollouts):
                firsts = []
                for i in live:
                    played[i] += 1
                    if same[i] is not None:
                        totals[i] += same[i]  # (the rollout would play as the first did: added as it would be)
                        continue
                    # (the rollout's agent is not kept here: its players hold the copy)
                    value, diceless = self._rollout(game, start, _Rollout(
                        replay, asked, d, answers[i], f"look-ahead:{game.seed}:{number}:{r}", self.policy, sims,
                        self.moves), note_dice=r == 0 and r + 1 < self.rollouts, within=within)
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
        except _Diverged:
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
        `within`: the copy plays the rest of the phase only, not the turn's later phases."""
        kept = game.on_phase.configs
        copy_ = fork(game, start, {p: agent for p in game.agents}, kept)
        sequence = game.turn_sequence
        # the phase, then the turn's later phases (none after the bid phase, which is outside turns)
        later = sequence[sequence.index(start.phase) + 1:] if start.phase in sequence and not within else []
        try:
            copy_.host.reset_budget()
            if start.point is None:
                run_procedure(copy_.ctx, start.phase)
            else:
                resume(copy_.ctx, start.phase)
            for phase in later:
                if copy_.ctx.winner is not None:
                    break
                copy_.state.set_phase(phase)
                copy_.host.reset_budget()
                copy_.ctx.running = []
                run_procedure(copy_.ctx, phase)
        except _Stop:
            pass
        finally:
            _keep_configs(game, copy_, kept)
        if agent.count <= len(agent.replay):
            raise _Diverged()  # the phase ended before the decision came
        found = valuation(copy_, self.player), note_dice and agent.drew_no_die(copy_)
        # freed now, not by a collection (`values`); the settings it built and the game keeps
        # (`_keep_configs`) are templates that later copies copy for their own context
        copy_.close()
        return found

    def choose(self, game, d: Decision, own) -> Any:
        """The best of the decision's answers by look-ahead; `own` (the agent's answer without
        it) unless another beats it by more than MARGIN."""
        answers = candidates(d, own)
        if len(answers) < 2:
            self._count(ONE_ANSWER)
            return own
        values = self.values(game, d, answers, settle=self.settle)
        if values is None:
            return own
        best = max(range(len(answers)), key=lambda i: (values[i], -i))
        if values[best] > values[0] + MARGIN:
            self._count(CHANGED)
            return answers[best]
        return own


def _keep_configs(game, copy_, kept: dict) -> None:
    """Keep the settings `copy_` built for procedures the game has not run (`PhaseStarts.configs`)."""
    for key, config in copy_.configs.items():
        if key not in game.configs and key not in kept:
            kept[key] = config


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
