"""Game benchmarks: speed, heuristic-vs-random wins, aircraft lost for want of a landing, factories bought.

CPU time per full Revised game (play alone, under the default composition `aar/house-rules@1` and
under `aar/base@1`), the whole `ruleslang play` process (loading and play) and a cold
`ruleslang call`, events per second, share of time in rule evaluation, how often the heuristic
agent beats the random one, and what the agents throw away or build: aircraft lost for want of a
landing and factories bought, per agent kind and game (read from the games' events). Times are
CPU time (`time.process_time`, a child's user+sys for processes), so other work on the machine
does not count; each is also given in units of a fixed pure-Python workload timed in the same run
(`calibration`), comparable between machines and loads. A game's time includes closing it
(`Game.close`, `closed`: freeing the played game, which a process that plays many games does).

Agents (issues 10 and 11): per agent kind, the decisions of each kind it took and how often each
answer of a rule's decision (`choose`, by its id) was chosen; how the heuristic agent's battle
odds were made (the exact chain, cached, or the quick simulation as the fallback for each of
battle_odds.py's reasons); its look-ahead (lookahead.py: decisions looked ahead, answers it
changed, CPU time) and, with `--check-advice`, how often the look-ahead agreed with the
ruleset's advice; the heuristic against random, and against the previous heuristic (as shipped
before the look-ahead and bid placement: `previous=True`) over the same seeds, each side in
turn, as win rates with Wilson 95% intervals and time per game; with `--bid SIDE=IPCS`, the
duels are played with that bid (placed by each agent its own way). `--exact-duels N`: the
heuristic (exact odds, `odds="exact"`, the default since session 9) against the heuristic with
quick odds (`odds="quick"`, the quick simulation alone: the agent shipped before);
`--paired N [--first-seed S]`: only that duel, paired by seed (per seed, the quick agent on every
side, then the exact one on each side in turn). `--spare-paired N [--spare PART ...]`: the same
pairing of the agent that spares the chain where the quick simulation settles an answer
(`HeuristicAgent(spare=...)`, the default since session 14) against the one that asks it of every
attack and retreat question (`spare=()`, shipped before), or with `--spare-base PART ...` against
the agent sparing those parts (since session 15 a part may spare the look-ahead's rollouts too:
"rollouts").

    python benchmarks/play.py [--games N] [--matches N] [--duels N] [--rounds N] [--ruleset REF ...]
                              [--bid SIDE=IPCS] [--check-advice] [--exact-duels N] [--agents-only] [--timing-only]
                              [--timed REF ...] [--agent random|heuristic]
    python benchmarks/play.py --paired N [--first-seed S] [--rounds N] [--ruleset REF ...]
    python benchmarks/play.py --spare-paired N [--spare retreat|attacks|holds ...] [--spare-base PART ...] [--first-seed S] [--rounds N] [--ruleset REF ...]
    python benchmarks/play.py --backends N [--games N]   # codegen against closures, in turns (issue 15)
    python benchmarks/play.py --rollout-cost [--games N] [--rounds N] [--ruleset REF ...]   # moving rollouts' cost
    python benchmarks/play.py --bytecodes [--games N] [--rounds N] [--ruleset REF ...]   # Python bytecodes per game

Targets (issue 15): under `aar/house-rules@1`, < 0.2 s per 10-round game with random agents,
< 0.5 s with heuristic agents (a heuristic game's time depends on which games its seeds give: a
game won early is short, and a change of play changes which games seeds 1..N are, so a change of
play is timed over many, `--games 100 --timed aar/house-rules@1 --agent heuristic`, since session
17); a cold `ruleslang call aar/commerce-raiding@1 raid_cap "United
Kingdom"` < 0.2 s (with the compiled-ruleset cache of a later session). Heuristic beats random in
> 90% of seeded games, on each side (issue 9: the heuristic loses no aircraft for want of a landing).

Before and after issue 15's first session (`--timing-only --games 3`; docs/performance.md has all):

    before: aar/house-rules@1:    random agents: 1.223 s CPU per game, play alone ... = 25.3 calibrations
            aar/house-rules@1: heuristic agents: 3.452 s CPU per game, play alone ... = 71.4 calibrations
    after:  aar/house-rules@1:    random agents: 0.523 s CPU per game, play alone ... = 7.0 calibrations
            aar/house-rules@1: heuristic agents: 1.810 s CPU per game, play alone ... = 24.3 calibrations
"""

