"""`ruleslang compare`: variants played on the same seeds, every game stored as it finishes, the
figures with their intervals (docs/compare.md). The engine is ruleslang/compare/; this module
reads the command line, builds the variants and their games, and prints the table or the document."""

from __future__ import annotations

import argparse
import hashlib
import importlib.util
import json
import math
import os
import sys
from pathlib import Path

from ruleslang.base.version import VERSION
from ruleslang.base.diagnostics import DiagnosticError, error
from ruleslang.cli.game import parse_players, play_defaults, read_scenario_text, scenario_rulesets
from ruleslang.cli.inputs import load_composition, ruleset_folders
from ruleslang.cli.output import EXIT_OK, check_output_file, write_output

COMPARE_DESCRIPTION = """\
Play the same games under two or more variants and compare them. Game i of every variant is
played on the same seed, by the same agents, from the same scenario (a paired design), so the
differences are measured on matched games. Prints each variant's side win rates with Wilson 95%
intervals, and each variant's difference against the first (A) with its interval, p-value and
whether it is significant, beside the agents' own side skew under A. --format json prints every
figure (docs/compare.md explains each).

A variant is REF, REF+REF+... (a composition) or a scenario file (.yaml) whose `rulesets:` give
the composition. --with REF+... composes every variant with the rest of a game: a variant's
ruleset takes the place of the one of the same family and name inside it.

Every finished game is committed to the store (--store DIR, an SQLite file) at once: an
interrupted run (Ctrl-C, a kill) loses only the games being played, and --resume plays only the
missing ones. A progress bar (games done, games/s, time left) is shown on a terminal.
"""

COMPARE_EPILOG = """\
examples (FAMILY/RULE stands for a ruleset that `ruleslang list` shows; README.md has real ones):
  ruleslang compare FAMILY/RULE@1 FAMILY/RULE@2 --with FAMILY/ALL@1
  ruleslang compare FAMILY/ALL@1 FAMILY/BASE@1+FAMILY/RULE@2 --games 200
  ruleslang compare FAMILY/ALL@1 FAMILY/BASE@1 --games auto --precision 0.05 --max-games 2000
  ruleslang compare a.rules b.rules --store runs/ab --resume --format json
"""

AUTO_FIRST_BATCH = 100
DEFAULT_MAX_GAMES = 2000
DEFAULT_AUTO_PRECISION = 0.05


