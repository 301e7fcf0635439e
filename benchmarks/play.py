"""Game benchmarks: time per full Revised game, events per second, share of time in rule evaluation,
and how often the heuristic agent beats the random one.

    python benchmarks/play.py [--games N] [--matches N] [--rounds N] [--ruleset REF ...]

Targets (issue 5): < 0.5 s per 10-round game with random agents, < 3 s with heuristic agents;
heuristic beats random in > 90% of seeded games, on each side.
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import statistics
import sys
import time
from pathlib import Path

from ruleslang.workspace.compositions import Workspace
from ruleslang.runtime.saves import GameSetup, build_game

RULE_MODULES = ("compile.py", "compile_exact.py", "program.py", "procedures.py", "builtins.py", "context.py",
                "values.py", "exact.py")


def play(ws, refs, seed: int, rounds: int, agent: str, players: dict | None = None):
    setup = GameSetup(refs=refs, seed=seed, rounds=rounds, default_agent=agent, players=players or {})
    game = build_game(ws, setup)
    start = time.perf_counter()
    result = game.run(rounds)
    return game, result, time.perf_counter() - start


def rule_share(ws, refs, rounds: int, agent: str) -> float:
    """The share of one game's time spent inside the language's evaluation (profiled)."""
    profiler = cProfile.Profile()
    setup = GameSetup(refs=refs, seed=99, rounds=rounds, default_agent=agent)
    game = build_game(ws, setup)
    profiler.enable()
    game.run(rounds)
    profiler.disable()
    stats = pstats.Stats(profiler)
    total = stats.total_tt
    inside = sum(tt for (file, _, _), (_, _, tt, _, _) in stats.stats.items()
                 if Path(file).name in RULE_MODULES and "ruleslang" in file and "runtime" not in file)
    return inside / total if total else 0.0


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=5, help="games timed per agent kind (default 5)")
    parser.add_argument("--matches", type=int, default=100, help="seeded games per side for heuristic vs random")
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--ruleset", dest="refs", action="append", default=[])
    args = parser.parse_args(argv)
    refs = args.refs or ["aar/base@1"]
    ws = Workspace()
    print(f"python {sys.version.split()[0]}; rulesets {', '.join(refs)}; {args.rounds} rounds")

    for agent in ("random", "heuristic"):
        times, events = [], []
        for seed in range(1, args.games + 1):
            game, result, seconds = play(ws, refs, seed, args.rounds, agent)
            times.append(seconds)
            events.append(len(game.state.events))
        target = 0.5 if agent == "random" else 3.0
        print(f"{agent:>9} agents: {statistics.mean(times):.3f} s per game (min {min(times):.3f}, max {max(times):.3f}; "
              f"target < {target} s), {statistics.mean(events):.0f} events per game, "
              f"{sum(events) / sum(times):,.0f} events per second")
        share = rule_share(ws, refs, args.rounds, agent)
        print(f"{'':>9}         share of time in rule evaluation: {share:.0%}")

    # heuristic on one side, random on the other, every seed, both ways round
    game0 = build_game(ws, GameSetup(refs=refs, seed=0, rounds=1, default_agent="random"))
    sides = {}
    for player in game0.state.map.turn_order:
        sides.setdefault(game0.compiled.side_of_player[player], []).append(player)
    for side, members in sides.items():
        wins = outright = 0
        for seed in range(1, args.matches + 1):
            players = {p: ("heuristic" if p in members else "random") for p in game0.state.map.turn_order}
            _, result, _ = play(ws, refs, seed, args.rounds, "random", players)
            leader = result.get("winner") or result.get("ahead")
            wins += leader == side
            outright += result.get("winner") == side
        print(f"heuristic {side} vs random: heuristic wins or leads in {wins}/{args.matches} games "
              f"({wins / args.matches:.0%}; target > 90%); wins outright (a victory condition met) in {outright}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
