"""Seeded house-rules games with the heuristic agent on exact odds for every player (issues 10, 15).

    python benchmarks/exact_agents.py [--games N] [--rounds R] [--record DIR]

Prints each game's CPU time (play alone), the exact chain's share (`BattleOdds.seconds`) and its
queries by how they were answered (`BattleOdds.counts`). With `--record DIR`, writes each game's
events (DIR/seedN.log) and every answer the agents' battle odds gave, in order (DIR/seedN.odds),
so that two versions of the code can be compared for answers that must not change: run it with
each version's interpreter into two folders and `cmp` the files (the recording wrapper adds
CPU time; time without it).
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

from ruleslang.compare.runner import LoadedOnce
from ruleslang.runtime.agents.heuristic import HeuristicAgent
from ruleslang.runtime.saves import GameSetup, build_game, dumps_event

REFS = ["aar/house-rules@1"]


def recorded(odds, player: str, answers: list) -> None:
    """Make `odds` (a `BattleOdds`) note every answer of `chance` and `exchange` in `answers`."""
    for name in ("chance", "exchange"):
        real = getattr(odds, name)

        def wrapped(*args, _real=real, _name=name, **kwargs):
            found = _real(*args, **kwargs)
            answers.append(f"{player} {_name} {args[1:]!r} {sorted(kwargs.items())!r} -> {found!r}")
            return found
        setattr(odds, name, wrapped)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=3)
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--record", metavar="DIR")
    args = parser.parse_args()
    if args.record:
        os.makedirs(args.record, exist_ok=True)  # a new folder per version compared
    ws = LoadedOnce([])
    times, chain = [], []
    counts: dict[str, int] = {}
    for seed in range(1, args.games + 1):
        game = build_game(ws, GameSetup(refs=REFS, seed=seed, rounds=args.rounds, default_agent="heuristic"))
        answers: list[str] = []
        for player in list(game.agents):
            agent = game.agents[player] = HeuristicAgent(seed, player, odds="exact")
            if args.record:
                recorded(agent.battle_odds, player, answers)
        start = time.process_time()
        game.run(args.rounds)
        times.append(time.process_time() - start)
        odds = [a.battle_odds for a in game.agents.values()]
        chain.append(sum(o.seconds for o in odds))
        mine = {reason: sum(o.counts[reason] for o in odds) for reason in odds[0].counts}
        for reason, n in mine.items():
            counts[reason] = counts.get(reason, 0) + n
        if args.record:
            with open(f"{args.record}/seed{seed}.log", "w", encoding="utf-8") as file:
                file.write("".join(dumps_event(e) + "\n" for e in [game.start] + game.state.events))
            with open(f"{args.record}/seed{seed}.odds", "w", encoding="utf-8") as file:
                file.write("".join(line + "\n" for line in answers))
        print(f"seed {seed}: {times[-1]:.2f} s CPU, the chain {chain[-1]:.2f} s of it; queries {mine}", flush=True)
    print(f"{', '.join(REFS)}, {args.rounds} rounds, exact odds for every player: {statistics.mean(times):.2f} s CPU "
          f"per game, the chain {statistics.mean(chain):.2f} s; per game: "
          + ", ".join(f"{reason} {n / args.games:.1f}" for reason, n in counts.items()))


if __name__ == "__main__":
    main()
