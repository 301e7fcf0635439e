"""A seeded game with heuristic agents played, its log written and read back: the done-when games
of issue 12 (test_g40_one_game.py, test_aa50_events.py) count the events it holds."""

from __future__ import annotations

import json
from pathlib import Path

from ruleslang.runtime.agents.heuristic import HeuristicAgent
from ruleslang.runtime.saves import GameSetup, build_game, write_log
from ruleslang.workspace.compositions import Workspace

REPO = Path(__file__).resolve().parents[2]
WORKSPACE = Workspace([REPO / "rulesets"])


def played_log(refs: list[str], seed: int, rounds: int, folder: Path) -> list[dict]:
    """The records of the log of a `rounds`-round heuristic game under `refs` (the start record
    first, then the events), each with the round and the player whose turn it falls in (`_round`,
    `_turn`), as the log file written to `folder` holds them."""
    game = build_game(WORKSPACE, GameSetup(refs=refs, seed=seed, rounds=rounds, default_agent="heuristic"))
    # the heuristic agent asking the chain of every attack and retreat (`spare=()`, the default
    # before session 14): the seeds were chosen for what its games show
    for player in list(game.agents):
        game.agents[player] = HeuristicAgent(seed, player, spare=())
    result = game.run(rounds)
    assert result["rounds_played"] == rounds
    path = folder / "game.jsonl"
    write_log(str(path), game, None, finished=True)
    records, round_, turn = [], 0, None
    for line in path.read_text(encoding="utf-8").splitlines()[1:]:
        e = json.loads(line)
        if e["kind"] == "round":
            round_ = e["round"]
        elif e["kind"] == "turn":
            turn = e["player"]
        records.append({**e, "_round": round_, "_turn": turn})
    return records