from __future__ import annotations

import argparse
import os
import cProfile
import pstats
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

from ruleslang.lang.eval.codegen import BACKENDS
from ruleslang.compare.runner import LoadedOnce
from ruleslang.compare.stats import paired_difference
from ruleslang.runtime.agents.battle_odds import REASONS
from ruleslang.runtime.agents.heuristic import SPARE, HeuristicAgent
from ruleslang.runtime.agents.lookahead import CHANGED, LOOKED
from ruleslang.runtime.agents.phase_starts import PhaseStarts
from ruleslang.runtime.saves import GameSetup, build_game

LANDING_LOSS = "no place to land"  # the reason the move procedure gives when it removes stranded air units
RULE_MODULES = ("compile.py", "compile_exact.py", "program.py", "procedures.py", "builtins.py", "context.py",
                "values.py", "exact.py")


TIMED_REFS = (["aar/house-rules@1"], ["aar/base@1"])  # the default composition first
TARGETS = {"random": 0.2, "heuristic": 0.5}                # CPU s per 10-round house-rules game
CALL = ["call", "aar/commerce-raiding@1", "raid_cap", "United Kingdom"]


def play(ws, refs, seed: int, rounds: int, agent: str, players: dict | None = None):
    """Build and play one game; the CPU time of the play alone (set-up not counted)."""
    setup = GameSetup(refs=refs, seed=seed, rounds=rounds, default_agent=agent, players=players or {})
    game = build_game(ws, setup)
    start = time.process_time()
    result = game.run(rounds)
    return game, result, time.process_time() - start


def closed(game) -> float:
    """CPU seconds of `game.close()`, counted in the game's time: what freeing a played game costs
    (a game dropped unclosed is freed by the collector in the next game's time instead)."""
    start = time.process_time()
    game.close()
    return time.process_time() - start


def calibration() -> float:
    """CPU seconds of a fixed pure-Python workload (dicts, tuples, calls: what a game does), best
    of three; figures divided by it compare between machines and loads."""
    def work():
        table: dict = {}
        for i in range(200_000):
            key = (i % 97, i % 13)
            table[key] = table.get(key, 0) + len(str(i))
        return table
    best = float("inf")
    for _ in range(3):
        start = time.process_time()
        work()
        best = min(best, time.process_time() - start)
    return best


