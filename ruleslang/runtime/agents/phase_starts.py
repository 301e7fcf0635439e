"""Where a look-ahead's copies of the game start: the game's phase starts and resume points,
kept (`PhaseStarts`), and a copy of the game made from one (`fork`).

The game tells its `PhaseStarts` when each phase starts (`Game.on_phase`, hooked in by the
heuristic agent's `joined`: `follow`), and it keeps the game there (`PhaseStart`): the board
without its event log, the dice generator's state, the kit's state between phases, the option
values and how many answers the game had been given. The board is kept at the game's first phase
(and each bid turn's), and, once the game has made a start by replay, at each round's first phase
and after ANCHOR_EVENTS events; a later phase's start is made only when a look-ahead asks for
it, taken from the game as it stands when nothing changed since the phase started, else by
replaying the phases between with the game's answers and dice (a copy played by `Replay`).
Within a phase, the game also tells where its runtime procedure could go on from the game's
state alone (`Game.on_resume_point`: before each battle and each step of a battle, as a
procedure ends); a look-ahead after such a point has the game made there once and its rollouts
go on from it (`resume`), not from the phase's start: taken from the game as it stands when
nothing but rule code that changed nothing ran since the point (a decision asked at a battle's
start or in its retreat step, `PhaseStarts._untouched`), else made by replaying the phase up to
it.

A copy (`fork`) has its own board, host, context, kit and settings' caches, these starting with
the answers the game's settings have cached; the compiled rules, the map and the memo of sets of
spaces are shared, and so is the settings' compiled code: the game's, and those a copy built for
a phase the game has not reached (`PhaseStarts.configs`, kept by `keep_configs`). The
look-ahead (lookahead.py) values a decision's answers by playing such copies on.
"""

from __future__ import annotations

import collections
import copy
import dataclasses
import pickle
import time

from ruleslang.board.queries import BoardQueries
from ruleslang.board.state import CACHES
from ruleslang.lang.eval.context import EvalContext
from ruleslang.lang.eval.host import Host
from ruleslang.lang.eval.statements import run_procedure
from ruleslang.lang.syntax.declarations import RuntimeProcedure
from ruleslang.runtime.decisions import Agent, Decision

# events after which a phase start keeps the board again, in a game that has made a start by
# replay (`PhaseStarts.anchoring`)
ANCHOR_EVENTS = 400


class Diverged(Exception):
    """The copy did not reach the decision as the game did."""


class Replay(Agent):
    """Every player of a copy of the game replaying it: the game's answers (`replay`, each to a
    decision of the kind and player `asked` names), then `past`'s. A copy replaying the phases
    before a look-ahead's decision (`PhaseStarts._replayed`) has no answer past the game's:
    Diverged."""

    name = "look-ahead"

    def __init__(self, replay: list, asked: list[tuple]):
        self.replay, self.asked = replay, asked
        self.count = 0

    def decide(self, d: Decision, game):
        i = self.count
        self.count += 1
        if i < len(self.replay):
            if d.refusals or (d.kind, d.player) != self.asked[i]:
                raise Diverged()
            return self.replay[i]
        return self.past(d, game, i - len(self.replay))

    def past(self, d: Decision, game, after: int):
        """The answer to the decision `after` decisions past the game's answers."""
        raise Diverged()


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
        data = _board_data(state)
        data["version"], data["quiet_changes"] = self.version, self.quiet_changes
        self.board = pickle.dumps(data, protocol=pickle.HIGHEST_PROTOCOL)
        kit = _kit_data(game)
        if ended is not None:
            kit["ended"] = ended  # (a start at a point taken from the game later: `PhaseStarts._untouched`)
        self.kit = pickle.dumps(kit, protocol=pickle.HIGHEST_PROTOCOL)
        self.rng = game.host.rng.getstate()


def _board_data(state) -> dict:
    """The board's data, its units as tuples of their fields (several times faster to pickle than
    the unit objects), without the map (shared), the event log and the unit index (a cache)."""
    skip = ("map", "events", "units", *CACHES)
    # data only: a method put on the instance (a test's observer) stays with the game's board
    data = {k: v for k, v in vars(state).items() if k not in skip and not callable(v)}
    data["units"] = [tuple(vars(u).values()) for u in state.units]
    return data


def _kit_data(game) -> dict:
    """The kit's state between phases; its caches (private names) are made again by a copy."""
    return {k: v for k, v in vars(game.kit).items() if k != "game" and not k.startswith("_")}


# the board's counts of its changes: read only to tell whether a cache still holds (board/queries.py,
# the settings' lasting answers, the movement engine's and the battle's marks), never for an answer
BOOKKEEPING = ("version", "quiet_changes", "places_kept", "counter_writes")


