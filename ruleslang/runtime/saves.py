"""Setting up games, saving them, resuming and replaying them.

A save (JSON, written atomically) holds what makes a game reproducible: the format version, the
exact ruleset versions with a hash of each source, the map and its hash, the scenario's text, the
options, the seed, the agents, the starting state, every decision in order, and the events so
far. Resuming re-runs the game from the start with the recorded decisions (the same seed gives
the same dice), then goes on with the agents. Replaying re-runs it and confirms every event
matches, or reports the first divergence. A save that is truncated, corrupt, of an unknown or
older format, or whose rulesets changed is refused.

A game log (`play --log FILE`) is the same record as JSON lines, for anyone to audit: the first
line describes the game as a save does (without its start, decisions and events) with `"kind":
"game"`, the second is the starting state (`"kind": "start"`), and every other line is one event,
in order, every die among them (docs/log-format.md; the schema: schemas/log.schema.json). A log
can be replayed as a save can: its decisions are read back from its events. Both are written
from one description of the game (`record_data`).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from ruleslang.base.version import VERSION
from ruleslang.base.diagnostics import DiagnosticError, error
from ruleslang.base.fileio import write_atomic
from ruleslang.base.paths import inside
from ruleslang.base.source import Source, Span, span_at
from ruleslang.base.suggest import did_you_mean
from ruleslang.base.yamlio import Positions, load_schema, load_yaml, read_source, validate
from ruleslang.binding.bind import parse_settings, scenario_or_start, set_scenario_values
from ruleslang.binding.scenario_check import check_scenario
from ruleslang.board.mapdata import is_path_ref
from ruleslang.board.scenario import scenario_from_data
from ruleslang.lang.compose.loader import parse_ref, without_mark
from ruleslang.lang.values import to_json
from ruleslang.runtime.agents import make_agent
from ruleslang.runtime.decisions import DONE, STAY, Agent, Decision
from ruleslang.runtime.game import FORMAT_VERSION, Game, dumps_event, ruleset_sources
from ruleslang.runtime.kit.table import kit_table
from ruleslang.runtime.kit.movement import Move

SAVE_KIND = "ruleslang-save"
LOG_KIND = "ruleslang-log"


@dataclass
class GameSetup:
    refs: list[str]
    scenario: str | None = None
    seed: int = 0
    rounds: int = 10
    players: dict[str, str] = field(default_factory=dict)
    default_agent: str = "heuristic"
    settings: list[str] = field(default_factory=list)
    orders: str | None = None  # a YAML file for scripted agents
    bids: dict[str, int] = field(default_factory=dict)  # side or power -> IPCs (`play --bid`)


def _hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def build_game(workspace, setup: GameSetup, *, recorded: list[dict] | None = None, scenario_text: str | None = None,
               recorder=None, kept: bool = False, full_record: bool = True) -> Game:
    """A game from a setup; with `recorded` decisions, those are answered first (resume, replay).
    With `kept`, a composition checked by an earlier run and unchanged since is read back from the
    cache (`Workspace.load`), as `call` reads it: a process that plays one game (`ruleslang play`).
    `full_record` False: a game whose caller reads only its result, its rounds' incomes and counts
    and its events' accounting (a compare worker): no start record, and `Game.full_record`."""
    loaded = workspace.load(setup.refs, kept=kept)
    if not loaded.ok:
        raise DiagnosticError(loaded.diagnostics)
    if loaded.ruleset.map is None:
        raise DiagnosticError(error("G702", "these rulesets name no map, so there is no board to play on", None,
                                    hint='name one in a ruleset header (map "aar") or play aar/base@1'))
    default_map = loaded.ruleset.map[0]
    if scenario_text is not None:
        source = Source(setup.scenario or "<saved scenario>", scenario_text)
        data, positions = load_yaml(source)
        # the scenario's folder is where a map file it names beside it is found (and allowed)
        beside = Path(setup.scenario).resolve() if setup.scenario and is_path_ref(setup.scenario) else None
        scenario = scenario_from_data(data or {}, positions, source, workspace.roots, default_map=default_map,
                                      path=beside)
    else:
        scenario = scenario_or_start(setup.scenario, workspace.roots, default_map)
    # the scenario's map, unit types, options and rulesets against the composition (located errors),
    # before anything else is asked of it
    check_scenario(loaded.compiled, scenario, workspace.loader)
    options = parse_settings(setup.settings, loaded.compiled)
    # every player of the map gets an agent: powers outside the turn order (neutrals) still
    # choose their casualties when attacked
    players = list(scenario.map.turn_order) + [p.name for p in scenario.map.players
                                               if p.name not in scenario.map.turn_order]
    orders = _load_orders(setup.orders, players) if setup.orders else {}
    unknown = [p for p in setup.players if p not in players]
    if unknown:
        raise DiagnosticError(error("U106", f"--players names '{unknown[0]}', who does not play on this map", None,
                                    hint="players: " + ", ".join(players)))
    agents: dict[str, Agent] = {}
    for p in players:
        spec = setup.players.get(p, setup.default_agent)
        agents[p] = make_agent(spec, seed=setup.seed, player=p, orders=orders.get(p))
    if recorded is not None:
        agents = {p: ReplayAgent(recorded, agents[p]) for p in players}
        shared = _SharedQueue(recorded)
        for agent in agents.values():
            agent.queue = shared
        recorder = shared.recorder(recorder)
    game = Game(loaded, scenario, seed=setup.seed, agents=agents, kit=kit_table(), options=options,
                recorder=recorder, bids=setup.bids)
    if scenario is not None:
        set_scenario_values(game.ctx, scenario, options=options)
    game.setup = setup
    game.full_record = full_record
    if full_record:
        game.start = start_record(game)
    return game