def process_cpu(args: list[str]) -> tuple[float, float]:
    """(CPU seconds, wall seconds) of one `ruleslang ARGS` run in a new process (its user+sys time)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "ruleslang", *args], check=True, stdout=subprocess.DEVNULL)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), wall


def report_backends(ws, args) -> None:
    """The two back ends of evaluation (lang/eval/codegen.py) in turns, in this process: each
    agent kind's house-rules games under codegen, then the same seeds under closures, `--backends`
    times; the median CPU time per game (each back end's program is made once, by the first game
    played under it: `LoadedOnce` keys programs by back end) and the ratio of the medians."""
    for agent in ("random", "heuristic"):
        times: dict[str, list[float]] = {b: [] for b in BACKENDS}
        for _ in range(args.backends):
            for backend in BACKENDS:
                os.environ["RULESLANG_EVAL"] = backend
                for seed in range(1, args.games + 1):
                    game, _result, seconds = play(ws, TIMED_REFS[0], seed, args.rounds, agent)
                    times[backend].append(seconds + closed(game))
        os.environ.pop("RULESLANG_EVAL", None)
        medians = {b: statistics.median(t) for b, t in times.items()}
        shown = ", ".join(f"{b} {m:.3f} s" for b, m in medians.items())
        print(f"{', '.join(TIMED_REFS[0])}: {agent:>9} agents, back ends in turns ({len(times[BACKENDS[0]])} games "
              f"each): median CPU per game {shown}; codegen / closures = "
              f"{medians['codegen'] / medians['closures']:.2f}x")


def report_rollout_cost(ws, refs, args) -> None:
    """What rollouts that move units cost (issue 11): heuristic games of seeds 1..--games under
    `refs`, the look-ahead's rollouts moving units (as shipped) and standing still
    (`Lookahead.moves=False`, as before), in turns; CPU per game and the look-ahead's share, and
    the ratios of moving to still in the same run."""
    times: dict[bool, list[float]] = {True: [], False: []}
    looked: dict[bool, list[float]] = {True: [], False: []}
    changed: dict[bool, int] = {True: 0, False: 0}
    for seed in range(1, args.games + 1):
        for moves in (False, True):
            game = build_game(ws, GameSetup(refs=refs, seed=seed, rounds=args.rounds, default_agent="heuristic"))
            lookaheads = [a.lookahead for a in game.agents.values() if getattr(a, "lookahead", None) is not None]
            for lookahead in lookaheads:
                lookahead.moves = moves
            start = time.process_time()
            game.run(args.rounds)
            times[moves].append(time.process_time() - start)
            looked[moves].append(sum(la.seconds for la in lookaheads))
            changed[moves] += sum(la.counts.get(CHANGED, 0) for la in lookaheads)
    for moves in (False, True):
        label = "moving" if moves else " still"
        print(f"{', '.join(refs)}: heuristic, rollouts {label}: {statistics.mean(times[moves]):.2f} s CPU per game "
              f"({args.games} games of {args.rounds} rounds), look-ahead {statistics.mean(looked[moves]):.2f} s of it; "
              f"{changed[moves]} answers changed by the look-ahead")
    print(f"{'':>9}moving / still: {statistics.mean(times[True]) / statistics.mean(times[False]):.2f}x per game, "
          f"{statistics.mean(looked[True]) / max(1e-9, statistics.mean(looked[False])):.2f}x the look-ahead")


def report_bytecodes(ws, refs, args) -> None:
    """Python bytecodes run per random-agent game (seeds 1..--games under `refs`, play alone, after
    a warm-up game: a program's first use generates and compiles its rules' code), counted by a
    trace function: a figure that, unlike CPU time, does not move with the machine's load or
    speed (the same code plays the same games: two runs print the same counts), so two versions
    of the code compare exactly on a busy machine. It weighs every bytecode alike (a call the
    same as an addition) and counts no time in C (sorting, hashing, dictionaries): a guide to
    where the Python work is, beside the CPU figures. Tracing makes a game about 100 times
    slower. Also the functions that ran the most bytecodes, with their share."""
    build_game(ws, GameSetup(refs=refs, seed=0, rounds=1, default_agent="random")).run(1)
    counts: dict = {}

    def counted(frame, event, arg):
        if event == "opcode":
            code = frame.f_code
            counts[code] = counts.get(code, 0) + 1
        return counted

    def traced(frame, event, arg):
        frame.f_trace_opcodes = True
        return counted
    per_game = []
    for seed in range(1, args.games + 1):
        game = build_game(ws, GameSetup(refs=refs, seed=seed, rounds=args.rounds, default_agent="random"))
        before = sum(counts.values())
        sys.settrace(traced)
        try:
            game.run(args.rounds)
        finally:
            sys.settrace(None)
        per_game.append(sum(counts.values()) - before)
    total = sum(per_game)
    print(f"{', '.join(refs)}: random agents: {statistics.mean(per_game):,.0f} bytecodes per game "
          f"({args.games} games of {args.rounds} rounds: {', '.join(f'{n:,}' for n in per_game)})")
    for code, n in sorted(counts.items(), key=lambda item: -item[1])[:15]:
        where = code.co_filename.split("ruleslang/")[-1]
        print(f"{'':>9}{100 * n / total:5.1f}% {code.co_name} ({where}:{code.co_firstlineno})")


def report_timing(ws, args, unit: float) -> None:
    """CPU time per game, play alone, for each agent kind under each timed composition; then the
    whole process (loading and play) and a cold `ruleslang call`. With `--timed REF...`, only the
    games of that composition (say a Global 1940 one: `--timed g40/house-rules@1 --rounds 4`), and
    with `--agent KIND` only that agent kind's."""
    compositions = [args.timed] if args.timed else TIMED_REFS
    agents = [args.agent] if args.agent else ["random", "heuristic"]
    for refs in compositions:
        for agent in agents:
            times, events = [], []
            tally = Tally()
            parts = AgentParts()
            for seed in range(1, args.games + 1):
                game, result, seconds = play(ws, refs, seed, args.rounds, agent)
                events.append(len(game.state.events))
                tally.add(game.state.events, kinds_of(game))
                parts.add(game)
                times.append(seconds + closed(game))
            mean = statistics.mean(times)
            target = f"; target < {TARGETS[agent]} s" if refs == TIMED_REFS[0] else ""
            print(f"{', '.join(refs)}: {agent:>9} agents: {mean:.3f} s CPU per game, play alone (min "
                  f"{min(times):.3f}, max {max(times):.3f}{target}) = {mean / unit:.1f} calibrations; "
                  f"{statistics.mean(events):.0f} events per game, {sum(events) / sum(times):,.0f} events per "
                  f"second")
            if parts.games:
                print(parts.line(len(times)))
            if not args.timing_only:
                share = rule_share(ws, refs, args.rounds, agent)
                print(f"{'':>9}         share of time in rule evaluation: {share:.0%}")
                for line in tally.lines(f"{agent:>9} games"):
                    print(line)
    if args.timed:
        return
    for agent in agents:
        runs = [process_cpu(["play", "--seed", str(seed), "--rounds", str(args.rounds), "--agent", agent,
                             "--quiet"]) for seed in range(1, args.games + 1)]
        cpu = statistics.mean(c for c, _ in runs)
        print(f"whole process `ruleslang play --agent {agent}` ({', '.join(TIMED_REFS[0])}, loading and play): "
              f"{cpu:.3f} s CPU ({cpu / unit:.1f} calibrations), {statistics.mean(w for _, w in runs):.3f} s wall")
    runs = [process_cpu(CALL) for _ in range(3)]
    cpu, wall = min(c for c, _ in runs), min(w for _, w in runs)
    print(f"cold `ruleslang {' '.join(CALL[:3])} \"{CALL[3]}\"`: {cpu:.3f} s CPU, {wall:.3f} s wall "
          f"(best of 3; target < 0.2 s wall)")