def likeness(game) -> bytes:
    """A copy of the game between phases as bytes to compare with another copy's: equal bytes, the
    same game to play on (given the same players). What a `PhaseStart` keeps, which a copy made
    from it plays on from (the board, the kit's state, the dice generator's state, the options,
    contested spaces, winner and bid purse), and the battle results and the dice kept for
    `rolls()`, which a copy reads too; not the board's counts of its changes (BOOKKEEPING) nor a
    copy's caches (the kit's private names, the settings' cached answers), which tell or keep
    what the rules would answer again, nor its event log and answers, which nothing in a copy
    reads. Equal objects may pickle apart (a dict's order, shared objects): a copy then only
    seems unlike the other, never the reverse."""
    data = _board_data(game.state)
    for name in BOOKKEEPING:
        data.pop(name, None)
    rolls = [(roll.sides, roll.value, id(roll.span)) for roll in game.host.rolls]
    winner = game.ctx.winner  # (the side's enumeration value, by its name, and why)
    winner = None if winner is None else (winner[0].name, winner[1])
    return pickle.dumps((data, _kit_data(game), game.host.rng.getstate(), rolls, game.battle_results,
                         game.ctx.options, game.ctx.contested_spaces, winner, game.bid_purse),
                        protocol=pickle.HIGHEST_PROTOCOL)


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

    The board is kept (`PhaseStart`: pickled) at the game's first phase, at each bid turn's
    (round 0) and at the first phase after the bids, and, once the game has made a start by replay
    (`anchoring`), at the first phase of each round and again when ANCHOR_EVENTS events have
    passed since the last board kept; at the other phase starts only a `PhaseMark`. A look-ahead
    in such a phase has its start made then (`start_of`): taken from the game as it stands when
    nothing changed since the phase started (`_untouched`), else by a copy of the game from the
    last board kept that replays the phases between with the game's answers and dice (what a
    rollout does within the phase), beginning each player's turn, and each round, as the game did
    (`_turn_of`); the start is kept (a later replay begins from it). A game passes about 350
    phase starts and asks 3-5 look-aheads; since the starts are taken from the game, a
    house-rules game replays none (seeds 1-20: 86 starts, all taken), and the boards kept once a
    turn (44 a game, 0.011 s) were kept for nothing, and so were those kept once a round and every
    ANCHOR_EVENTS events after (26 a game, seeds 1-5, 0.010 s). Past the bids, a board kept only
    shortens the replays (a replay from an earlier start comes to the same one: the phases, turns
    and rounds between played again with the game's answers and dice), so a game keeps them once
    it has made a start by replay (a Global 1940 game: some of its custom phases leave a start
    that cannot be taken, first in round 1 in the games measured), not before: a house-rules
    game keeps one.

    The resume points of a phase (`Game.on_resume_point`: where a runtime procedure could go on
    from the game's state alone: kit/battle.py's before each battle and before each step of a
    battle, kit/table.py's as each runtime procedure ends) are counted, and the last one noted
    when the phase's own body runs the procedure (no step or hook between): a look-ahead in a
    battle, or in a hook after a runtime phase (a move's `after` hooks), then replays the phase
    up to that point once, keeps the copy there, and each rollout goes on from it (`resume`)
    rather than playing the phase's earlier battles, steps or moves again."""

    # whether a board is kept at each round's first phase and once ANCHOR_EVENTS events have passed
    # since the last (not only at the game's first phase and in the bids): set once the game has
    # asked for a start by replay (`start_of`)
    anchoring = False

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
        # (a replay crosses no bid turn nor the bids' end: `_turn_of`)
        if anchor is None or (not anchor.round and (mark.round or anchor.player != mark.player)) \
                or (self.anchoring and (anchor.round != mark.round or mark.events - anchor.events > ANCHOR_EVENTS)):
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
        when it was not kept. Raises Diverged (or the rules' EvalError) when the phases before
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
                self.anchoring = True
                start = self._replayed(game, mark)
                self.replayed += 1
            self.start = self.anchor = start
            self.marks, self.at = [], None
        elif not isinstance(start, PhaseStart):
            if self._untouched(game, start.events, start.version, start.quiet_changes):
                start = PhaseStart(game, start.phase, start)  # (as the phase started: a hook before its body)
                self.taken += 1
            else:
                self.anchoring = True
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
        agent = Replay(replay, asked)
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
                    raise Diverged()
            if mark.point is not None:
                raise Diverged()  # the phase ended before the point came
            _turn_of(copy_, mark)
            copy_.state.set_phase(mark.phase)
            made = PhaseStart(copy_, mark.phase, mark)
        except _Reached as reached:
            made = reached.start
        finally:
            keep_configs(game, copy_, self.configs)
        if agent.count != len(replay):
            raise Diverged()
        return made


def _turn_of(copy_, start: PhaseMark) -> None:
    """Begin `start`'s player's turn in a copy replaying the phases when the copy is in another
    player's, as `Game.run` begins a turn (its battle results emptied, the income it notes asked),
    and, in another round, `start`'s round first, as `Game.run` ends a round and begins the next
    (the scores it notes asked; the bids, round 0, end otherwise: a board is kept at the first
    phase after them, so no replay crosses their end)."""
    state = copy_.state
    new_round = state.round != start.round
    if new_round:
        copy_.scores()
        state.start_round(start.round)
    if new_round or state.current_player != start.player:
        state.start_turn(start.player)
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
                raise Diverged()
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


def keep_configs(game, copy_, kept: dict) -> None:
    """Keep the settings `copy_` built for procedures the game has not run (`PhaseStarts.configs`)."""
    for key, config in copy_.configs.items():
        if key not in game.configs and key not in kept:
            kept[key] = config
