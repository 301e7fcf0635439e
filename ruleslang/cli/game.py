"""The commands of players: play (a new game or a saved one resumed) and replay (a record checked)."""

from __future__ import annotations

import json
import sys

from ruleslang.api import new_game, resume, save
from ruleslang.base.diagnostics import DiagnosticError, error
from ruleslang.base.fileio import file_problem
from ruleslang.base.source import Source
from ruleslang.base.yamlio import load_schema, load_yaml, read_source, validate
from ruleslang.board.scenario import find_scenario
from ruleslang.cli.inputs import open_workspace
from ruleslang.lang.compose.composition import composition_rulesets
from ruleslang.lang.compose.loader import without_mark
from ruleslang.runtime import collector
from ruleslang.cli.output import (EXIT_ERRORS, EXIT_OK, EXIT_USAGE, check_output_file, report_diagnostics,
                                   show_composition, write_output)


def play_defaults(roots) -> dict:
    """`play:` of the first `defaults.yaml` among the ruleset roots (the composition, rounds, agent)."""
    for root in roots:
        path = root / "defaults.yaml"
        if path.is_file():
            data, positions = load_yaml(read_source(path))
            problems = validate({} if data is None else data, load_schema("defaults"), positions, code="D614")
            if problems:
                raise DiagnosticError(problems)
            return (data or {}).get("play") or {}
    return {}


def parse_players(text: str) -> dict[str, str]:
    """--players PLAYER=AGENT,...: the agent of each player named; U100 for a malformed pair or
    an unknown agent."""
    players: dict[str, str] = {}
    for item in [x.strip() for x in text.split(",") if x.strip()]:
        if "=" not in item:
            raise DiagnosticError(error("U100", f"--players takes PLAYER=AGENT pairs, found '{item}'"))
        name, agent = (x.strip() for x in item.split("=", 1))
        if agent not in ("random", "heuristic", "scripted", "human"):
            raise DiagnosticError(error("U100", f"'{agent}' is not an agent: random, heuristic, scripted or human"))
        players[name] = agent
    return players


def _parse_bids(items: list[str]) -> dict[str, int]:
    """--bid SIDE=IPCS (repeatable): the IPCs of each side or power named; a malformed item or a
    negative amount is U112, a name given twice U113 (names are checked against the map later)."""
    bids: dict[str, int] = {}
    for item in items:
        name, sep, amount = (x.strip() for x in item.partition("="))
        if not sep or not name:
            raise DiagnosticError(error("U112", f"--bid takes SIDE=IPCS (a side or a power and a number of IPCs), "
                                                f"not '{item}'", None))
        if not amount.isdigit():
            raise DiagnosticError(error("U112", f"--bid {name}={amount}: a bid is a whole number of IPCs, at least 0",
                                        None))
        if name in bids:
            raise DiagnosticError(error("U113", f"--bid names {name} twice", None))
        bids[name] = int(amount)
    return bids


def cmd_play(args) -> int:
    """`ruleslang play`: a new game, or a saved one resumed, printed round by round; saved and logged."""
    # start-up time: the runtime loads only for the game commands
    from ruleslang.runtime import saves
    from ruleslang.runtime.report import RoundPrinter

    ws = open_workspace(args)
    players = parse_players(args.players)
    problem = _play_usage(args, players)
    if problem:
        return report_diagnostics([error("U100", problem)], args.format)
    bids = _parse_bids(args.bids)
    resumed = None
    if args.resume:
        # new agents for what comes after the record (the record answers everything before)
        resumed = resume(args.resume, rounds=args.rounds, agent=args.agent, players=players, orders=args.orders,
                         workspace=ws)
        game, rounds, scenario_text = resumed.game, resumed.rounds, resumed.scenario_text
        if not args.save:
            print(f"note: the resumed game is not saved; add --save {args.resume} to keep it", file=sys.stderr)
    else:
        defaults = play_defaults(ws.roots)
        scenario_text = read_scenario_text(ws, args.scenario)
        # the rulesets: named on the command line, else those the scenario names, else the default game
        refs = args.refs or scenario_rulesets(ws, args.scenario, scenario_text) or list(defaults.get("rulesets") or [])
        if not refs:
            print("ruleslang play: error: name the rulesets (--ruleset REF); no defaults.yaml gives a default game",
                  file=sys.stderr)
            return EXIT_USAGE
        rounds = args.rounds or int(defaults.get("rounds", 10))
        game = new_game(refs, seed=1 if args.seed is None else args.seed, rounds=rounds, players=players,
                        agent=args.agent or defaults.get("agent", "heuristic"), scenario=args.scenario,
                        settings=args.settings, orders=args.orders, bids=bids, scenario_text=scenario_text,
                        workspace=ws)
    # the loaded program lives as long as the process: out of the collector's full passes, and
    # the young generations collected as a game's objects want (runtime/collector.py; a compare
    # worker's LoadedOnce does the same)
    collector.for_play()
    # under --format json standard output is the result alone; what a person reads goes to stderr
    text = sys.stderr if args.format == "json" else sys.stdout
    if args.show_composition:
        show_composition(game.loaded.ruleset, args.format)
    elif not args.quiet:
        print("Rulesets: " + ", ".join(composition_rulesets(game.loaded.ruleset)), file=text)
    printer = RoundPrinter(text, quiet=args.quiet, live=sys.stderr.isatty() and not args.quiet)

    def after_round(g, summary, saved=False):
        printer.round(g, summary)
        if saved:
            return  # a resumed game inside the saved rounds: nothing is written until every one of them matched
        if args.save:
            save(g, args.save, scenario_text=scenario_text)
        if args.log:
            saves.write_log(args.log, g, scenario_text)

    shown_bids = False

    def on_turn(g, player):
        nonlocal shown_bids
        if not shown_bids and not args.quiet:
            text.write("".join(line + "\n" for line in bid_lines(g.state.events)))
        shown_bids = True
        printer.turn(g, player)

    game.on_turn = on_turn
    result = resumed.run(after_round) if resumed is not None else game.run(rounds, progress=after_round)
    if args.save:
        save(game, args.save, scenario_text=scenario_text, finished=True)
    if args.log:
        saves.write_log(args.log, game, scenario_text, finished=True)
    printer.result(game, result)
    if args.format == "json":
        print(json.dumps(result, indent=2))
    return EXIT_OK