class AgentParts:
    """The heuristic agent's own parts of its games' CPU time, as the agents count them: the exact
    chain's queries (`BattleOdds.seconds`: the attacks at sea, and every battle with odds="exact"),
    the look-ahead (`Lookahead.seconds`, with the phase starts it had made by replay or taken from
    the game as it stood at a resume point, `PhaseStarts.taken`) and the
    boards kept at phase starts for it (`PhaseStarts.seconds`). The parts are disjoint but for
    the chain's queries made by the quick policies of rollouts (none: they are the agent as
    shipped before attacks at sea)."""

    def __init__(self):
        self.games = 0
        self.chain, self.queries, self.looked, self.decisions, self.starts = 0.0, 0, 0.0, 0, 0.0
        self.boards, self.marks, self.replayed, self.taken = 0, 0, 0, 0

    def add(self, game) -> None:
        agents = [a for a in {id(a): a for a in game.agents.values()}.values() if isinstance(a, HeuristicAgent)]
        if not agents:
            return
        self.games += 1
        for agent in agents:
            for odds in (agent.fleet_odds, agent.battle_odds):
                if odds is not None:
                    self.chain += odds.seconds
                    self.queries += odds.counts[REASONS[0]]
            if agent.lookahead is not None:
                self.looked += agent.lookahead.seconds
                self.decisions += agent.lookahead.counts.get(LOOKED, 0)
        hook = game.on_phase
        if isinstance(hook, PhaseStarts):
            self.starts += hook.seconds
            self.boards += hook.boards
            self.replayed += hook.replayed
            self.taken += hook.taken
            self.marks += hook.boards + hook.marked

    def line(self, games: int) -> str:
        n = self.games
        return (f"{'':>9}         of which the agent's own (per game): the exact chain {self.chain / n:.3f} s "
                f"({self.queries / n:.1f} queries), the look-ahead {self.looked / n:.3f} s ({self.decisions / n:.1f} "
                f"decisions looked ahead), phase starts {self.starts / n:.3f} s ({self.marks / n:.0f} starts, "
                f"{self.boards / n:.0f} boards kept, {self.replayed / n:.1f} made by replay, "
                f"{self.taken / n:.1f} taken from the game)")


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


