"""A game: a composition of rulesets played on a board by agents, from a seed.

The runtime is generic. Each round, each player in the map's turn order takes a turn; a turn runs
the phases of the ruleset's `sequence turn` (with their hooks). Phases written in the language run
as written; phases written `runtime NAME with {...}` run a generic procedure configured by the
ruleset, from the table of procedures the game is built with (the kit's: purchase, move, battle,
place; `ruleslang.runtime.kit.table`). Every change goes through the game state (logged),
every die through the host (recorded, and logged as a `roll` event where it falls among the
others), every decision through an agent (recorded, and logged with what it offered), so the same
rulesets, seed and agents give the same game byte for byte.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Callable, Protocol

from ruleslang.board.queries import BoardQueries
from ruleslang.board.state import GameState
from ruleslang.lang.compose.composition import composition_rulesets_of
from ruleslang.lang.eval.context import EvalContext
from ruleslang.base.diagnostics import DiagnosticError, error
from ruleslang.base.errors import EvalError
from ruleslang.base.source import Source, Span
from ruleslang.lang.eval.host import Host, Roll
from ruleslang.base.suggest import did_you_mean
from ruleslang.lang.eval.statements import run_procedure
from ruleslang.lang.values import to_json
from ruleslang.runtime.config import runtime_procedures
from ruleslang.runtime.decisions import Decision

FORMAT_VERSION = 2  # of saves and logs: 2 added the dice, what decisions offered and the start
MAX_ASKS = 3  # an agent gets this many tries at a decision before the runtime falls back
GAME_BUDGET = 50_000_000  # evaluation steps per phase


@dataclass
class RoundSummary:
    round: int
    income: dict[str, int] = field(default_factory=dict)
    collected: dict[str, int] = field(default_factory=dict)     # what the income collection gained
    gains: dict[str, dict[str, int]] = field(default_factory=dict)  # player -> cause -> other gains
    battles: list[dict] = field(default_factory=list)
    # space, controller before, after, whether it was taken on the move (not in a battle; None where
    # the game does not work it out: `Game.full_record`)
    control_changes: list[tuple[str, str | None, str | None, bool | None]] = field(default_factory=list)
    scores: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict:
        return {"round": self.round, "income": self.income, "collected": self.collected, "gains": self.gains,
                "battles": self.battles, "control_changes": [list(c) for c in self.control_changes],
                "scores": self.scores}


class KitOfGame(Protocol):
    """What the core asks of the kit's state of a game (`game.kit`), which it otherwise keeps unread."""

    def facts(self) -> Any:
        """What the kit says of units: `hit_points(unit)`, `domain(unit)`, `cost(type_name)`."""

    def gains(self, events: list[dict], player: str) -> dict[str | None, int]:
        """What a player's treasury gained in the turn whose events these are, by cause (None:
        its income collection)."""

    def taken_on_move(self, events: list[dict]) -> set[str]:
        """The spaces whose control changed on the move (not in a battle) in these events."""


class Kit(Protocol):
    """What a `Game` is built with (`ruleslang.runtime.kit.table.kit_table()`)."""

    procedures: dict[str, Callable]

    def new_state(self, game: Game) -> KitOfGame:
        """The kit's state of a new game."""


