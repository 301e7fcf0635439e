"""One compiled program per composition per process (issue 15): the games a process plays under
the same composition (the compare workers, benchmarks/play.py) share one `CompiledProgram` and
the code generated for it; a game keeps its state in its own context, so each game's log is the
log of the same game played alone in a fresh process, byte for byte."""

from __future__ import annotations

import subprocess
import sys

from ruleslang.compare.runner import LoadedOnce
from ruleslang.lang.eval import codegen, codegen_blocks
from ruleslang.runtime.saves import GameSetup, build_game, write_log

HOUSE = ["aar/house-rules@1"]
# (agent, seed, rounds): two different games, the first played again after the second
GAMES = [("random", 2, 3), ("heuristic", 5, 2), ("random", 2, 3)]


def _alone(tmp_path, agent: str, seed: int, rounds: int) -> bytes:
    """The log of the game played by `ruleslang play` in a process of its own."""
    path = tmp_path / f"alone-{agent}-{seed}.log"
    subprocess.run([sys.executable, "-m", "ruleslang", "play", "--quiet", "--log", str(path), "--ruleset", *HOUSE,
                    "--agent", agent, "--seed", str(seed), "--rounds", str(rounds)], check=True)
    return path.read_bytes()


def test_games_sharing_one_program_log_what_each_logs_alone(tmp_path, monkeypatch):
    generated: list[str] = []
    for module, name in ((codegen, "generate"), (codegen_blocks, "generate_block"),
                         (codegen_blocks, "generate_expression")):
        real = getattr(module, name)

        def counted(*args, _real=real, _name=name, **kwargs):
            generated.append(_name)
            return _real(*args, **kwargs)
        monkeypatch.setattr(module, name, counted)
    workspace = LoadedOnce([])
    logs, programs, written = [], [], []
    for i, (agent, seed, rounds) in enumerate(GAMES):
        generated.clear()
        game = build_game(workspace, GameSetup(refs=HOUSE, seed=seed, rounds=rounds, default_agent=agent))
        game.run(rounds)
        written.append(len(generated))
        programs.append(game.compiled)
        path = tmp_path / f"shared-{i}.log"
        write_log(str(path), game, None, finished=True)
        logs.append(path.read_bytes())
    assert programs[0] is programs[1] is programs[2]
    # the first game generates the code of what it runs; the random game played again generates nothing
    assert written[0] > 0 and written[2] == 0
    assert logs[0] == logs[2]
    assert logs[0] != logs[1]
    for (agent, seed, rounds), log in zip(GAMES[:2], logs):
        assert log == _alone(tmp_path, agent, seed, rounds)


def test_a_program_is_kept_per_back_end(monkeypatch):
    """A program runs under the back end it was made with: RULESLANG_EVAL changed between two loads
    of the same composition gives another program."""
    workspace = LoadedOnce([])
    monkeypatch.setenv("RULESLANG_EVAL", "codegen")
    first = workspace.load(["aar/base@1"])
    assert workspace.load(["aar/base@1"]) is first
    monkeypatch.setenv("RULESLANG_EVAL", "closures")
    other = workspace.load(["aar/base@1"])
    assert other is not first and other.compiled.backend == "closures" and first.compiled.backend == "codegen"