PREVIOUS = "previous heuristic"  # the heuristic agent as shipped before the look-ahead (previous=True)
EXACT = "heuristic (exact odds)"  # the heuristic agent with the exact battle chain for its odds (shipped)
QUICK = "heuristic (quick odds)"  # the heuristic agent with the quick simulation alone (shipped before)
ASKING = "heuristic (chain asked)"  # the heuristic agent asking the chain of every attack and retreat (spare=())
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
        self.looked: dict[str, dict[str, float]] = {}           # agent kind -> look-ahead count -> n (and CPU s)
        self.checks: dict[str, dict[str, list[int]]] = {}        # agent kind -> advised id -> [agreed, disagreed]

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
            lookahead = getattr(agent, "lookahead", None)
            if lookahead is not None:
                looked = self.looked.setdefault(agent.name, {"CPU s": 0.0})
                looked["CPU s"] += lookahead.seconds
                for reason, n in lookahead.counts.items():
                    looked[reason] = looked.get(reason, 0) + n
            for decision, (agreed, disagreed) in getattr(agent, "advice_checks", {}).items():
                tally = self.checks.setdefault(agent.name, {}).setdefault(decision, [0, 0])
                tally[0] += agreed
                tally[1] += disagreed

    def lines(self) -> list[str]:
        out = []
        for agent in sorted(self.kinds):
            kinds = self.kinds[agent]
            out.append(f"{agent} decisions: " + ", ".join(f"{k} {n}" for k, n in sorted(kinds.items())))
            for decision, answers in sorted(self.answers.get(agent, {}).items()):
                total = sum(answers.values())
                shares = ", ".join(f"{a}: {n / total:.0%}" for a, n in sorted(answers.items(), key=lambda kv: -kv[1]))
                out.append(f"    {decision} ({total}): {shares}")
            looked = self.looked.get(agent)
            if looked:
                out.append("    look-ahead: " + ", ".join(f"{k} {v:.1f}" if isinstance(v, float) else f"{k} {v}"
                                                          for k, v in looked.items()))
            for decision, (agreed, disagreed) in sorted(self.checks.get(agent, {}).items()):
                out.append(f"    advice on {decision}: the look-ahead agreed {agreed}, found better {disagreed}")
            odds = self.odds.get(agent)
            if odds:
                queries = sum(odds.values())
                out.append(f"    battle odds ({queries} queries): " + ", ".join(
                    f"{reason} {n} ({n / queries:.0%})" for reason, n in odds.items()))
        return out


def heuristic_on(game, players: list[str], seed: int, label: str, **options) -> None:
    """Give `players` of `game` a heuristic agent made with `options`, named `label`."""
    for player in players:
        agent = HeuristicAgent(seed, player, **options)
        agent.name = label
        game.agents[player] = agent