class GameServices:
    """What battles and procedures ask of a game; shared by `Game` and the stand-in rule tests use.

    Needs `ctx`, `compiled`, `state`, `board`, `configs` and `kit` (the kit's state of the game,
    which says what the kit reads of units) on the instance, and `_init_services()`.
    """

    def _init_services(self, like: "GameServices | None" = None) -> None:
        """Set up what the services keep; `like`: a game on the same map whose index of spaces and
        turn order are shared (read only) rather than made again (a battle chain per agent query)."""
        if like is not None and like.state.map is self.state.map:
            self._space_index, self._turn = like._space_index, like._turn
        else:
            self._space_index = {s.name: i for i, s in enumerate(self.state.map.spaces)}
            self._turn = list(self.state.map.turn_order)
        self._units_by_id: dict[int, Any] = {}

    def sequence(self, name: str) -> list[str]:
        sym = self.compiled.symbols.get(name)
        if sym is None or sym.kind != "sequence":
            return []
        return [item.text for item in sym.decl.items]

    # a battle's casualty decision answered without asking a player, when set: a function of the
    # battle, the units that may be hit, their room, the hits and their side (`Battle.hit`)
    casualties_chosen = None

    def unit_hit(self, unit, hits: int) -> None:
        """A unit of a battle took a hit: it has taken `hits` now (`Battle.hit`)."""
        self.state.update_units([unit.id], hits=hits)

    def log(self, kind: str, **data) -> None:
        self.ctx.log(kind, **data)

    def allied(self, a: str | None, b: str | None) -> bool:
        if a is None or b is None:
            return False
        if a == b:
            return True
        side = self.compiled.side_of_player.get(a)
        return side is not None and side == self.compiled.side_of_player.get(b)

    def space_order(self, space: str) -> int:
        return self._space_index[space]

    def turn_position(self, player: str) -> int:
        return self._turn.index(player) if player in self._turn else len(self._turn)

    def unit_or_none(self, uid: int):
        """The unit with this id, or None once it is gone (the state's index of its units)."""
        return self.state.unit_or_none(uid)

    def remove_units(self, ids: list[int], why: str) -> None:
        self.state.remove_units(ids)
        self.log("removed", units=list(ids), why=why)

    def unit_rules(self):
        """What the kit says of units (movement domain, hit points, cost): `self.kit.facts()`."""
        return self.kit.facts()

    # (the kit's facts asked directly, not through `unit_rules`: these are asked for every unit a
    # battle round or a valuation looks at)
    def hit_points(self, unit) -> int:
        return self.kit.facts().hit_points(unit)

    def domain(self, unit) -> str:
        return self.kit.facts().domain(unit)

    def unit_cost(self, unit) -> int:
        return self.kit.facts().cost(unit.type)