def _load_orders(path: str, players: list[str]) -> dict:
    """The orders file: player -> a list of orders per round (the format: agents/scripted.py)."""
    source = read_source(Path(path))
    data, positions = load_yaml(source)
    if not isinstance(data, dict):
        raise DiagnosticError(error("D650", "an orders file maps players to their orders", positions.span(),
                                    file=path))
    problems = []
    for name, plan in data.items():
        if name not in players:
            problems.append(error("D651", f"the orders name '{name}', who does not play on this map",
                                  positions.key_span((name,)),
                                  hint=did_you_mean(str(name), players, 2)
                                  or "players: " + ", ".join(players)))
        elif not isinstance(plan, list):
            problems.append(error("D650", f"the orders of {name} are a list of rounds ({{round: 1, purchase: ...}}), "
                                          f"not {type(plan).__name__}", positions.span((name,))))
    if problems:
        raise DiagnosticError(problems)
    problems = validate(data, load_schema("orders"), positions, code="D650")
    if problems:
        raise DiagnosticError(problems)
    return data


class _SharedQueue:
    """The recorded decisions, in order; the game's record of each decision must match the next."""

    def __init__(self, recorded: list[dict]):
        self.items = list(recorded)
        self.position = 0

    def next(self) -> dict | None:
        return self.items[self.position] if self.position < len(self.items) else None

    def recorder(self, then=None):
        """A `Game` recorder: checks each decision the game records against the record, in order."""
        def record(entry: dict) -> None:
            expected = self.next()
            if expected is not None:
                self.position += 1
                if (expected.get("kind"), expected.get("player"), expected.get("answer")) != \
                        (entry.get("kind"), entry.get("player"), entry.get("answer")):
                    raise ReplayDivergence(f"decision {self.position}: the record has {_said(expected)}, the game "
                                           f"now has {_said(entry)}")
            if then is not None:
                then(entry)
        return record


def _said(entry: dict) -> str:
    return f"{entry.get('player')}'s {entry.get('kind')} decision {json.dumps(entry.get('answer'))}"


