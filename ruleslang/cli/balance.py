"""`ruleslang balance`: the bid that brings a side's chance closest to one half (docs/compare.md)."""

from __future__ import annotations

import argparse
import json
import os
import sys

from ruleslang.base.diagnostics import DiagnosticError, error
from ruleslang.cli.game import parse_players, play_defaults
from ruleslang.cli.inputs import load_composition, ruleset_folders
from ruleslang.cli.output import EXIT_OK

BALANCE_DESCRIPTION = """\
Search the bid that balances a composition: the IPCs of units a side buys and places before round 1
(`play --bid`) that bring its chance to win or lead at the end closest to one half. Every bid is
played on the same seeds; the bid doubles from --step until the side reaches one half (or
--max-bid), then the bracket is halved down to --step. Prints every bid tried, the side's rate with
its Wilson 95% interval, and the bid closest to one half."""


def add_parser(sub, common) -> None:
    """Register `balance` on the subcommand parser `sub`; `common` adds --rulesets and --format."""
    p = sub.add_parser("balance", help="the bid that brings a side's chance closest to one half",
                       description=BALANCE_DESCRIPTION, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("composition", metavar="REF", help="the game to balance: REF or REF+REF+...")
    p.add_argument("--side", help="the side that bids (default: the side less often on top without a bid)")
    p.add_argument("--games", type=int, default=50, help="games played for each bid tried (default 50)")
    p.add_argument("--rounds", type=int, help="rounds a game at most (default 10)")
    p.add_argument("--step", type=int, default=6, help="the first bid and the finest difference searched (default 6)")
    p.add_argument("--max-bid", type=int, default=96, help="the largest bid tried (default 96)")
    p.add_argument("--players", metavar="P=AGENT,...", default="", help="agents per player (random or heuristic)")
    p.add_argument("--agent", default=None, choices=["random", "heuristic"],
                   help="the agent of every player --players does not name (default heuristic)")
    p.add_argument("--seed", type=int, default=1, help="the seed the games' seeds are derived from (default 1)")
    p.add_argument("--jobs", type=int, metavar="K", help="play in K processes (default: the number of cores)")
    p.add_argument("--quiet", action="store_true", help="print only the result")
    common(p)


def cmd_balance(args) -> int:
    """`ruleslang balance`: play each bid tried, print the trials and the bid closest to one half."""
    # start-up time: the engine loads only for this command
    from ruleslang.compare import balance, compositions, runner
    from ruleslang.compare.report import on_top
    from ruleslang.runtime.saves import GameSetup, build_game

    for flag, value in (("--games", args.games), ("--step", args.step), ("--max-bid", args.max_bid),
                        ("--rounds", args.rounds), ("--jobs", args.jobs)):
        if value is not None and value < 1:
            raise DiagnosticError(error("U120", f"{flag} takes a whole number of at least 1, not {value}"))
    ws = runner.LoadedOnce(ruleset_folders(args))
    refs = compositions.split_composition(args.composition)
    load_composition(ws, refs)
    players = parse_players(args.players)
    defaults = play_defaults(ws.roots)
    rounds = args.rounds or int(defaults.get("rounds", 10))
    agent = args.agent or defaults.get("agent", "heuristic")
    game = build_game(ws, GameSetup(refs=list(refs), scenario=None, seed=args.seed, rounds=rounds, players=players,
                                    default_agent=agent))
    sides, _ = runner.sides_and_powers(game)
    if args.side is not None and args.side not in sides:
        raise DiagnosticError(error("U127", f"--side {args.side}: the sides of this game are {', '.join(sides)}"))
    jobs = args.jobs or os.cpu_count() or 1
    seeds = [runner.game_seed(args.seed, g) for g in range(args.games)]
    agents = tuple(sorted(players.items()))

    def records(bids: dict[str, int]) -> list[dict]:
        tasks = [runner.GameTask(0, g, tuple(refs), None, None, seed, rounds, agents, agent, tuple(sorted(bids.items())))
                 for g, seed in enumerate(seeds)]
        found: list[dict] = []
        runner.play_all(ws, list(args.rulesets), tasks, min(jobs, len(tasks)), lambda t, r, s: found.append(r))
        return found

    unbid = records({})
    side = args.side or min(sides, key=lambda s: (sum(on_top(r, s) for r in unbid), s))

    def play(bid: int):
        found = unbid if bid == 0 else records({side: bid})
        trial = balance.Trial(bid, len(found), sum(on_top(r, side) for r in found))
        if not args.quiet and args.format != "json":
            rate = trial.rate
            print(f"  bid {bid:>3}: {side} on top in {trial.count}/{trial.games} "
                  f"({rate['rate']:.2f} [{rate['low']:.2f},{rate['high']:.2f}])", file=sys.stderr)
        return trial

    trials = balance.search(play, step=args.step, max_bid=args.max_bid)
    chosen = balance.best(trials)
    if args.format == "json":
        print(json.dumps({"composition": list(refs), "side": side, "games": args.games, "rounds": rounds,
                          "seed": args.seed, "trials": [t.to_json() for t in trials], "best": chosen.to_json()},
                         indent=2))
        return EXIT_OK
    rate = chosen.rate
    reached = any(t.count / t.games >= balance.TARGET for t in trials)
    print(f"{side} bids {chosen.bid} IPCs: on top in {rate['rate']:.2f} of {chosen.games} games "
          f"[{rate['low']:.2f},{rate['high']:.2f}] (won, or ahead on score after {rounds} rounds)")
    if not reached:
        print(f"  even a bid of {max(t.bid for t in trials)} IPCs does not bring {side} to one half; "
              f"raise --max-bid to search further")
    return EXIT_OK