class Game(GameServices):
    """One game. `kit`: the kit the game is played with (`ruleslang.runtime.kit.table`): its
    `procedures` by name (what a `runtime NAME with {...}` phase runs) and `new_state(game)`, the
    kit's state of the game (`game.kit`: what passes between phases, what the kit says of units
    and what a turn collected), which the game keeps and does not look into."""

    def __init__(self, loaded, scenario, *, seed: int, agents: dict, kit: Kit,
                 options: dict | None = None, recorder: Callable | None = None, bids: dict[str, int] | None = None):
        self.loaded = loaded
        self.compiled = loaded.compiled
        self.scenario = scenario
        self.seed = seed
        self.state = GameState.from_scenario(scenario)
        self.board = BoardQueries(self.state)
        self.host = Host(seed, budget=GAME_BUDGET)
        self.ctx = EvalContext(self.compiled, self.host, state=self.state, board=self.board,
                               decide=self._decide_choose)
        self.ctx.game = self
        self.ctx.runtime_procedures = dict(kit.procedures)
        for name, value in (options or {}).items():
            self.ctx.options[name] = value
        self.agents = agents
        self.decisions: list[dict] = []   # every answer, in order (saves and replays)
        self.answers: list = []           # the same answers as given (a look-ahead replays a phase with them)
        self.recorder = recorder
        # False in a look-ahead's copy of the game (runtime/agents/phase_starts.py `fork`): no one
        # reads its decisions or their events, so only the answers are kept (`_record`)
        self.records_decisions = True
        # False where nothing reads the game's record beyond its result, each round's incomes and
        # its numbers of battles and control changes, and the accounting of its events (a compare
        # worker's record, compare/runner.py): each decision is still an event and an entry of
        # `decisions`, as the game's own readers (the kit's turn state, the look-ahead) find them,
        # without its offers and answer made into JSON (`_record`), a die is an event without its
        # value and place (`_log_roll`), and a turn's gains by cause and its territories taken on
        # the move are not worked out from its events (`run`); such a game's log and summaries are
        # not ones to save or report
        self.full_record = True
        self.configs: dict[int, Any] = {}
        self.summaries: list[RoundSummary] = []
        self.battle_results: list[dict] = []
        self.kit: KitOfGame = kit.new_state(self)
        self._init_services()
        self.turn_sequence = self.sequence("turn")
        if not self.turn_sequence:
            raise DiagnosticError(error("G701", "these rulesets declare no 'sequence turn', so there is no turn to "
                                                "play", None, hint="declare one, e.g. sequence turn: purchase, ..."))
        self.on_turn: Callable | None = None
        # told of every phase as it starts, after its `phase` event (an agent's look-ahead keeps
        # the state there: runtime/agents/phase_starts.py); agents set it in `Agent.joined`
        self.on_phase: Callable | None = None
        # told, with the game, where a runtime procedure could go on from the game's state alone
        # (kit/battle.py: before each battle and each step of a battle; kit/table.py: as a kit
        # procedure ends); a look-ahead's copy of the game can be made there (runtime/agents/phase_starts.py)
        self.on_resume_point: Callable | None = None
        self.setup = None
        self.start: dict | None = None  # the state before play as saves and logs give it (saves.start_record)
        # every die as an event: where it was rolled named by ruleset reference, not by a path
        # that depends on the checkout
        self._rule_files = {source.name: ref for ref, source in ruleset_sources(loaded).items()}
        self._roll_places: dict[int, tuple[Span, str]] = {}  # id(span) -> (span, where it is as a roll's `at`)
        self.host.on_roll = self._log_roll
        # the bids (`play --bid`), checked now: (side or power, its powers in turn order, IPCs)
        self.bids = resolve_bids(self, bids or {})
        self.bid_purse: int | None = None  # what the power bidding now may still spend

    def _log_roll(self, roll: Roll, span: Span | None) -> None:
        if not self.full_record:
            self.log("roll")  # (a die is still an event: the look-ahead reads that one was thrown)
            return
        if span is None:
            at = roll.where
        else:
            # a rule's dice are rolled from a few places, many times: each place's text is made
            # once (its line and column found by a search of the file's line starts), kept with
            # its span so that the id is not another span's
            kept = self._roll_places.get(id(span))
            if kept is not None and kept[0] is span:
                at = kept[1]
            else:
                at = f"{self._rule_files.get(span.source.name, span.source.name)}:{span.line}:{span.column}"
                self._roll_places[id(span)] = (span, at)
        self.log("roll", sides=roll.sides, value=roll.value, at=at)

    # ------------------------------------------------------------------ decisions

    def ask(self, decision: Decision, check: Callable[[Any], list[str]], fallback: Callable[[], Any]) -> Any:
        """Ask the player's agent; re-ask with the refusals; fall back after MAX_ASKS tries."""
        agent = self.agents[decision.player]
        for _ in range(MAX_ASKS):
            answer = agent.decide(decision, self)
            refusals = check(answer)
            if not refusals:
                self._record(decision, answer)
                return answer
            decision.refusals = refusals
            self.log("refused", decision=decision.kind, player=decision.player, reasons=refusals)
        answer = fallback()
        self._record(decision, answer)
        self.log("fallback", decision=decision.kind, player=decision.player)
        return answer

    def _record(self, decision: Decision, answer: Any) -> None:
        self.answers.append(answer)
        if not self.records_decisions:
            return
        full = self.full_record
        entry = {"kind": decision.kind, "player": decision.player}
        if full:
            entry["answer"] = encode_answer(answer)
        if decision.id:
            entry["id"] = decision.id
        self.decisions.append(entry)
        # (`log`'s own call, made in line: a decision is asked about 1,800 times a game)
        if full:
            self.ctx.log("decision", decision=entry["kind"], player=entry["player"], offered=offered(decision),
                         answer=entry["answer"])
        else:
            self.ctx.log("decision", decision=entry["kind"], player=entry["player"])
        if self.recorder is not None:
            self.recorder(entry)

    def _decide_choose(self, decision_id, player, options, mode, count, prompt):
        decision = Decision("choose", player.name, prompt, options=list(options), mode=mode, count=count,
                            id=decision_id)

        def check(answer) -> list[str]:
            if mode == "one":
                return [] if answer in options else ["not one of the options"]
            items = list(answer) if isinstance(answer, (list, tuple)) else list(getattr(answer, "items", ()))
            if any(a not in options for a in items):
                return ["not one of the options"]
            if mode == "exactly" and len(items) != count:
                return [f"choose exactly {count}"]
            if mode == "up_to" and len(items) > count:
                return [f"choose at most {count}"]
            return []

        def fallback():
            return options[0] if mode == "one" else tuple(options[:count] if mode == "exactly" else ())
        return self.ask(decision, check, fallback)

    # ------------------------------------------------------------------ the game

    def close(self) -> None:
        """Let go of everything the game holds (its context, host, board, events, agents), for a
        caller done with the game: it answers nothing after. A game is in reference cycles (its
        context names it as the game, its host's roll log and decisions are its methods), so a
        game simply dropped left its board, its events and its agents (some 20,000-30,000
        objects after a 10-round Revised game) to the cyclic collector's next full pass, which a
        process playing game after game (compare workers) paid in the next game, 20-60 ms each
        (docs/performance.md, session 18); emptied, they are freed by reference counting as the
        game is dropped. What the caller keeps of it (its events, summaries, result) stays."""
        for agent in {id(a): a for a in self.agents.values()}.values():  # (one agent may play several powers)
            agent.left(self)
        for held in (self.ctx, self.host):
            vars(held).clear()
        vars(self).clear()

    def run(self, rounds: int, progress: Callable | None = None) -> dict:
        """Play until a side wins or `rounds` rounds are over, after the bids the game was built
        with (`play_bids`); the result as a dict."""
        state = self.state
        start_round = state.round
        # a scenario may start in the middle of a round: the players before its player have played
        waiting_for = state.current_player if state.current_player in self._turn else None
        for agent in {id(a): a for a in self.agents.values()}.values():
            agent.joined(self)
        self.play_bids()
        for number in range(start_round, rounds + 1):
            summary = RoundSummary(number)
            income_before = {}
            state.start_round(number)
            for player in self._turn:
                if self.ctx.winner is not None:
                    break
                if waiting_for is not None:
                    if player != waiting_for:
                        continue
                    waiting_for = None
                state.start_turn(player)
                if self.on_turn is not None:
                    self.on_turn(self, player)
                self.battle_results = []
                control_before = dict(state.control)
                income_before[player] = self.income(player)
                first_event = len(state.events)
                for phase in self.turn_sequence:
                    state.set_phase(phase)
                    self.host.reset_budget()
                    self.ctx.running = []
                    if self.on_phase is not None:
                        self.on_phase(self, phase)
                    run_procedure(self.ctx, phase)
                    if self.ctx.winner is not None:
                        break
                if income_before[player] is not None:
                    summary.income[player] = income_before[player]
                # (the turn's gains and what it took on the move are read from its events: not where
                # nothing reads them, `full_record`)
                turn_events = state.events[first_event:] if self.full_record else None
                if turn_events is not None:
                    gains = self.kit.gains(turn_events, player)
                    summary.collected[player] = gains.pop(None, 0)
                    for cause, amount in gains.items():
                        summary.gains.setdefault(player, {})[cause] = amount
                summary.battles.extend(self.battle_results)
                if state.control != control_before:  # (most turns take no territory: no walk over the map)
                    on_move = self.kit.taken_on_move(turn_events) if turn_events is not None else None
                    for space, owner in state.control.items():
                        if control_before.get(space) != owner:
                            summary.control_changes.append((space, control_before.get(space), owner,
                                                            None if on_move is None else space in on_move))
            summary.scores = self.scores()
            self.summaries.append(summary)
            if progress is not None:
                progress(self, summary)
            if self.ctx.winner is not None:
                break
        return self.result(rounds)

    def play_bids(self) -> None:
        """The bid stage, before round 1 (as round 0): each power with a bid, in turn order, runs
        the composition's `runtime bid` phase as `current_player()`, spending what its side or it
        still has of the bid; a side's powers share its bid, each spending what those before it
        left, and what the last of them leaves goes to its treasury. Played once."""
        bids, self.bids = self.bids, []
        if not bids:
            return
        phase = runtime_procedures(self.compiled, "bid")[0][0].name
        purse = {name: amount for name, _, amount in bids}
        pool_of = {p: name for name, powers, _ in bids for p in powers}
        last = {name: powers[-1] for name, powers, _ in bids}
        self.state.start_round(0)
        for player in self._turn:
            name = pool_of.get(player)
            if name is None or purse[name] <= 0:
                continue
            self.state.start_turn(player)
            self.state.set_phase(phase)
            self.host.reset_budget()
            self.ctx.running = []
            self.bid_purse = purse[name]
            self.log("bid", player=player, bid=name, money=purse[name])
            if self.on_phase is not None:
                self.on_phase(self, phase)
            run_procedure(self.ctx, phase)
            purse[name], self.bid_purse = self.bid_purse, None
            if player == last[name] and purse[name] > 0:
                self.state.change_treasury(player, purse[name])
        self.state.set_phase(None)

    def space_attribute(self, space: str, name: str, default: Any = None) -> Any:
        """A space attribute as the rules read it (`t.name`: the map's value or the declared
        default), or `default` when the composition declares no such attribute."""
        if name not in self.compiled.scope.space_attributes:
            return default
        return self.compiled.space_attribute(self.ctx, space, name)

    def income(self, player: str) -> int | None:
        """The composition's `income(p: player)` now (what the rulesets say a player earns), or
        None when the composition declares no such formula or it cannot be evaluated here."""
        sym = self.compiled.symbols.get("income")
        if sym is None or sym.kind != "formula" or len(sym.decl.params or ()) != 1:
            return None
        try:
            value = self.compiled.callable("income")(self.ctx, self.ctx.player_values[player])
        except EvalError:
            return None
        return value if isinstance(value, int) and not isinstance(value, bool) else None

    def scores(self) -> dict[str, Any]:
        """The composition's `score(side)` for every side with a player who takes turns (neutral
        powers' sides are not in the race), when the composition declares one."""
        sym = self.compiled.symbols.get("score")
        if sym is None or sym.kind not in ("formula", "modifiers"):
            return {}
        fn = self.compiled.callable("score")
        playing = {self.compiled.side_of_player.get(p) for p in self._turn}
        out = {}
        for side in self.ctx.enums["side"].members:
            if side.name not in playing:
                continue
            try:
                out[side.name] = to_json(fn(self.ctx, side))
            except EvalError:
                out[side.name] = None
        return out

    def result(self, rounds: int) -> dict:
        winner = self.ctx.winner
        scores = self.scores()
        out = {"rounds_played": self.state.round, "scores": scores,
               "treasury": {p: sum(e.values()) for p, e in self.state.treasury.items()}}
        if winner is not None:
            out["winner"] = winner[0].name
            out["reason"] = winner[1]
        else:
            ranked = sorted(scores.items(), key=lambda kv: -(kv[1] or 0))
            leader = ranked[0][0] if ranked and (len(ranked) < 2 or ranked[0][1] != ranked[1][1]) else None
            out["winner"] = None
            out["ahead"] = leader
            out["reason"] = (f"no side won within {rounds} round{'' if rounds == 1 else 's'}" +
                             (f"; {leader} lead on score" if leader else ""))
        return out