def duel(ws, refs, sides: dict[str, list[str]], seeds: range, rounds: int, order: list[str], against: str,
         decisions: Decisions, lost: Tally, bids: dict[str, int], check_advice: bool = False,
         progress=None) -> list[str]:
    """The heuristic on each side against `against` ("random", PREVIOUS or EXACT: then the
    heuristic is the one against it) on the other, every seed: its win-or-lead rate with a Wilson
    interval, and time per game. `progress(line)`: each game's result as played."""
    out = []
    base: dict[int, str | None] = {}  # seed -> the side the previous heuristic on every side leads with
    if against == PREVIOUS:
        for seed in seeds:
            game = build_game(ws, GameSetup(refs=refs, seed=seed, rounds=rounds, default_agent="random",
                                            players={p: "heuristic" for p in order}, bids=bids))
            heuristic_on(game, order, seed, PREVIOUS, previous=True)
            result = game.run(rounds)
            base[seed] = result.get("winner") or result.get("ahead")
            if progress is not None:
                progress(f"seed {seed}: {PREVIOUS} on every side: {base[seed]}")
        for side in sides:
            n = sum(1 for s in base.values() if s == side)
            out.append(f"{PREVIOUS} on every side: {side} wins or leads in {rate_text(n, len(base))} (the agents' "
                       f"own skew on these seeds)")
    for side, members in sides.items():
        wins = outright = better = worse = 0
        times = []
        for seed in seeds:
            players = {p: ("random" if against == "random" and p not in members else "heuristic") for p in order}
            game = build_game(ws, GameSetup(refs=refs, seed=seed, rounds=rounds, default_agent="random",
                                            players=players, bids=bids))
            others = [p for p in order if p not in members]
            if against == PREVIOUS:
                heuristic_on(game, members, seed, "heuristic", check_advice=check_advice)
                heuristic_on(game, others, seed, PREVIOUS, previous=True)
            elif against == EXACT:
                heuristic_on(game, members, seed, EXACT, odds="exact")
                heuristic_on(game, others, seed, QUICK, odds="quick")
            else:
                heuristic_on(game, members, seed, "heuristic", check_advice=check_advice)
            decisions.watch(game)
            start = time.process_time()
            result = game.run(rounds)
            times.append(time.process_time() - start)
            decisions.finish(game)
            lost.add(game.state.events, kinds_of(game))
            leader = result.get("winner") or result.get("ahead")
            if progress is not None:
                progress(f"seed {seed}: heuristic {side} vs {against}: {leader} ({times[-1]:.1f} s CPU)")
            wins += leader == side
            outright += result.get("winner") == side
            if seed in base:  # paired with the same seed played by the previous heuristic on every side
                better += leader == side and base[seed] != side
                worse += leader != side and base[seed] == side
        label = EXACT if against == EXACT else "heuristic"
        versus = QUICK if against == EXACT else against
        paired = (f"; against the same seeds with the previous heuristic in its place: {side} does better in {better}, "
                  f"worse in {worse}" if base else "")
        out.append(f"{label} {side} vs {versus}: wins or leads in {rate_text(wins, len(times))}; "
                   f"wins outright in {outright}; {statistics.mean(times):.2f} s CPU per game{paired}")
    return out