class ReplayAgent(Agent):
    """Answers from the recorded decisions while there are any, then hands over to `after`.

    A deterministic agent (`Agent.deterministic`) is asked again instead, as the game asked it
    the first time, so that its own state goes on as in an unbroken game; the game then checks
    its answers against the record. Without an agent after the record (a replay), every answer
    comes from the record.
    """

    name = "replay"

    def __init__(self, recorded: list[dict], after: Agent | None):
        self.after = after
        self.queue: _SharedQueue | None = None

    def joined(self, game) -> None:
        if self.after is not None:  # a resumed agent follows the replayed game as it followed the first
            self.after.joined(game)

    def decide(self, decision: Decision, game):
        entry = self.queue.next()
        if entry is None:
            if self.after is None:
                raise ReplayDivergence("the record ends here, but the game asks for another decision")
            return self.after.decide(decision, game)
        if entry.get("kind") != decision.kind or entry.get("player") != decision.player:
            raise ReplayDivergence(f"decision {self.queue.position + 1}: the record has a {entry.get('kind')} "
                                   f"decision of {entry.get('player')}, the game asks a {decision.kind} decision "
                                   f"of {decision.player}")
        if self.after is not None and self.after.deterministic:
            return self.after.decide(decision, game)
        if not _answer_fits(entry.get("answer"), decision):
            raise ReplayDivergence(f"decision {self.queue.position + 1}: the record's answer "
                                   f"{_short(entry.get('answer'))} is not the shape of a {decision.kind} answer")
        return decode_answer(entry["answer"], decision, game)


def _answer_fits(raw: Any, decision: Decision) -> bool:
    """Whether a recorded answer has the shape its kind of decision gives (a record edited by hand
    may hold anything: it is refused as not fitting, never decoded into a crash)."""
    if isinstance(raw, dict) and "sentinel" in raw:
        return raw["sentinel"] in ("DONE", "STAY")
    if decision.kind == "choose" and decision.mode != "one":
        return isinstance(raw, list)
    if decision.kind == "move":
        return (isinstance(raw, dict) and isinstance(raw.get("units"), list) and isinstance(raw.get("path"), list)
                and all(isinstance(x, (int, str)) for x in raw["units"] + raw["path"])
                and isinstance(raw.get("kind", "move"), str))
    if decision.kind == "place":
        return isinstance(raw, list) and all(isinstance(item, list) and len(item) == 3
                                             and isinstance(item[2], list) for item in raw)
    return True


class ReplayDivergence(Exception):
    pass


def decode_answer(raw: Any, decision: Decision, game) -> Any:
    """A recorded answer back as the runtime's value (options matched by their JSON form)."""
    if isinstance(raw, dict) and "sentinel" in raw:
        return DONE if raw["sentinel"] == "DONE" else STAY
    kind = decision.kind
    if kind == "choose":
        if decision.mode == "one":
            for option in decision.options:
                if to_json(option) == raw:
                    return option
            return raw
        chosen = []
        for item in raw:
            chosen.extend(o for o in decision.options if to_json(o) == item and o not in chosen)
        return tuple(chosen)
    if kind == "move":
        return Move(tuple(raw["units"]), tuple(raw["path"]), raw.get("kind", "move"), raw.get("transport"))
    if kind == "place":
        return [(t, s, list(types)) for t, s, types in raw]
    return raw


# ---------------------------------------------------------------------- saving


def record_data(game: Game, *, scenario_text: str | None, finished: bool) -> dict:
    """The description of a game that heads its save and its log: formats, versions, the rulesets
    and the map with their hashes, the scenario, the options, the seed and the agents."""
    setup = game.setup
    rulesets = [{"ref": ref} for ref in game.loaded.ruleset.members]
    files = _ruleset_files(game)
    for entry in rulesets:
        text = files.get(entry["ref"])
        if text is not None:
            entry["sha256"] = _hash(text)
    game_map = game.state.map
    data = {
        "format": SAVE_KIND,
        "version": FORMAT_VERSION,
        "ruleslang": VERSION,
        "compose": list(setup.refs),
        "rulesets": rulesets,
        "map": {"name": game_map.name, "sha256": _file_hash(game_map.path)},
        "scenario": {"ref": setup.scenario, "text": scenario_text},
        "settings": list(setup.settings),
        "seed": setup.seed,
        "rounds": setup.rounds,
        "players": dict(setup.players),
        "default_agent": setup.default_agent,
        "agents": {player: setup.players.get(player, setup.default_agent) for player in game.agents},
        "orders": None if setup.orders is None else {"file": Path(setup.orders).name,
                                                      "sha256": _file_hash(Path(setup.orders))},
        "rounds_played": game.state.round,
        "finished": finished,
    }
    if setup.bids:  # only a game with bids has them (side or power -> IPCs, as given)
        data["bids"] = dict(setup.bids)
    return data


