"""Game benchmarks: speed, heuristic-vs-random wins, aircraft lost for want of a landing, factories bought.

Time per full Revised game, events per second, share of time in rule evaluation, how often the
heuristic agent beats the random one, and what the agents throw away or build: aircraft lost for
want of a landing and factories bought, per agent kind and game (read from the games' events).

Agents (issues 10 and 11): per agent kind, the decisions of each kind it took and how often each
answer of a rule's decision (`choose`, by its id) was chosen; how the heuristic agent's battle
odds were made (the exact chain, cached, or the quick simulation as the fallback for each of
battle_odds.py's reasons); and the heuristic against random and against the previous heuristic
(the same agent with the quick simulation as its only odds, `odds="quick"`) over the same seeds,
each side in turn, as win rates with Wilson 95% intervals and time per game.

    python benchmarks/play.py [--games N] [--matches N] [--duels N] [--rounds N] [--ruleset REF ...]

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
from ruleslang.runtime.agents.battle_odds import REASONS
from ruleslang.runtime.agents.heuristic import HeuristicAgent
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


# ---------------------------------------------------------------------- agents


PREVIOUS = "previous heuristic"  # the heuristic agent with the quick simulation as its only battle odds
Z95 = 1.959964  # the normal quantile of a two-sided 95% interval


def wilson(wins: int, games: int) -> tuple[float, float]:
    """The Wilson score 95% interval of a rate of `wins` in `games`."""
    if not games:
        return 0.0, 1.0
    rate = wins / games
    middle = (rate + Z95 ** 2 / (2 * games)) / (1 + Z95 ** 2 / games)
    half = Z95 * ((rate * (1 - rate) / games + Z95 ** 2 / (4 * games ** 2)) ** 0.5) / (1 + Z95 ** 2 / games)
    return max(0.0, middle - half), min(1.0, middle + half)


def rate_text(wins: int, games: int) -> str:
    low, high = wilson(wins, games)
    return f"{wins}/{games} ({wins / games:.0%}, 95% interval {low:.0%} to {high:.0%})"


class Decisions:
    """The decisions each agent kind took, by kind (a rule's `choose` by its id), the answers it
    gave to each rule's decision, and how the heuristic agents' battle odds were made."""

    def __init__(self):
        self.kinds: dict[str, dict[str, int]] = {}              # agent kind -> decision kind -> count
        self.answers: dict[str, dict[str, dict[str, int]]] = {}  # agent kind -> choose id -> answer -> count
        self.odds: dict[str, dict[str, int]] = {}               # agent kind -> battle_odds reason -> count

    def watch(self, game) -> None:
        """Count every decision of `game`'s agents from now on."""
        for agent in game.agents.values():
            agent.decide = self._counting(agent, agent.decide)

    def _counting(self, agent, decide):
        def counted(decision, game):
            answer = decide(decision, game)
            kind = decision.kind if decision.kind != "choose" else f"choose {decision.id or '(no id)'}"
            kinds = self.kinds.setdefault(agent.name, {})
            kinds[kind] = kinds.get(kind, 0) + 1
            if decision.kind == "choose":
                shown = ", ".join(map(str, answer)) if isinstance(answer, tuple) else str(answer)
                answers = self.answers.setdefault(agent.name, {}).setdefault(decision.id or "(no id)", {})
                answers[shown] = answers.get(shown, 0) + 1
            return answer
        return counted

    def finish(self, game) -> None:
        """Add the battle odds counts of `game`'s heuristic agents."""
        for agent in game.agents.values():
            counts = getattr(getattr(agent, "battle_odds", None), "counts", None)
            if counts:
                mine = self.odds.setdefault(agent.name, dict.fromkeys(REASONS, 0))
                for reason, n in counts.items():
                    mine[reason] += n

    def lines(self) -> list[str]:
        out = []
        for agent in sorted(self.kinds):
            kinds = self.kinds[agent]
            out.append(f"{agent} decisions: " + ", ".join(f"{k} {n}" for k, n in sorted(kinds.items())))
            for decision, answers in sorted(self.answers.get(agent, {}).items()):
                total = sum(answers.values())
                shares = ", ".join(f"{a}: {n / total:.0%}" for a, n in sorted(answers.items(), key=lambda kv: -kv[1]))
                out.append(f"    {decision} ({total}): {shares}")
            odds = self.odds.get(agent)
            if odds:
                queries = sum(odds.values())
                out.append(f"    battle odds ({queries} queries): " + ", ".join(
                    f"{reason} {n} ({n / queries:.0%})" for reason, n in odds.items()))
        return out


def previous_heuristic(game, players: list[str], seed: int) -> None:
    """Give `players` of `game` the previous heuristic agent (quick odds only)."""
    for player in players:
        agent = HeuristicAgent(seed, player, odds="quick")
        agent.name = PREVIOUS
        game.agents[player] = agent


def duel(ws, refs, sides: dict[str, list[str]], seeds: range, rounds: int, order: list[str], against: str,
         decisions: Decisions, lost: Tally) -> list[str]:
    """The heuristic on each side against `against` ("random" or PREVIOUS) on the other, every
    seed: its win-or-lead rate with a Wilson interval, and time per game."""
    out = []
    for side, members in sides.items():
        wins = outright = 0
        times = []
        for seed in seeds:
            players = {p: ("heuristic" if p in members else "random") for p in order}
            game = build_game(ws, GameSetup(refs=refs, seed=seed, rounds=rounds, default_agent="random",
                                            players=players))
            if against == PREVIOUS:
                previous_heuristic(game, [p for p in order if p not in members], seed)
            decisions.watch(game)
            start = time.perf_counter()
            result = game.run(rounds)
            times.append(time.perf_counter() - start)
            decisions.finish(game)
            lost.add(game.state.events, kinds_of(game))
            leader = result.get("winner") or result.get("ahead")
            wins += leader == side
            outright += result.get("winner") == side
        out.append(f"heuristic {side} vs {against}: wins or leads in {rate_text(wins, len(times))}; "
                   f"wins outright in {outright}; {statistics.mean(times):.2f} s per game")
    return out


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
    parser.add_argument("--duels", type=int, default=20,
                        help="seeded games per side for heuristic vs previous heuristic (default 20)")
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
    order = list(game0.state.map.turn_order)
    decisions = Decisions()
    for against, games in (("random", args.matches), (PREVIOUS, args.duels)):
        lost = Tally()
        for line in duel(ws, refs, sides, range(1, games + 1), args.rounds, order, against, decisions, lost):
            print(line + (" (target > 90%)" if against == "random" else ""))
        for line in lost.lines(f"heuristic vs {against}"):
            print(line)
    for line in decisions.lines():
        print(line)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