def paired_duel(ws, refs, sides: dict[str, list[str]], seeds: range, rounds: int, order: list[str],
                progress=None, base: tuple[str, dict] = (QUICK, {"odds": "quick"}),
                variant: tuple[str, dict] = (EXACT, {"odds": "exact"})) -> list[str]:
    """The agent with exact odds (shipped) against the one with quick odds (shipped before), or
    any `variant` against a `base` agent ((label, HeuristicAgent's options)), paired by seed: per
    seed, the game with the base agent everywhere (the baseline), and the game with the variant
    on each side in turn (the other side the base). Per side: the baseline's and the variant's
    win-or-lead rates (Wilson intervals), the seeds where the variant turned the side's result
    better or worse than the baseline's, the side's mean change of its share of the final score (a
    paired difference with its 95% interval and p-value: a finer measure than who leads, which a
    side that leads in nearly every game cannot improve), and CPU time per game. `progress(line)`:
    each seed's games as played."""
    shares: dict = {}   # (variant's side or None, seed) -> side -> share of the final score
    (base_label, base_options), (label, options) = base, variant

    def leader(exact_members: list[str], seed: int, side=None):
        game = build_game(ws, GameSetup(refs=refs, seed=seed, rounds=rounds, default_agent="heuristic",
                                        players={p: "heuristic" for p in order}))
        heuristic_on(game, [p for p in order if p not in exact_members], seed, base_label, **base_options)
        heuristic_on(game, exact_members, seed, label, **options)
        start = time.process_time()
        result = game.run(rounds)
        seconds = time.process_time() - start
        scores = {side: score or 0 for side, score in result.get("scores", {}).items()}
        total = sum(scores.values())
        shares[side, seed] = {s: score / total if total else 0.5 for s, score in scores.items()}
        return result.get("winner") or result.get("ahead"), seconds

    base: dict = {}
    won: dict = {side: {} for side in sides}
    for seed in seeds:
        base[seed] = leader([], seed)
        for side, members in sides.items():
            won[side][seed] = leader(members, seed, side)
        if progress is not None:
            progress(f"seed {seed}: {base_label} everywhere: {base[seed][0]} ({base[seed][1]:.1f} s); " + "; ".join(
                f"{label} {side}: {won[side][seed][0]} ({won[side][seed][1]:.1f} s)" for side in sides))
    out = [f"{base_label} everywhere: {statistics.mean(t for _, t in base.values()):.2f} s CPU per game"]
    for side in sides:
        mine = won[side]
        before = sum(base[s][0] == side for s in seeds)
        after = sum(mine[s][0] == side for s in seeds)
        better = sum(mine[s][0] == side and base[s][0] != side for s in seeds)
        worse = sum(mine[s][0] != side and base[s][0] == side for s in seeds)
        share = paired_difference([shares[None, s].get(side, 0.0) for s in seeds],
                                  [shares[side, s].get(side, 0.0) for s in seeds], binary=False)
        out.append(f"{side}: {base_label} wins or leads in {rate_text(before, len(seeds))}; {label} in "
                   f"{rate_text(after, len(seeds))}; better on {better} seeds, worse on {worse}; "
                   f"its share of the final score {share['diff']:+.3f} (95% interval {share['low']:+.3f} to "
                   f"{share['high']:+.3f}, p = {share['p_value']:.2f}); "
                   f"{statistics.mean(t for _, t in mine.values()):.2f} s CPU per game")
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
    parser.add_argument("--ruleset", dest="refs", action="append", default=[],
                        help="rulesets of the heuristic-vs-random matches (default aar/base@1)")
    parser.add_argument("--paired", type=int, metavar="N",
                        help="only the exact-odds agent (shipped) against the quick-odds one, paired over seeds 1..N")
    parser.add_argument("--spare-paired", type=int, metavar="N",
                        help="only the agent sparing the chain (--spare; shipped) against the one asking it of every "
                             "attack and retreat (spare=(), shipped before), paired over seeds 1..N as --paired")
    parser.add_argument("--spare", action="append", default=[], choices=SPARE,
                        help="a part of SPARE the --spare-paired agent spares (the chain in a kind of question, "
                             "or \"rollouts\": the look-ahead's rollouts once settled; default: all of them)")
    parser.add_argument("--spare-base", action="append", default=[], choices=SPARE,
                        help="a part of SPARE the --spare-paired base agent spares (default: none, the agent "
                             "asking the chain of every attack and retreat and playing every rollout)")
    parser.add_argument("--first-seed", type=int, default=1,
                        help="the first seed of --paired and --spare-paired (default 1)")
    parser.add_argument("--exact-duels", type=int, default=0,
                        help="seeded games per side for the heuristic with exact odds vs quick odds (default 0)")
    parser.add_argument("--bid", action="append", default=[], metavar="SIDE=IPCS",
                        help="a bid in the duels (as `ruleslang play --bid`)")
    parser.add_argument("--check-advice", action="store_true",
                        help="the heuristic also looks ahead at advised decisions and counts agreement")
    parser.add_argument("--agents-only", action="store_true", help="no timing: only the agents' matches")
    parser.add_argument("--backends", type=int, default=0, metavar="N",
                        help="only compare the back ends of evaluation: N turns of --games games each")
    parser.add_argument("--bytecodes", action="store_true",
                        help="only the Python bytecodes run per random-agent game (seeds 1..--games, under the "
                             "--ruleset compositions, default aar/house-rules@1): a count the machine's load does not move")
    parser.add_argument("--rollout-cost", action="store_true",
                        help="only the cost of rollouts that move units against still ones, in turns, over --games "
                             "seeds under the --ruleset compositions (default aar/house-rules@1)")
    parser.add_argument("--progress", action="store_true", help="print each duel game's result as it is played")
    parser.add_argument("--timed", action="append", default=[], metavar="REF",
                        help="time only the games of this composition (repeat for several rulesets)")
    parser.add_argument("--agent", choices=("random", "heuristic"), help="time only this agent kind's games")
    parser.add_argument("--timing-only", action="store_true",
                        help="only the CPU times (no profiled share, no tallies, no matches)")
    args = parser.parse_args(argv)
    refs = args.refs or ["aar/base@1"]
    bids = {name: int(amount) for name, amount in (b.split("=", 1) for b in args.bid)}
    ws = LoadedOnce([])  # one compiled program per composition, shared by its games (as the compare workers do)
    if args.paired or args.spare_paired:
        game0 = build_game(ws, GameSetup(refs=refs, seed=0, rounds=1, default_agent="random"))
        sides = {}
        for player in game0.state.map.turn_order:
            sides.setdefault(game0.compiled.side_of_player[player], []).append(player)
        seeds = range(args.first_seed, args.first_seed + (args.paired or args.spare_paired))
        spare = tuple(args.spare or SPARE)
        based = tuple(args.spare_base)
        base = (ASKING, {"spare": ()}) if not based else (f"heuristic (spare {'+'.join(based)})", {"spare": based})
        agents = {} if args.paired else {"base": base,
                                         "variant": (f"heuristic (spare {'+'.join(spare)})", {"spare": spare})}
        for line in paired_duel(ws, refs, sides, seeds, args.rounds, list(game0.state.map.turn_order),
                                progress=lambda line: print(line, flush=True), **agents):
            print(line, flush=True)
        return 0
    if args.rollout_cost:
        report_rollout_cost(ws, args.refs or TIMED_REFS[0], args)
        return 0
    if args.bytecodes:
        report_bytecodes(ws, args.refs or TIMED_REFS[0], args)
        return 0
    unit = calibration()
    print(f"python {sys.version.split()[0]}; {args.rounds} rounds; calibration {unit:.3f} s CPU; "
          f"{', '.join(refs)}{'; bids ' + ', '.join(args.bid) if bids else ''}")
    if args.backends:
        report_backends(ws, args)
        return 0
    if not args.agents_only:
        report_timing(ws, args, unit)
    if args.timing_only:
        return 0

    # heuristic on one side, random on the other, every seed, both ways round
    game0 = build_game(ws, GameSetup(refs=refs, seed=0, rounds=1, default_agent="random"))
    sides = {}
    for player in game0.state.map.turn_order:
        sides.setdefault(game0.compiled.side_of_player[player], []).append(player)
    order = list(game0.state.map.turn_order)
    decisions = Decisions()
    for against, games in (("random", args.matches), (PREVIOUS, args.duels), (EXACT, args.exact_duels)):
        if not games:
            continue
        lost = Tally()
        for line in duel(ws, refs, sides, range(1, games + 1), args.rounds, order, against, decisions, lost,
                         bids, args.check_advice, (lambda line: print("   ", line, flush=True)) if args.progress else None):
            print(line + (" (target > 90%)" if against == "random" else ""))
        for line in lost.lines(f"heuristic vs {against}"):
            print(line)
    for line in decisions.lines():
        print(line)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