def save_data(game: Game, *, scenario_text: str | None, finished: bool) -> dict:
    """A save: the game's description, its starting state, every decision and every event."""
    data = record_data(game, scenario_text=scenario_text, finished=finished)
    data.update(start=game.start, decisions=list(game.decisions), events=list(game.state.events))
    return data


def start_record(game: Game) -> dict:
    """The state before the first event, as saves and logs give it: the turn it starts at, every
    unit (`Unit.to_json` without the fields at their defaults: no hits, no moves, no flags, no
    cargo), control of every space, the factories, treasuries, stated incomes, counters, the
    scenario's facts and every option in force (`--set` and the scenario's, over the defaults)."""
    state = game.state
    ctx = game.ctx
    return {
        "kind": "start",
        "round": state.round,
        "player": state.current_player,
        "phase": state.phase,
        "units": [{k: v for k, v in u.to_json().items() if k in _UNIT_KEYS or v} for u in state.units],
        "next_unit_id": state.next_unit_id,
        "control": dict(state.control),
        "factories": [{"space": f.space, "owner": f.owner, "kind": f.kind, "damage": f.damage,
                       "flags": dict(f.flags)} for f in state.factories.values()],
        "treasury": {p: dict(amounts) for p, amounts in state.treasury.items()},
        "income": {p: {"total": state.income_override[p], "by_economy": dict(state.income_override_by_economy[p])}
                   for p in state.treasury},
        "counters": {name: [[[to_json(k) for k in key], to_json(value)] for key, value in entries.items()]
                     for name, entries in state.counters.items()},
        "facts": {name: to_json(value) for name, value in ctx.facts.items()},
        "options": {name: to_json(value) for name, value in ctx.options.items()},
    }


_UNIT_KEYS = ("id", "type", "owner", "space")  # a unit's fields the start record always gives


def _file_hash(path: Path | None) -> str | None:
    """The sha256 of a file's bytes, or None without a file (or one that cannot be read now)."""
    if path is None:
        return None
    try:
        return hashlib.sha256(Path(path).read_bytes()).hexdigest()
    except OSError:
        return None


def _ruleset_files(game: Game) -> dict[str, str]:
    """The source text of every ruleset of the game, by reference."""
    return {ref: source.text for ref, source in ruleset_sources(game.loaded).items()}


def write_save(path: str, data: dict) -> None:
    write_atomic(path, json.dumps(data, ensure_ascii=False, indent=1, default=str) + "\n")


def save_schema() -> dict:
    """The schema of saves, with the log's definitions it refers to (its description, start and
    events: one definition of each, in log.schema.json)."""
    schema = load_schema("save")
    schema["$defs"] = load_schema("log")["$defs"]
    return schema


def read_save(path: str) -> dict:
    """Load and validate a save; refuse a truncated, corrupt or unknown one with a located error."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise DiagnosticError(error("D661", "the save is not UTF-8 text (corrupt)", file=path))
    except OSError as exc:
        raise DiagnosticError(error("D660", f"cannot read the save: {exc.strerror or exc}", file=path))
    source = Source(path, text)
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        what = exc.msg[0].lower() + exc.msg[1:] + (" here" if exc.msg.endswith(" at") else "")
        raise DiagnosticError(error("D661", f"the save is not valid JSON (truncated or corrupt): {what}",
                                    span_at(source, exc.lineno, exc.colno)))
    except (ValueError, RecursionError) as exc:  # a number of thousands of digits; nesting thousands deep
        raise DiagnosticError(error("D661", f"the save cannot be read (corrupt): {_unreadable(exc)}", file=path))
    if not isinstance(data, dict) or data.get("format") != SAVE_KIND:
        raise DiagnosticError(error("D662", "this is not a ruleslang save", None, file=path))
    if data.get("version") != FORMAT_VERSION:
        raise DiagnosticError(error("D663", f"the save has format version {data.get('version')!r}; this ruleslang "
                                            f"reads version {FORMAT_VERSION}", None, file=path))
    problems = validate(data, save_schema(), Positions(source, Span(source, 0, 0)), code="D664")
    if problems:
        raise DiagnosticError(problems)
    return data


def setup_of(data: dict) -> GameSetup:
    return GameSetup(refs=list(data["compose"]), scenario=data["scenario"].get("ref"), seed=data["seed"],
                     rounds=data["rounds"], players=dict(data["players"]), default_agent=data["default_agent"],
                     settings=list(data["settings"]), bids=dict(data.get("bids") or {}))


def confine_record(workspace, setup: GameSetup, path: str) -> None:
    """The files a saved or logged game names (rulesets by path, its scenario) are read again when it
    is resumed or replayed: they must lie inside the ruleset roots or the record's own folder (S005),
    as a ruleset's `uses` must, so that a record cannot make ruleslang read a file anywhere."""
    allowed = [*workspace.loader.allowed, Path(path).resolve().parent]
    named = [ref for ref in setup.refs if parse_ref(without_mark(ref)) is None]
    if setup.scenario and is_path_ref(setup.scenario):
        named.append(setup.scenario)
    for text in named:
        where = Path(text).resolve()
        if not inside(where, allowed):
            raise DiagnosticError(error(
                "S005", f"the record names '{text}', which lies outside the ruleset roots", None, file=path,
                hint="resume or replay it with the folder that holds it among the roots: --rulesets DIR"))