def add_parser(sub, common) -> None:
    """Register `compare` on the subcommand parser `sub`; `common` adds --rulesets and --format."""
    p = sub.add_parser("compare", help="compare variants by playing the same games under each",
                       description=COMPARE_DESCRIPTION, epilog=COMPARE_EPILOG,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("variants", nargs="+", metavar="VARIANT",
                   help="two or more: REF, REF+REF+... or a scenario file (.yaml) naming its rulesets")
    p.add_argument("--with", dest="rest", metavar="REF+...",
                   help="the rest of the game every variant is composed with (a REF or REF+REF+...)")
    p.add_argument("--games", default="100", metavar="N|auto",
                   help="games per variant (default 100); auto: play in batches until every win-rate "
                        "interval is narrower than --precision, or --max-games")
    p.add_argument("--precision", type=float, metavar="P",
                   help=f"with --games auto: the widest a win-rate interval may be (default "
                        f"{DEFAULT_AUTO_PRECISION})")
    p.add_argument("--max-games", type=int, metavar="M",
                   help=f"with --games auto: stop after M games per variant (default {DEFAULT_MAX_GAMES})")
    p.add_argument("--rounds", type=int, help="play at most this many rounds a game (default 10)")
    p.add_argument("--scenario", metavar="FILE", help="start every game from a scenario (default: the map's start)")
    p.add_argument("--players", metavar="P=AGENT,...", default="",
                   help="agents per player (random or heuristic), as PLAYER=AGENT,PLAYER=AGENT")
    p.add_argument("--agent", default=None, choices=["random", "heuristic"],
                   help="the agent of every player --players does not name (default heuristic)")
    p.add_argument("--seed", type=int, default=1, help="the seed the games' seeds are derived from (default 1)")
    p.add_argument("--jobs", type=int, metavar="K", help="play in K processes (default: the number of cores); with "
                                                          "--backend dask and no --scheduler, a local cluster of K workers")
    p.add_argument("--backend", choices=["local", "dask"], default="local",
                   help="local: processes of this machine (default); dask: a Dask cluster (pip install "
                        "'ruleslang[dask]'; docs/compare.md 'On a cluster')")
    p.add_argument("--scheduler", metavar="ADDRESS",
                   help="with --backend dask: the scheduler of an existing cluster (tcp://HOST:8786); without it, "
                        "a LocalCluster")
    p.add_argument("--store", metavar="DIR", default=None,
                   help="the folder of the results store (default: REPORT.store beside -o's file, else "
                        "compare-store)")
    p.add_argument("--resume", action="store_true",
                   help="go on with the store's comparison: play only the games it lacks (refused when the "
                        "variants, rulesets, scenario, rounds, agents, seed or ruleslang differ)")
    p.add_argument("-o", "--output", metavar="REPORT.html",
                   help="also write the comparison as one self-contained HTML page of charts and tables "
                        "(docs/reports.md); the text or JSON still goes to standard output")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    common(p)


def _usage(args) -> tuple[int | None, float | None, int]:
    """The number of games (None: auto), the precision and the cap, or U120 (U107: -o cannot be written) for what is wrong."""
    problems = []
    if len(args.variants) < 2:
        problems.append("name at least two variants to compare (REF, REF+REF+... or a scenario file)")
    games = None
    if args.games != "auto":
        games = int(args.games) if args.games.isdigit() else 0
        if games < 1:
            problems.append(f"--games takes a number of games of at least 1 or 'auto', not '{args.games}'")
        for flag, given in (("--precision", args.precision), ("--max-games", args.max_games)):
            if given is not None:
                problems.append(f"{flag} goes with --games auto")
    precision = args.precision if args.precision is not None else (DEFAULT_AUTO_PRECISION if games is None else None)
    if precision is not None and not 0 < precision < 1:
        problems.append(f"--precision takes a width between 0 and 1, not {args.precision}")
    cap = args.max_games if args.max_games is not None else DEFAULT_MAX_GAMES
    for flag, value in (("--max-games", cap), ("--rounds", args.rounds), ("--jobs", args.jobs)):
        if value is not None and value < 1:
            problems.append(f"{flag} takes a whole number of at least 1, not {value}")
    if args.scheduler and args.backend != "dask":
        problems.append("--scheduler goes with --backend dask")
    if args.backend == "dask" and importlib.util.find_spec("distributed") is None:
        raise DiagnosticError(error("U126", "--backend dask needs dask.distributed, which is not installed",
                                    hint="pip install 'ruleslang[dask]' (here and on every worker)"))
    if problems:
        raise DiagnosticError([error("U120", p) for p in problems])
    if args.output:
        check_output_file(args.output)  # U107 before any game is played
    return games, precision, cap


def store_folder(args) -> Path:
    """--store, else a folder beside the report (`REPORT.store`), else `compare-store`."""
    if args.store:
        return Path(args.store)
    if args.output:
        report_path = Path(args.output)
        return report_path.with_name(report_path.stem + ".store")
    return Path("compare-store")


def _sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def cmd_compare(args) -> int:
    """`ruleslang compare`: play, store and summarise the variants' games."""
    games, precision, cap = _usage(args)
    # start-up time: the runtime, scipy and the store load only for this command
    from ruleslang.compare import cluster, compositions, distributions, report, runner
    from ruleslang.compare.store import STORE_FORMAT, STORE_VERSION, Store
    from ruleslang.lang.diff import diff_rulesets
    from ruleslang.runtime.game import ruleset_sources
    from ruleslang.runtime.saves import GameSetup, build_game

    ws = runner.LoadedOnce(ruleset_folders(args))  # the games played here reuse what is loaded to check
    players = parse_players(args.players)
    unplayable = sorted({a for a in players.values() if a not in ("random", "heuristic")})
    if unplayable:
        raise DiagnosticError(error("U120", f"--players: compare plays its games with random or heuristic agents, "
                                            f"not {', '.join(unplayable)}"))
    defaults = play_defaults(ws.roots)
    rounds = args.rounds or int(defaults.get("rounds", 10))
    agent = args.agent or defaults.get("agent", "heuristic")
    rest = compositions.split_composition(args.rest) if args.rest else []
    variants = []
    for index, given in enumerate(args.variants):
        scenario, text = args.scenario, read_scenario_text(ws, args.scenario)
        if compositions.is_scenario_file(given):
            scenario, text = given, read_scenario_text(ws, given)
            refs = scenario_rulesets(ws, given, text)
            if not refs:
                raise DiagnosticError(error("U122", f"the scenario {given} names no `rulesets:` to play",
                                            file=given, hint="a variant is REF, REF+REF+... or a scenario file "
                                                             "whose `rulesets:` give the composition"))
        else:
            refs = compositions.split_composition(given)
        if rest:
            refs = compositions.swap_into(ws.composer, rest, refs)
        variants.append(compositions.Variant(compositions.variant_name(index), given, tuple(refs), scenario, text))

    infos, header_variants, loaded_of = [], [], []
    sides = powers = None
    for v in variants:
        loaded = load_composition(ws, v.refs)
        hashes = {ref: _sha256(src.text) for ref, src in sorted(ruleset_sources(loaded).items())}
        # one game built here checks the scenario and --players against the composition before any is played
        game = build_game(ws, GameSetup(refs=list(v.refs), scenario=v.scenario, seed=args.seed, rounds=rounds,
                                        players=players, default_agent=agent), scenario_text=v.scenario_text)
        these_sides, turn = runner.sides_and_powers(game)
        if powers is None:
            sides, powers = these_sides, turn
        elif (these_sides, turn) != (sides, powers):
            raise DiagnosticError(error("U124", f"variant {v.name} ({v.given}) is played by other powers or sides "
                                                f"than variant A: {', '.join(turn)}, not {', '.join(powers)}",
                                        hint="the variants of a comparison are played on one map"))
        infos.append(report.VariantInfo(v.name, v.label, list(v.refs), hashes))
        header_variants.append({"composition": list(v.refs), "rulesets": hashes, "scenario": v.scenario,
                                "scenario_sha256": None if v.scenario_text is None else _sha256(v.scenario_text)})
        loaded_of.append(loaded)

    header = {"format": STORE_FORMAT, "version": STORE_VERSION, "ruleslang": VERSION, "seed": args.seed,
              "rounds": rounds, "agents": {"default": agent, "players": players}, "variants": header_variants}
    store = Store.open(store_folder(args), header, resume=args.resume)
    jobs = args.jobs or os.cpu_count() or 1
    agents = tuple(sorted(players.items()))

    def tasks(target: int, done) -> list:
        return [runner.GameTask(v, g, x.refs, x.scenario, x.scenario_text, runner.game_seed(args.seed, g), rounds,
                                agents, agent)
                for g in range(target) for v, x in enumerate(variants) if (v, g) not in done]

    if args.backend == "dask":  # the rulesets travel with the work, checked before the store is touched
        bundle = cluster.bundle_of(ws, [v.refs for v in variants])

        def play(todo, finished):
            cluster.play_on_dask(todo, bundle, finished, scheduler=args.scheduler, workers=jobs)
    else:
        def play(todo, finished):
            runner.play_all(ws, list(args.rulesets), todo, min(jobs, max(1, len(todo))), finished)
    try:
        target, stopped = _play(store, tasks, sides, play, games=games, precision=precision, cap=cap,
                                live=not args.quiet and sys.stderr.isatty())
        records = store.records()
    finally:
        store.close()
    settings = {"games": target, "rounds": rounds, "seed": args.seed, "scenario": args.scenario,
                "agents": {"default": agent, "players": players}, "precision": precision if games is None else None,
                "jobs": jobs, "backend": args.backend}
    if stopped:
        settings["stopped"] = stopped
    diffs = [diff_rulesets(loaded_of[0].ruleset, loaded.ruleset) for loaded in loaded_of[1:]]
    diff = [{"a": infos[0].name, "b": info.name, "lines": d.to_text().splitlines()}
            for info, d in zip(infos[1:], diffs)]
    dists = distributions.distributions(
        ws, [(info.name, loaded, v.scenario) for info, loaded, v in zip(infos, loaded_of, variants)],
        [name for d in diffs for name in distributions.changed_names(d.to_json())])
    doc = report.build_document(settings=settings, sides=sides, powers=powers, variants=infos,
                                records=[[records[(v, g)] for g in range(target)] for v in range(len(variants))],
                                diff=diff, distributions=dists)
    if args.output:
        # start-up time: plotly loads only when a report is drawn
        from ruleslang.reports.compare import render_compare
        write_output(args.output, render_compare(doc))
    print(json.dumps(doc, indent=2) if args.format == "json" else report.render_text(doc))
    if args.output and args.format != "json":
        print(f"wrote {args.output} (the games are stored in {store_folder(args)})")
    return EXIT_OK


def _play(store, tasks, sides: list[str], play, *, games: int | None, precision: float | None, cap: int,
          live: bool) -> tuple[int, str | None]:
    """Play the missing games (`tasks(target, done)` lists them, `play(todo, finished)` plays them on
    the backend): `games` of each variant, or
    (auto) in batches until every win-rate interval is narrower than `precision` or `cap` games
    are played. The number of games the figures are made of, and what stopped an automatic run
    (None for a fixed number)."""
    # start-up time: the engine and the progress bar load only when games are played
    from ruleslang.compare import compositions, report
    from tqdm import tqdm

    done = set(store.records())
    target = games if games is not None else min(AUTO_FIRST_BATCH, cap)
    bar = tqdm(total=0, unit="game", disable=not live, file=sys.stderr, dynamic_ncols=True)

    def finished(task, record, seconds):
        store.add(task.variant, task.game, record, seconds)
        done.add((task.variant, task.game))
        bar.update(1)

    try:
        while True:
            todo = tasks(target, done)
            bar.total += len(todo)
            bar.refresh()
            play(todo, finished)
            if games is not None:
                return target, None
            records = store.records()
            variants = sorted({v for v, _ in records})
            widest, where = max((outcome["win"]["high"] - outcome["win"]["low"], f"{compositions.variant_name(v)} {side} win")
                                for v in variants
                                for side, outcome in report.outcome_rates(
                                    [records[(v, g)] for g in range(target)], sides).items() if side in sides)
            if widest < precision:
                return target, f"stopped after {target} games: every win-rate interval is narrower than {precision}"
            if target >= cap:
                return target, (f"stopped at --max-games {cap}: the widest win-rate interval, {where}, is "
                                f"{widest:.3f} wide (--precision {precision})")
            target = min(cap, max(target + AUTO_FIRST_BATCH, math.ceil(target * (widest / precision) ** 2 * 1.05)))
    except KeyboardInterrupt:
        bar.close()
        print(f"ruleslang compare: interrupted; {len(done)} games are in {store.path}: --resume goes on with them",
              file=sys.stderr)
        raise
    finally:
        bar.close()
