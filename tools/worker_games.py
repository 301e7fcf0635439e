"""Play compare games in one process as a compare worker plays them, and print their CPU time.

    python tools/worker_games.py N [FIRST] [--variant house|base|both] [--profile OUT.txt]

Plays games FIRST..FIRST+N-1 of `benchmarks/compare.py`'s two variants (the default game,
aar/house-rules@1, and aar/base@1; heuristic agents, 10 rounds, the compare's seeds) through the
compare engine's `GamePlayer` (the record a worker makes, `full_record=False`), after one
warm-up game, and prints the CPU milliseconds a game. Alternate it between two trees
(`PYTHONPATH=TREE`) to compare them in turns. `--profile OUT.txt` samples the games with
pyinstrument (`pip install pyinstrument`; it about doubles their time) and writes its text
report there and its session beside it (OUT.txt.pyisession)."""

from __future__ import annotations

import argparse
import sys
import time

from ruleslang.compare.runner import GamePlayer, GameTask, LoadedOnce, game_seed

VARIANTS = {"house": [["aar/house-rules@1"]], "base": [["aar/base@1"]],
            "both": [["aar/house-rules@1"], ["aar/base@1"]]}


def main() -> None:
    """Parse the arguments, play, print (see the module's docstring)."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("games", type=int, help="games of each variant")
    parser.add_argument("first", type=int, nargs="?", default=0, help="the first game's number (default 0)")
    parser.add_argument("--variant", choices=sorted(VARIANTS), default="both")
    parser.add_argument("--profile", metavar="OUT", help="sample the games with pyinstrument into OUT")
    args = parser.parse_args()
    variants = VARIANTS[args.variant]
    player = GamePlayer(LoadedOnce([]))
    for refs in variants:
        player.workspace.load(refs)
    tasks = [GameTask(v, g, tuple(refs), None, None, game_seed(1, g), 10, (), "heuristic")
             for g in range(args.first, args.first + args.games) for v, refs in enumerate(variants)]
    if len(tasks) < 2:
        parser.error("nothing to time after the warm-up game: ask for more games (or both variants)")
    player.play(tasks[0])  # the warm-up: its caches filled as a worker's are after its first game
    profiler = None
    if args.profile:
        try:
            from pyinstrument import Profiler
        except ImportError:
            sys.exit("--profile needs pyinstrument: pip install pyinstrument")
        profiler = Profiler(interval=0.0005)
        profiler.start()
    start = time.process_time()
    for task in tasks[1:]:
        player.play(task)
    seconds = time.process_time() - start
    if profiler is not None:
        profiler.stop()
        with open(args.profile, "w") as out:
            out.write(profiler.output_text(unicode=False, color=False))
        profiler.last_session.save(args.profile + ".pyisession")
    played = len(tasks) - 1
    print(f"{played} games in {seconds:.2f} s of CPU: {seconds / played * 1000:.1f} ms a game")


if __name__ == "__main__":
    main()