def check_rulesets_unchanged(game: Game, data: dict, path: str) -> None:
    files = _ruleset_files(game)
    for entry in data["rulesets"]:
        text = files.get(entry["ref"])
        if text is None or _hash(text) != entry["sha256"]:  # the schema requires every hash
            raise DiagnosticError(error("D665", f"ruleset {entry['ref']} has changed since this game was saved; "
                                                "it cannot be resumed or replayed faithfully", None, file=path,
                                        hint="play it with the ruleset as it was, or start a new game"))


def verify_resumed(data: dict, game: Game, path: str, *, complete: bool) -> None:
    """Refuse to go on with a save whose events are not what its decisions give when re-run (a
    save edited or damaged by hand): D666, before anything is written over it. Not `complete`:
    the re-run is still inside the saved rounds, and only its events so far are compared."""
    if dumps_event(data["start"]) != dumps_event(game.start):
        raise DiagnosticError(error(
            "D666", "the save's starting state is not the one its rulesets and scenario give; the save was changed "
                    "or is corrupt, and is not resumed", None, file=path))
    events = game.state.events
    found = first_divergence(data["events"] if complete else data["events"][:len(events)], events)
    if found is not None:
        index, recorded, replayed = found
        raise DiagnosticError(error(
            "D666", f"the save's events do not match a re-run of its decisions, from event {index + 1} "
                    f"(saved {_short(recorded)}, re-run {_short(replayed)}); the save was changed or is corrupt, "
                    "and is not resumed", None, file=path,
            hint="`ruleslang replay SAVE` shows the first difference in full"))


def divergence_error(exc: ReplayDivergence, path: str) -> DiagnosticError:
    """A recorded decision that does not fit the re-run game (D667)."""
    return DiagnosticError(error("D667", f"the save's decisions do not fit the game it records ({exc}); the save "
                                         "was changed or is corrupt", None, file=path))


def _short(event: dict | None) -> str:
    text = "nothing" if event is None else json.dumps(event, ensure_ascii=False)
    return text if len(text) <= 120 else text[:117] + "..."


def first_divergence(recorded: list[dict], events: list[dict]) -> tuple[int, dict | None, dict | None] | None:
    """The index and the two versions of the first event that differs, or None if all match."""
    for i, (a, b) in enumerate(zip(recorded, events)):
        if dumps_event(a) != dumps_event(b):
            return i, a, b
    if len(recorded) != len(events):
        i = min(len(recorded), len(events))
        return i, (recorded[i] if i < len(recorded) else None), (events[i] if i < len(events) else None)
    return None


# ---------------------------------------------------------------------- the game log and replays


def write_log(path: str, game: Game, scenario_text: str | None, *, finished: bool = False) -> None:
    """Write the game so far as a log (atomically): its description, its starting state, then one
    event a line."""
    header = {"kind": "game", **record_data(game, scenario_text=scenario_text, finished=finished),
              "format": LOG_KIND}
    lines = [dumps_event(header), dumps_event(game.start)] + [dumps_event(e) for e in game.state.events]
    write_atomic(path, "\n".join(lines) + "\n")


