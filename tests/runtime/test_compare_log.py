"""A compare worker's game logs each decision by its kind and player alone (`Game.logs_offers`):
its record reads no decision's offers nor answer, and the game's own readers of its events and
decisions (the kit's turn state, the look-ahead) read only their kind and player. The game is
the same game: every other event, every answer and the record are those of the game logged in
full."""

from __future__ import annotations

import pytest

from conftest import LoadedOnceHere
from ruleslang.compare import runner
from ruleslang.compare.accounting import game_accounting
from ruleslang.compare.runner import GamePlayer, GameTask, game_seed
from ruleslang.runtime.saves import GameSetup, build_game

REFS = ("aar/house-rules@1",)


def _asked(event: dict) -> bool:
    """Whether the event is a decision asked of an agent (`Game._record`; a rule's `choose` logs
    its answer as an event of its own, the same in both games)."""
    return event["kind"] == "decision" and "decision" in event


def _lean(event: dict) -> dict:
    """An event as a compare worker's game logs it."""
    if not _asked(event):
        return event
    return {k: v for k, v in event.items() if k not in ("offered", "answer")}


@pytest.mark.parametrize("agent, rounds", [("random", 3), ("heuristic", 2)])
def test_a_worker_logs_decisions_by_kind_and_player(agent, rounds, monkeypatch):
    workspace = LoadedOnceHere()
    seed = game_seed(1, 0)
    played = {}

    def build(*args, **kwargs):
        game = build_game(*args, **kwargs)
        # (the game is emptied once its record is made: its lists are kept as they are)
        played.update(events=game.state.events, decisions=game.decisions, answers=game.answers)
        return game
    monkeypatch.setattr(runner, "build_game", build)
    record = GamePlayer(workspace).play(GameTask(0, 0, REFS, None, None, seed, rounds, (), agent))

    full = build_game(workspace, GameSetup(refs=list(REFS), seed=seed, rounds=rounds, default_agent=agent))
    full.run(rounds)
    events = full.state.events

    logged = [e for e in played["events"] if _asked(e)]
    assert len(logged) > 20 and not any("offered" in e or "answer" in e for e in logged)
    assert all("offered" in e and "answer" in e for e in events if _asked(e))
    # the same game, event for event, answer for answer
    assert played["events"] == [_lean(e) for e in events]
    assert played["answers"] == full.answers
    assert played["decisions"] == [{k: v for k, v in d.items() if k != "answer"} for d in full.decisions]
    players = frozenset(full.ctx.player_values)
    spaces = frozenset(s.name for s in full.state.map.spaces)
    assert record["accounting"] == game_accounting(events, players, spaces, len(full.summaries))
    assert record["rounds"] == len(full.summaries)
    full.close()
