"""How fast `ruleslang compare` plays: games per minute with --jobs 1 and --jobs 2, on a Dask
LocalCluster of 1 and 2 workers (when dask.distributed is installed), and the time a 10,000-game
comparison would take on this machine.

    python benchmarks/compare.py [--games N] [--rounds R] [--agent AGENT] [VARIANT VARIANT]

Plays the same N games of each of two variants (default: the shipped default game against the
standard rules alone) through the compare engine (ruleslang/compare/runner.py) once in one
process and once in two worker processes, then on LocalClusters of one and two workers (the
cluster's start and the rulesets' bundle inside the timing), each run from cold (the compositions
loaded inside the timing, as a real run loads them), and prints games per minute of each with the
ratio against --jobs 1 measured in the same run, then the projected time of 10,000 games a variant at the
faster rate. The machine's other load counts: run it on a quiet machine for figures to compare.

Last, the projection of issue 15's target, "10,000 house-rules games in under 15 minutes on this
machine's two cores": 10,000 games in all (5,000 a variant), with --jobs 2. A short run's rate is
mostly the workers' loading, so the games' own rate is taken at the margin: the same run again
with twice the games, the extra games over the extra seconds; the projection is the loading (the
first run's time less its games at that rate) plus 10,000 games at it. Each of the two runs is
made --repeat times (default 3), in turns, and the least time of each is taken: other work on the
machine only adds time, and a single pair moved the projection by a fifth between runs of the
same code. The margin rests on the games the longer run adds (half of its games); a change of the
agents' play changes which of those are long, so the projection at the longer run's whole rate
(all its games, loading included) is printed too: compare two trees whose play differs by that
one, over more games (docs/performance.md, "Where the targets stand after session 26").
"""

from __future__ import annotations

import argparse
import importlib.util
import time

from ruleslang.compare.cluster import bundle_of, play_on_dask
from ruleslang.compare.runner import GameTask, LoadedOnce, game_seed, play_all


def measure(variants: list[list[str]], games: int, rounds: int, agent: str, jobs: int,
            dask: bool = False) -> tuple[float, int]:
    """Seconds to play `games` games of every variant with `jobs` processes, or a LocalCluster of
    `jobs` workers (loading included), and the number of games played."""
    tasks = [GameTask(v, g, tuple(refs), None, None, game_seed(1, g), rounds, (), agent)
             for g in range(games) for v, refs in enumerate(variants)]
    played = []
    start = time.perf_counter()
    if dask:
        play_on_dask(tasks, bundle_of(LoadedOnce([]), variants), lambda task, record, seconds: played.append(task),
                     scheduler=None, workers=jobs)
    else:
        play_all(LoadedOnce([]), [], tasks, jobs, lambda task, record, seconds: played.append(task))
    return time.perf_counter() - start, len(played)


def main() -> None:
    """Measure and print (see the module's docstring)."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("variants", nargs="*", default=["aar/house-rules@1", "aar/base@1"], metavar="VARIANT",
                        help="two compositions, each REF or REF+REF+...")
    parser.add_argument("--games", type=int, default=6, help="games per variant in each run (default 6)")
    parser.add_argument("--rounds", type=int, default=10, help="rounds a game (default 10)")
    parser.add_argument("--agent", default="heuristic", choices=["random", "heuristic"])
    parser.add_argument("--repeat", type=int, default=3,
                        help="runs of each size for the 15-minute projection, the least time taken (default 3)")
    args = parser.parse_args()
    variants = [v.split("+") for v in args.variants]
    rates = {}
    for jobs in (1, 2):
        seconds, played = measure(variants, args.games, args.rounds, args.agent, jobs)
        rates[jobs] = played * 60 / seconds
        print(f"--jobs {jobs}: {played} games in {seconds:.1f} s: {rates[jobs]:.2f} games/min, "
              f"{rates[jobs] / rates[1]:.2f} x --jobs 1")
    if importlib.util.find_spec("distributed") is None:
        print("Dask LocalCluster: not measured (dask.distributed is not installed: pip install 'ruleslang[dask]')")
    else:
        for workers in (1, 2):
            seconds, played = measure(variants, args.games, args.rounds, args.agent, workers, dask=True)
            rates[f"dask {workers}"] = played * 60 / seconds
            print(f"Dask LocalCluster of {workers} worker(s): {played} games in {seconds:.1f} s: "
                  f"{rates[f'dask {workers}']:.2f} games/min, {rates[f'dask {workers}'] / rates[1]:.2f} x --jobs 1")
    best = max(rates.values())
    total = 10_000 * len(variants)
    print(f"projected: 10,000 games a variant, {len(variants)} variants ({total:,} games, {args.rounds} rounds, "
          f"{args.agent} agents): {total / best / 60:.1f} h at {best:.2f} games/min")
    print_target(variants, args)


def print_target(variants: list[list[str]], args: argparse.Namespace) -> None:
    """Print the projection of 10,000 games in all on two processes, from the marginal rate of a
    run with twice the games (see the module's docstring)."""
    shorts, longs = [], []
    for _ in range(max(1, args.repeat)):  # in turns: a change of the machine's load falls on both sizes
        shorts.append(measure(variants, args.games, args.rounds, args.agent, 2))
        longs.append(measure(variants, 2 * args.games, args.rounds, args.agent, 2))
    short, short_played = min(shorts)
    long, long_played = min(longs)
    if long <= short:
        print("10,000 games in all: not projected (the longer run was not slower: the machine's load changed)")
        return
    per_game = (long - short) / (long_played - short_played)
    loading = max(0.0, short - short_played * per_game)
    minutes = (loading + 10_000 * per_game) / 60
    print(f"10,000 games in all ({10_000 // len(variants):,} a variant, {args.agent} agents, --jobs 2): "
          f"{minutes:.1f} min (target < 15 min): {per_game * 1000:.0f} ms a game at the margin "
          f"({short_played} games in {short:.1f} s, {long_played} in {long:.1f} s, the least of {len(shorts)} runs each), "
          f"{loading:.1f} s of loading")
    # the margin is taken from the games the longer run plays beyond the shorter (half of its
    # games): a change of play changes which of them are long, so the longer run's own rate, every
    # game of it and its loading counted, is printed beside it (an upper bound on the same games)
    whole = long / long_played * 10_000 / 60
    print(f"10,000 games in all at the longer run's whole rate ({long_played} games in {long:.1f} s, loading "
          f"included): {whole:.1f} min")


if __name__ == "__main__":
    main()
