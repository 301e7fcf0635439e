"""Python calls of seeded house-rules heuristic games, and those under the placement planner (issue 15).

    python benchmarks/placement_calls.py [--seeds 1 2 3] [--rounds R]

Prints, per seed, every Python call of the game's play (`sys.setprofile`: calls of Python
functions, builtins and generator steps) and those made under `pack` (the placement planner:
the purchase's forecast, the placements and the look-ahead's quick policy), with the game's
event count (the same on two versions of the code that play alike). A count the machine's
load does not move: run it under each version's code with `PYTHONHASHSEED=0` and compare.
"""

from __future__ import annotations

import argparse
import sys

from ruleslang.compare.runner import LoadedOnce
from ruleslang.runtime.kit import placement
from ruleslang.runtime.saves import GameSetup, build_game

REFS = ["aar/house-rules@1"]


def counted(seed: int, rounds: int) -> tuple[int, int, int]:
    """(calls of the game's play, calls under `pack`, events) of one heuristic game."""
    game = build_game(LoadedOnce([]), GameSetup(refs=REFS, seed=seed, rounds=rounds, default_agent="heuristic"))
    planner = placement.pack.__code__
    counts = [0, 0]
    depth = [0]

    def profile(frame, event, arg):
        if event == "call" or event == "c_call":
            counts[0] += 1
            if depth[0]:
                counts[1] += 1
            if event == "call" and frame.f_code is planner:
                depth[0] += 1
        elif event == "return" and frame.f_code is planner:
            depth[0] -= 1

    sys.setprofile(profile)
    try:
        game.run(rounds)
    finally:
        sys.setprofile(None)
    return counts[0], counts[1], len(game.state.events)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, nargs="+", default=[1, 2, 3])
    parser.add_argument("--rounds", type=int, default=10)
    args = parser.parse_args()
    for seed in args.seeds:
        calls, under, events = counted(seed, args.rounds)
        print(f"seed {seed}: {calls:,} calls, {under:,} under pack ({under / calls:.1%}), {events} events")


if __name__ == "__main__":
    main()
