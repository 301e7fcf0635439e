"""Playing the games of a comparison: game i of every variant on the same seed, agents and rounds,
in this process or in K worker processes, each finished game handed back as a compact record.

A worker keeps one workspace for its life and loads each composition once (loading costs about a
second; a game under the random agents less than that). The record holds no timing and nothing of
the process that played it, so the same seeds give the same records whatever the number of jobs
and the order games finish in.
"""

from __future__ import annotations

import hashlib
import signal
import time
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterable, Sequence

from ruleslang.compare.accounting import game_accounting
from ruleslang.lang.eval.codegen import default_backend
from ruleslang.runtime import collector
from ruleslang.runtime.saves import GameSetup, build_game
from ruleslang.workspace.compositions import Loaded, Workspace


@dataclass(frozen=True)
class GameTask:
    """Game `game` of variant `variant` (indices), with everything a worker needs to play it."""

    variant: int
    game: int
    refs: tuple[str, ...]
    scenario: str | None
    scenario_text: str | None
    seed: int
    rounds: int
    players: tuple[tuple[str, str], ...]
    agent: str
    bids: tuple[tuple[str, int], ...] = ()  # side or power -> IPCs bid before round 1 (`ruleslang balance`)


def sides_and_powers(game) -> tuple[list[str], list[str]]:
    """The sides that play a game (in the rules' order, those with a power in the turn order) and
    its powers in turn order."""
    turn = list(game.state.map.turn_order)
    playing = {game.compiled.side_of_player.get(p) for p in turn}
    return [s.name for s in game.ctx.enums["side"].members if s.name in playing], turn


def game_seed(seed: int, game: int) -> int:
    """The seed of game `game` (counted from 0) of every variant: derived from the comparison's
    seed by a hash, so nearby games are not played on related seeds."""
    digest = hashlib.sha256(f"ruleslang-compare:{seed}:{game}".encode("ascii")).hexdigest()
    return int(digest[:12], 16)


class LoadedOnce(Workspace):
    """A workspace that loads each composition once and hands the same loaded program to every
    game of it (a game keeps its state in its own context, never in the program)."""

    def __init__(self, roots: Sequence[str | Path]):
        super().__init__(roots)
        self._loaded: dict[tuple[str, ...], Loaded] = {}

    def load(self, refs: Sequence[str], *, kept: bool = False) -> Loaded:
        # a program runs under the back end of evaluation it was made with (RULESLANG_EVAL)
        key = (default_backend(), *refs)
        if key not in self._loaded:
            self._loaded[key] = super().load(refs, kept=kept)
            # the program lives as long as the process: out of the collector's full passes, which
            # would scan its hundreds of thousands of objects again in every game (about half of
            # a heuristic game's collection time; docs/performance.md, session 9); the young
            # generations collected as a game's objects want (runtime/collector.py)
            collector.for_play()
        return self._loaded[key]


class GamePlayer:
    """Plays tasks under one workspace, loading each composition once."""

    def __init__(self, workspace: LoadedOnce):
        self.workspace = workspace

    def play(self, task: GameTask) -> dict:
        """The record of one game: its result, what each round looked like, its accounting."""
        setup = GameSetup(refs=list(task.refs), scenario=task.scenario, seed=task.seed, rounds=task.rounds,
                          players=dict(task.players), default_agent=task.agent, bids=dict(task.bids))
        # (the record below reads the result, the rounds' incomes and counts and the events' accounting)
        game = build_game(self.workspace, setup, scenario_text=task.scenario_text, full_record=False)
        result = game.run(task.rounds)
        players = frozenset(game.ctx.player_values)
        spaces = frozenset(s.name for s in game.state.map.spaces)
        played = len(game.summaries)
        record = {
            "seed": task.seed,  # `play --seed` with the same rulesets, agents and rounds plays it again
            "winner": result.get("winner"),
            "ahead": result.get("ahead"),
            "reason": result.get("reason"),
            "rounds": played,
            "scores": result.get("scores") or {},
            "income": {p: [s.income.get(p) for s in game.summaries] for p in game.state.map.turn_order},
            "battles": [len(s.battles) for s in game.summaries],
            "control_changes": [len(s.control_changes) for s in game.summaries],
            "accounting": game_accounting(game.state.events, players, spaces, played),
        }
        game.close()  # freed now, not by the collector's next full pass in the next game (`Game.close`)
        return record


_worker: GamePlayer | None = None  # the player of a worker process, made by its initializer


def _start_worker(roots: list[str]) -> None:
    """A worker's start: Ctrl-C is the parent's to handle (it stops the pool and says what is kept)."""
    global _worker
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _worker = GamePlayer(LoadedOnce(roots))


def _play_in_worker(task: GameTask) -> tuple[GameTask, dict, float]:
    start = time.perf_counter()
    record = _worker.play(task)
    return task, record, time.perf_counter() - start


def play_all(workspace: LoadedOnce, roots: Sequence[str | Path], tasks: Iterable[GameTask], jobs: int,
             done: Callable[[GameTask, dict, float], None]) -> None:
    """Play every task, calling `done(task, record, seconds)` in this process as each finishes (in
    the order they finish): with one job here, under `workspace`; with more, in worker processes
    that open the ruleset folders `roots`, at most two tasks a worker waiting in the pool, so an
    interruption loses only the games in flight."""
    roots = [str(r) for r in roots]
    if jobs == 1:
        player = GamePlayer(workspace)
        for task in tasks:
            start = time.perf_counter()
            record = player.play(task)
            done(task, record, time.perf_counter() - start)
        return
    pending = iter(tasks)
    with ProcessPoolExecutor(jobs, initializer=_start_worker, initargs=(roots,)) as pool:
        running = set()
        try:
            while True:
                for task in pending:
                    running.add(pool.submit(_play_in_worker, task))
                    if len(running) >= 2 * jobs:
                        break
                if not running:
                    return
                finished, running = wait(running, return_when=FIRST_COMPLETED)
                for future in sorted(finished, key=lambda f: (f.result()[0].game, f.result()[0].variant)):
                    done(*future.result())
        except BaseException:
            # the games in flight are lost anyway: stop their workers now rather than wait for them
            # (the executor offers no public way to)
            for process in list((pool._processes or {}).values()):
                process.terminate()
            # then wait for the pool's manager thread, which sees the workers gone and closes its
            # pipes: one still running at interpreter exit races CPython's own exit hook for the
            # pipe (gh-125451, unlocked in 3.11) and prints "Bad file descriptor" with a traceback
            pool.shutdown(wait=True, cancel_futures=True)
            raise
