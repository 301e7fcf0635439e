"""How fast the heuristic agent's quick battle simulation throws: microseconds an estimate (60
trials) of battles of one-hit units, thrown a die for each unit and with each side's hits of a
round drawn at once (the SPARE part "tally"), in turns, and the ratio of the two measured in the
same run.

    python benchmarks/quick_battle.py [--estimates N] [--repeat R]

The battles are drawn once from a fixed seed: 1 to 8 units a side, fire values 1-4, costs 3-12,
the attack counting only battles a unit that takes territory outlives (`takes`), as the attack
plan's estimates count them. CPU time (`time.process_time`); the least of --repeat rounds of each.
"""

from __future__ import annotations

import argparse
import random
import time

from ruleslang.runtime.agents.quick_battle import simulate


def battles(count: int) -> list[tuple[tuple, tuple]]:
    """`count` battles of one-hit units, drawn from a fixed seed."""
    pick = random.Random(5)
    drawn = []
    for _ in range(count):
        attack = tuple((pick.choice([1, 2, 3, 4]), pick.choice([3, 5, 10, 12]), 1, True)
                       for _ in range(pick.randint(1, 8)))
        defence = tuple((pick.choice([1, 2, 3, 4]), pick.choice([3, 5, 10, 12]), 1)
                        for _ in range(pick.randint(1, 8)))
        drawn.append((attack, defence))
    return drawn


def per_estimate(cases: list[tuple[tuple, tuple]], tally: bool) -> float:
    """CPU microseconds an estimate of `cases`, each thrown once."""
    rng = random.Random(1)
    start = time.process_time()
    for attack, defence in cases:
        simulate(attack, defence, rng, takes=True, tally=tally)
    return (time.process_time() - start) / len(cases) * 1e6


def main() -> None:
    """Measure and print (see the module's docstring)."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--estimates", type=int, default=3000, help="battles estimated a round (default 3000)")
    parser.add_argument("--repeat", type=int, default=5, help="rounds of each, in turns (default 5)")
    args = parser.parse_args()
    cases = battles(args.estimates)
    best = {False: float("inf"), True: float("inf")}
    for _ in range(args.repeat):
        for tally in (False, True):
            best[tally] = min(best[tally], per_estimate(cases, tally))
    print(f"a die for each unit: {best[False]:.1f} us an estimate")
    print(f"hits drawn at once (tally): {best[True]:.1f} us an estimate, {best[True] / best[False]:.2f}x")


if __name__ == "__main__":
    main()