def _unreadable(exc: BaseException) -> str:
    """What is wrong with a record JSON cannot hold as data, in a line."""
    if isinstance(exc, RecursionError):
        return "its data nests too deeply"
    text = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    return "a number with too many digits" if "digits" in text else text


def read_record(path: str) -> dict:
    """A save (JSON), or a log (.jsonl or .log) read as a save's data, with its events and decisions."""
    if not path.endswith((".jsonl", ".log")):
        return read_save(path)
    try:
        with open(path, encoding="utf-8") as file:
            lines = file.read().splitlines()
        header = json.loads(lines[0])
        start = json.loads(lines[1]) if len(lines) > 1 else None
        events = [json.loads(line) for line in lines[2:] if line.strip()]
    except (OSError, IndexError, ValueError, RecursionError) as exc:  # JSON, UTF-8, digits, nesting
        raise DiagnosticError(error("D661", f"the log cannot be read (truncated or corrupt): {_unreadable(exc)}",
                                    file=path))
    if not isinstance(header, dict) or header.get("kind") != "game" \
            or header.get("format") not in (LOG_KIND, SAVE_KIND):
        raise DiagnosticError(error("D662", "this is not a ruleslang game log", file=path))
    if header.get("version") != FORMAT_VERSION:
        raise DiagnosticError(error("D663", f"the log has format version {header.get('version')!r}; this ruleslang "
                                            f"reads version {FORMAT_VERSION}", None, file=path,
                                    hint="replay it with the ruleslang that wrote it, or play the game again"))
    # the description and the start (what a replay reads); the events are checked by replaying them
    source = Source(path, "\n".join(lines[:2]))
    problems = validate([header, start], load_schema("log"), Positions(source, Span(source, 0, 0)), code="D664")
    if problems:
        raise DiagnosticError(problems)
    header = {k: v for k, v in header.items() if k != "kind"}
    header.update(start=start, events=events)
    # the runtime's record of each answer (a rule's own `choose` also logs one, with its id)
    decisions = [e for e in events if isinstance(e, dict) and e.get("kind") == "decision" and "decision" in e]
    for n, event in enumerate(decisions):
        missing = [key for key in ("player", "answer") if key not in event]
        if missing or not isinstance(event["decision"], str):
            raise DiagnosticError(error("D664", f"decision {n + 1} of the log is malformed (it lacks "
                                                f"{', '.join(missing) or 'a decision name'})", None, file=path))
    header["decisions"] = [{"kind": e["decision"], "player": e["player"], "answer": e["answer"]} for e in decisions]
    return header


@dataclass
class ReplayResult:
    """What replaying a record found: nothing different, a decision that did not fit, or an event."""

    events: int  # how many events the replay produced
    diverged: str | None = None  # a recorded decision the replayed game did not ask
    difference: tuple[int, dict | None, dict | None] | None = None  # the first differing event


def replay(workspace, data: dict, path: str, progress: Callable | None = None) -> ReplayResult:
    """Play the recorded game `data` (read from `path`) again from its record and compare its events.

    A ruleset changed since the record was made is refused (D665) before anything is played. With
    `progress`, it is called as `progress(game, None)` before the first round and as
    `progress(game, summary)` after each round (what pictures of the game are drawn from).
    """
    setup = setup_of(data)
    confine_record(workspace, setup, path)
    game = build_game(workspace, setup, recorded=data["decisions"], scenario_text=data["scenario"]["text"])
    check_rulesets_unchanged(game, data, path)
    for agent in game.agents.values():
        agent.after = None  # a replay only answers from the record
    if dumps_event(data["start"]) != dumps_event(game.start):
        return ReplayResult(0, diverged="the recorded starting state is not the one the rulesets and scenario give")
    if progress is not None:
        progress(game, None)
    try:
        game.run(data["rounds_played"], progress)
    except ReplayDivergence as exc:
        return ReplayResult(len(game.state.events), diverged=str(exc))
    return ReplayResult(len(game.state.events), difference=first_divergence(data["events"], game.state.events))
