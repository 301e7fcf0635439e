"""Setting up games, saving them, resuming and replaying them.

A save (JSON, written atomically) holds what makes a game reproducible: the format version, the
exact ruleset versions with a hash of each source, the scenario's text, the options, the seed,
the agents, every decision in order, and the events so far. Resuming re-runs the game from the
start with the recorded decisions (the same seed gives the same dice), then goes on with the
agents. Replaying re-runs it and confirms every event matches, or reports the first divergence.
A save that is truncated, corrupt, of an unknown format, or whose rulesets changed is refused.

A game log (`play --log FILE`) is JSON lines: the first line describes the game as a save does
(without its decisions and events) with `"kind": "game"`, and every other line is one event, in
order. A log can be replayed as a save can: its decisions are read back from its events.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ruleslang.base.diagnostics import DiagnosticError, error
from ruleslang.base.fileio import write_atomic
from ruleslang.base.source import Source, Span, span_at
from ruleslang.base.suggest import did_you_mean
from ruleslang.base.yamlio import Positions, load_schema, load_yaml, read_source, validate
from ruleslang.binding.bind import parse_settings, scenario_or_start, set_scenario_values
from ruleslang.binding.scenario_check import check_scenario
from ruleslang.board.scenario import scenario_from_data
from ruleslang.lang.values import to_json
from ruleslang.runtime.agents import make_agent
from ruleslang.runtime.decisions import DONE, STAY, Agent, Decision
from ruleslang.runtime.game import FORMAT_VERSION, Game, dumps_event
from ruleslang.runtime.kit.table import kit_table
from ruleslang.runtime.kit.movement import Move

SAVE_KIND = "ruleslang-save"


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
               recorder=None) -> Game:
    """A game from a setup; with `recorded` decisions, those are answered first (resume, replay)."""
    loaded = workspace.load(setup.refs)
    if not loaded.ok:
        raise DiagnosticError(loaded.diagnostics)
    if loaded.ruleset.map is None:
        raise DiagnosticError(error("G702", "these rulesets name no map, so there is no board to play on", None,
                                    hint='name one in a ruleset header (map "aar") or play aar/base@1'))
    default_map = loaded.ruleset.map[0]
    if scenario_text is not None:
        source = Source(setup.scenario or "<saved scenario>", scenario_text)
        data, positions = load_yaml(source)
        scenario = scenario_from_data(data or {}, positions, source, workspace.roots, default_map=default_map)
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
        return decode_answer(entry["answer"], decision, game)


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


def save_data(game: Game, *, scenario_text: str | None, finished: bool) -> dict:
    setup = game.setup
    rulesets = [{"ref": ref} for ref in game.loaded.ruleset.members]
    files = _ruleset_files(game)
    for entry in rulesets:
        text = files.get(entry["ref"])
        if text is not None:
            entry["sha256"] = _hash(text)
    data = {
        "format": SAVE_KIND,
        "version": FORMAT_VERSION,
        "compose": list(setup.refs),
        "rulesets": rulesets,
        "scenario": {"ref": setup.scenario, "text": scenario_text},
        "settings": list(setup.settings),
        "seed": setup.seed,
        "rounds": setup.rounds,
        "players": dict(setup.players),
        "default_agent": setup.default_agent,
        "decisions": list(game.decisions),
        "rounds_played": game.state.round,
        "finished": finished,
        "events": list(game.state.events),
    }
    if setup.bids:  # only a game with bids has them (side or power -> IPCs, as given)
        data["bids"] = dict(setup.bids)
    return data


def _ruleset_files(game: Game) -> dict[str, str]:
    """The source text of every ruleset of the game, by reference."""
    out: dict[str, str] = {}
    stack = [game.loaded.ruleset]
    while stack:
        rs = stack.pop()
        if rs.file is not None:
            out.setdefault(rs.ref, rs.file.source.text)
        stack.extend(rs.uses)
        if rs.revises is not None:
            stack.append(rs.revises)
    return out


def write_save(path: str, data: dict) -> None:
    write_atomic(path, json.dumps(data, ensure_ascii=False, indent=1, default=str) + "\n")


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
    if not isinstance(data, dict) or data.get("format") != SAVE_KIND:
        raise DiagnosticError(error("D662", "this is not a ruleslang save", None, file=path))
    if data.get("version") != FORMAT_VERSION:
        raise DiagnosticError(error("D663", f"the save has format version {data.get('version')!r}; this ruleslang "
                                            f"reads version {FORMAT_VERSION}", None, file=path))
    problems = validate(data, load_schema("save"), Positions(source, Span(source, 0, 0)), code="D664")
    if problems:
        raise DiagnosticError(problems)
    return data


def setup_of(data: dict) -> GameSetup:
    return GameSetup(refs=list(data["compose"]), scenario=data["scenario"].get("ref"), seed=data["seed"],
                     rounds=data["rounds"], players=dict(data["players"]), default_agent=data["default_agent"],
                     settings=list(data["settings"]), bids=dict(data.get("bids") or {}))


def check_rulesets_unchanged(game: Game, data: dict, path: str) -> None:
    files = _ruleset_files(game)
    for entry in data["rulesets"]:
        text = files.get(entry["ref"])
        if "sha256" in entry and (text is None or _hash(text) != entry["sha256"]):
            raise DiagnosticError(error("D665", f"ruleset {entry['ref']} has changed since this game was saved; "
                                                "it cannot be resumed or replayed faithfully", None, file=path,
                                        hint="play it with the ruleset as it was, or start a new game"))


def verify_resumed(data: dict, game: Game, path: str, *, complete: bool) -> None:
    """Refuse to go on with a save whose events are not what its decisions give when re-run (a
    save edited or damaged by hand): D666, before anything is written over it. Not `complete`:
    the re-run is still inside the saved rounds, and only its events so far are compared."""
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


def write_log(path: str, game: Game, scenario_text: str | None) -> None:
    """Write the game so far as a log (atomically): its description, then one event a line."""
    header = save_data(game, scenario_text=scenario_text, finished=False)
    header = {k: v for k, v in header.items() if k not in ("events", "decisions")}
    header["kind"] = "game"
    lines = [dumps_event(header)] + [dumps_event(e) for e in game.state.events]
    write_atomic(path, "\n".join(lines) + "\n")


def read_record(path: str) -> dict:
    """A save (JSON), or a log (.jsonl or .log) read as a save's data, with its events and decisions."""
    if not path.endswith((".jsonl", ".log")):
        return read_save(path)
    try:
        with open(path, encoding="utf-8") as file:
            lines = file.read().splitlines()
        header = json.loads(lines[0])
        events = [json.loads(line) for line in lines[1:] if line.strip()]
    except (OSError, IndexError, json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise DiagnosticError(error("D661", f"the log cannot be read (truncated or corrupt): {exc}", file=path))
    if header.get("kind") != "game" or header.get("format") != SAVE_KIND:
        raise DiagnosticError(error("D662", "this is not a ruleslang game log", file=path))
    # the runtime's record of each answer (a rule's own `choose` also logs one, with its id)
    decisions = [{"kind": e["decision"], "player": e["player"], "answer": e["answer"]}
                 for e in events if e.get("kind") == "decision" and "decision" in e]
    header.update(events=events, decisions=decisions)
    return header


@dataclass
class ReplayResult:
    """What replaying a record found: nothing different, a decision that did not fit, or an event."""

    events: int  # how many events the replay produced
    diverged: str | None = None  # a recorded decision the replayed game did not ask
    difference: tuple[int, dict | None, dict | None] | None = None  # the first differing event


def replay(workspace, data: dict, path: str) -> ReplayResult:
    """Play the recorded game `data` (read from `path`) again from its record and compare its events.

    A ruleset changed since the record was made is refused (D665) before anything is played.
    """
    game = build_game(workspace, setup_of(data), recorded=data["decisions"], scenario_text=data["scenario"]["text"])
    check_rulesets_unchanged(game, data, path)
    for agent in game.agents.values():
        agent.after = None  # a replay only answers from the record
    try:
        game.run(data["rounds_played"])
    except ReplayDivergence as exc:
        return ReplayResult(len(game.state.events), diverged=str(exc))
    return ReplayResult(len(game.state.events), difference=first_divergence(data["events"], game.state.events))