def ruleset_sources(loaded) -> dict[str, Source]:
    """The source of every ruleset file of a loaded composition, by reference (the order it is
    found in: the composition, then what each uses and revises)."""
    out: dict[str, Source] = {}
    for rs in composition_rulesets_of(loaded.ruleset):
        if rs.file is not None:
            out.setdefault(rs.ref, rs.file.source)
    return out


def offered(decision: Decision) -> dict:
    """What a decision offered, as the log gives it: its options (a rule's `choose`, the units a
    hit may fall on), its mode and count, and the plain data of its context (money and prices, the
    hits each unit can take, the units to place and the territories offered, the kind of move).
    What is not plain data (the movement engine, the rules' constraints) is left out: those
    options are the ones the rules allow in the state the log describes."""
    out: dict[str, Any] = {}
    if decision.options:
        out["options"] = encode_answer(decision.options)
    if decision.kind in ("choose", "casualties"):
        out["mode"] = decision.mode
        out["count"] = decision.count
    for name, value in decision.context.items():
        kind = type(value)
        if kind in _OPAQUE:
            continue  # (the movement engine, the rules' checks, the battle: most of a context, left out at once)
        found = _plain_json(value)
        if found is not _NOT_PLAIN:
            out[name] = found
        elif not issubclass(kind, _MAYBE_PLAIN):
            _OPAQUE.add(kind)
    return out