def bid_lines(events: list[dict]) -> list[str]:
    """What the bid stage (round 0) bought and where it went, a line a power; none without bids."""
    lines: list[str] = []
    money: dict[str, int] = {}
    for event in events:
        kind = event.get("kind")
        if kind == "round" and event.get("round") != 0:
            break
        if kind == "bid":
            money[event["player"]] = event["money"]
        elif kind == "bid_purchase":
            bought = ", ".join(f"{n} {t}" for t, n in event["units"].items()) or "nothing"
            lines.append(f"  {event['player']}: {bought} ({event['spent']} of {money.get(event['player'])} IPCs)")
        elif kind == "place" and lines:
            lines[-1] += " at " + ", ".join(space for space, _, _ in event["placed"])
    return ["Bids"] + lines if lines else []


def _play_usage(args, players: dict[str, str]) -> str | None:
    """What is wrong with the play command's options, before anything is played or written."""
    if args.rounds is not None and args.rounds < 1:
        return f"--rounds takes a number of rounds of at least 1, not {args.rounds}"
    if args.resume:
        fixed = [flag for flag, given in (("--ruleset", args.refs), ("--scenario", args.scenario),
                                          ("--set", args.settings), ("--seed", args.seed is not None),
                                          ("--bid", args.bids)) if given]
        if fixed:
            return (f"--resume goes on with the saved game's own rulesets, scenario, options, bids and seed; "
                    f"drop {', '.join(fixed)}")
    scripted = args.agent == "scripted" or "scripted" in players.values()
    if scripted and not args.orders:
        return "scripted players need their orders: --orders FILE (the format: ruleslang/runtime/agents/scripted.py)"
    for flag, path in (("--save", args.save), ("--log", args.log)):
        if path:
            problem = file_problem(path)
            if problem:
                return f"{flag} {path}: {problem}"
    return None


def scenario_rulesets(ws, name: str | None, text: str | None) -> list[str]:
    """The `rulesets:` a scenario names, each resolved in the workspace now, so a name that finds no
    ruleset is reported at its line of the scenario."""
    if not text:
        return []
    path = find_scenario(name, ws.roots) if name else None
    data, positions = load_yaml(Source(str(path or name or "<scenario>"), text))
    found = data.get("rulesets") if isinstance(data, dict) else None
    refs = [str(r) for r in found] if isinstance(found, list) else []
    problems = []
    for i, ref in enumerate(refs):
        try:
            ws.composer.resolve_ref(without_mark(ref), span=positions.span(("rulesets", i)))
        except DiagnosticError as exc:
            problems.extend(exc.diagnostics)
    if problems:
        raise DiagnosticError(problems)
    return refs


def read_scenario_text(ws, ref: str | None) -> str | None:
    """The text of the scenario file `ref` names (kept in saves and logs), None without one."""
    if ref is None:
        return None
    path = find_scenario(ref, ws.roots)
    return read_source(path).text if path is not None else None  # D608 for a file that is not UTF-8


def cmd_replay(args) -> int:
    """`ruleslang replay`: a saved or logged game played again from its record and compared, event by event."""
    # start-up time: the runtime loads only for the game commands
    from ruleslang.runtime import saves

    ws = open_workspace(args)
    if args.html:
        check_output_file(args.html)
    data = saves.read_record(args.record)
    if args.html:
        # start-up time: drawing the board needs networkx, loaded only when a page is asked for
        from ruleslang.reports.replay import render_replay
        from ruleslang.runtime.pictures import replay_document

        result, document = replay_document(ws, data, args.record)
    else:
        result = saves.replay(ws, data, args.record)
    if args.html and result.diverged is None and result.difference is None:
        write_output(args.html, render_replay(document))
        if args.format != "json":
            print(f"wrote {args.html}: the start and {len(document['frames']) - 1} rounds")
    elif args.html:
        print(f"ruleslang: {args.html} not written: the record does not replay the same", file=sys.stderr)
    if args.format == "json":
        # keys: record, match (bool), events (when all match), diverged (a reason), or the first
        # difference as event (1-based), recorded, replayed
        out: dict = {"record": args.record, "match": result.diverged is None and result.difference is None}
        if result.diverged is not None:
            out["diverged"] = str(result.diverged)
        elif result.difference is None:
            out["events"] = result.events
        else:
            index, recorded, replayed = result.difference
            out.update(event=index + 1, recorded=recorded, replayed=replayed)
        print(json.dumps(out, indent=2))
        return EXIT_OK if out["match"] else EXIT_ERRORS
    if result.diverged is not None:
        print(f"replay of {args.record}: diverged: {result.diverged}")
        return EXIT_ERRORS
    if result.difference is None:
        print(f"replay of {args.record}: all {result.events} events match")
        return EXIT_OK
    index, recorded, replayed = result.difference
    print(f"replay of {args.record}: diverges at event {index + 1}")
    print(f"  recorded: {json.dumps(recorded)}")
    print(f"  replayed: {json.dumps(replayed)}")
    return EXIT_ERRORS
