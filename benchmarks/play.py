"""Game benchmarks: speed, heuristic-vs-random wins, aircraft lost for want of a landing, factories bought.

Time per full Revised game, events per second, share of time in rule evaluation, how often the
heuristic agent beats the random one, and what the agents throw away or build: aircraft lost for
want of a landing and factories bought, per agent kind and game (read from the games' events).

    python benchmarks/play.py [--games N] [--matches N] [--rounds N] [--ruleset REF ...]

Targets (issue 5): < 0.5 s per 10-round game with random agents, < 3 s with heuristic agents;
heuristic beats random in > 90% of seeded games, on each side (issue 9: the heuristic loses no
aircraft for want of a landing).
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

LANDING_LOSS = "no place to land"  # the reason the move procedure gives when it removes stranded air units
RULE_MODULES = ("compile.py", "compile_exact.py", "program.py", "procedures.py", "builtins.py", "context.py",
                "values.py", "exact.py")


def play(ws, refs, seed: int, rounds: int, agent: str, players: dict | None = None):
    setup = GameSetup(refs=refs, seed=seed, rounds=rounds, default_agent=agent, players=players or {})
    game = build_game(ws, setup)
    start = time.perf_counter()
    result = game.run(rounds)
    return game, result, time.perf_counter() - start


class Tally:
    """Aircraft lost for want of a landing and factories bought, per agent kind, over games; read
    from each game's events: a `removed` event with the landing reason happens in the turn of the
    player whose units they were, a `purchase` event names its player and its `build` list."""

    def __init__(self):
        self.games: dict[str, int] = {}              # agent kind -> games it played in
        self.lost: dict[str, list[int]] = {}         # agent kind -> aircraft lost, per game
        self.factories: dict[str, list[int]] = {}    # agent kind -> factories bought, per game

    def add(self, events: list[dict], kinds: dict[str, str]) -> None:
        """Count one game's events; `kinds`: player -> agent kind."""
        lost = dict.fromkeys(sorted(set(kinds.values())), 0)
        built = dict(lost)
        player = None
        for event in events:
            kind = event.get("kind")
            if kind == "turn":
                player = event["player"]
            elif kind == "removed" and event.get("why") == LANDING_LOSS and player in kinds:
                lost[kinds[player]] += len(event["units"])
            elif kind == "purchase" and event.get("player") in kinds:
                built[kinds[event["player"]]] += len(event.get("build", []))
        for agent in lost:
            self.lost.setdefault(agent, []).append(lost[agent])
            self.factories.setdefault(agent, []).append(built[agent])

    def lines(self, label: str) -> list[str]:
        out = []
        for agent in sorted(self.lost):
            lost, built = self.lost[agent], self.factories[agent]
            out.append(f"{label}: {agent} agents lost {sum(lost)} aircraft for want of a landing in {len(lost)} "
                       f"games ({_per_game(lost)}); bought {sum(built)} factories ({_per_game(built)})")
        return out


def _per_game(counts: list[int]) -> str:
    """A count per game: each game's when there are few, else how many games had any and the most."""
    mean = f"{sum(counts) / len(counts):.2f} per game"
    if len(counts) <= 10:
        return f"{mean}: {', '.join(str(n) for n in counts)}"
    return f"{mean}, in {sum(1 for n in counts if n)} games, at most {max(counts)}"


def kinds_of(game) -> dict[str, str]:
    """Player -> the kind of agent playing it."""
    return {player: agent.name for player, agent in game.agents.items()}


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
        tally = Tally()
        for seed in range(1, args.games + 1):
            game, result, seconds = play(ws, refs, seed, args.rounds, agent)
            times.append(seconds)
            events.append(len(game.state.events))
            tally.add(game.state.events, kinds_of(game))
        target = 0.5 if agent == "random" else 3.0
        print(f"{agent:>9} agents: {statistics.mean(times):.3f} s per game (min {min(times):.3f}, max {max(times):.3f}; "
              f"target < {target} s), {statistics.mean(events):.0f} events per game, "
              f"{sum(events) / sum(times):,.0f} events per second")
        share = rule_share(ws, refs, args.rounds, agent)
        print(f"{'':>9}         share of time in rule evaluation: {share:.0%}")
        for line in tally.lines(f"{agent:>9} games"):
            print(line)

    # heuristic on one side, random on the other, every seed, both ways round
    game0 = build_game(ws, GameSetup(refs=refs, seed=0, rounds=1, default_agent="random"))
    sides = {}
    for player in game0.state.map.turn_order:
        sides.setdefault(game0.compiled.side_of_player[player], []).append(player)
    matches = Tally()
    for side, members in sides.items():
        wins = outright = 0
        for seed in range(1, args.matches + 1):
            players = {p: ("heuristic" if p in members else "random") for p in game0.state.map.turn_order}
            game, result, _ = play(ws, refs, seed, args.rounds, "random", players)
            matches.add(game.state.events, kinds_of(game))
            leader = result.get("winner") or result.get("ahead")
            wins += leader == side
            outright += result.get("winner") == side
        print(f"heuristic {side} vs random: heuristic wins or leads in {wins}/{args.matches} games "
              f"({wins / args.matches:.0%}; target > 90%); wins outright (a victory condition met) in {outright}")
    for line in matches.lines("heuristic vs random"):
        print(line)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