_NOT_PLAIN = object()  # (`_plain_json`: the value is not JSON data as it is)
# the types whose values `_plain_json` may find JSON data (None aside); of any other type, a value
# never is: `offered` notes such types as it meets them (`_OPAQUE`) and passes their values over
_MAYBE_PLAIN = (bool, int, str, list, tuple, dict)
_OPAQUE: set[type] = set()


def _plain_json(value: Any) -> Any:
    """`encode_answer(value)` when the value is JSON data as it is (numbers, text, lists and maps
    of them), else _NOT_PLAIN: one pass over the value, where asking whether it is plain data and
    then encoding it walked it twice (every decision of a game is logged with its context)."""
    if value is None or type(value) in _AS_THEY_ARE:
        return value
    if isinstance(value, (bool, int, str)):
        return encode_answer(value)
    if isinstance(value, (list, tuple)):
        items = []
        for v in value:
            found = v if v is None or type(v) in _AS_THEY_ARE else _plain_json(v)
            if found is _NOT_PLAIN:
                return _NOT_PLAIN
            items.append(found)
        return items
    if isinstance(value, dict):
        entries = {}
        for k, v in value.items():
            if not isinstance(k, (str, int)):
                return _NOT_PLAIN
            found = v if v is None or type(v) in _AS_THEY_ARE else _plain_json(v)
            if found is _NOT_PLAIN:
                return _NOT_PLAIN
            entries[str(k)] = found
        return entries
    return _NOT_PLAIN


def resolve_bids(game: Game, bids: dict[str, int]) -> list[tuple[str, tuple[str, ...], int]]:
    """The bids of a new game (side or power -> IPCs) as (name, the powers that spend it in turn
    order, IPCs); refused with a located diagnostic: an amount that is not a whole number of at
    least 0 (U112), a name that is neither a side nor a power that takes turns or a power named
    twice (U113), rulesets without a `runtime bid` phase (G704), a game that does not start at
    the beginning of round 1 (G705)."""
    if not bids:
        return []
    turn = list(game.state.map.turn_order)
    sides = {}
    for player in turn:
        side = game.compiled.side_of_player.get(player)
        if side is not None:
            sides.setdefault(side, []).append(player)
    out = []
    seen: dict[str, str] = {}
    for name, amount in bids.items():
        if not isinstance(amount, int) or isinstance(amount, bool) or amount < 0:
            raise DiagnosticError(error("U112", f"--bid {name}={amount}: a bid is a whole number of IPCs, "
                                                "at least 0", None))
        powers = sides.get(name) or ([name] if name in turn else None)
        if powers is None:
            raise DiagnosticError(error("U113", f"--bid names '{name}', which is neither a side nor a power "
                                                "that takes turns on this map", None,
                                        hint=did_you_mean(name, [*sides, *turn], 2)
                                        or "sides: " + ", ".join(sides) + "; powers: " + ", ".join(turn)))
        for p in powers:
            if p in seen:
                raise DiagnosticError(error("U113", f"--bid gives {p} two bids ({seen[p]} and {name}); "
                                                    "bid for a side or for each of its powers", None))
            seen[p] = name
        out.append((name, tuple(powers), amount))
    if not runtime_procedures(game.compiled, "bid"):
        raise DiagnosticError(error("G704", "these rulesets have no bid rule, so there is nothing to bid for",
                                    None, hint="a ruleset says how bids are spent and placed with "
                                               "`phase bid: runtime bid with {cost: ..., space: ...}` "
                                               "(aar/base@1 has one)"))
    state = game.state
    if state.round != 1 or (state.current_player is not None and turn and state.current_player != turn[0]):
        raise DiagnosticError(error("G705", f"bids are placed before the first round, but this game starts in "
                                            f"round {state.round} with {state.current_player} to play", None))
    return out


_AS_THEY_ARE = (bool, int, str)  # the JSON of these is themselves (`to_json`)


def encode_answer(answer: Any) -> Any:
    """An answer as JSON (saves): language values by name, moves as dicts."""
    if answer is None or type(answer) in _AS_THEY_ARE:
        return answer  # (what `to_json` gives them: most of an answer's parts; `hasattr` of a text costs)
    if hasattr(answer, "to_json") and not isinstance(answer, (dict, list, tuple)):
        return answer.to_json()
    if isinstance(answer, dict):
        return {str(k): encode_answer(v) for k, v in answer.items()}
    if isinstance(answer, (list, tuple)):
        # (most parts are unit ids or names, a decision's options too: as they are, without a call for each)
        return [v if v is None or type(v) in _AS_THEY_ARE else encode_answer(v) for v in answer]
    if hasattr(answer, "name") and type(answer).__name__ == "_Sentinel":
        return {"sentinel": answer.name}
    return to_json(answer)


def dumps_event(event: dict) -> str:
    """One event as one JSON line (keys in insertion order: deterministic)."""
    return json.dumps(event, ensure_ascii=False, separators=(",", ":"), default=str)
