"""A compare worker's game keeps only the record its worker reads (`Game.full_record`): each
decision is logged by its kind and player alone, each die by its kind (the record reads no
decision's offers nor answer, no die; the game's own readers of its events and decisions, the
kit's turn state and the look-ahead, read only their kind and player), and a turn's gains by
cause, the territories it took on the move and the game's start record are not worked out. The
game is the same game: every other event, every answer, the rounds' incomes, battles and control
changes, and the record are those of the game recorded in full."""

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
    if event["kind"] == "roll":
        return {"kind": "roll"}
    if not _asked(event):
        return event
    return {k: v for k, v in event.items() if k not in ("offered", "answer")}


def _both(agent: str, rounds: int, monkeypatch) -> tuple[dict, dict, object]:
    """The same game played by a compare worker (what its game kept, and its record) and in full."""
    workspace = LoadedOnceHere()
    seed = game_seed(1, 0)
    played = {}

    def build(*args, **kwargs):
        game = build_game(*args, **kwargs)
        # (the game is emptied once its record is made: its lists are kept as they are)
        played.update(events=game.state.events, decisions=game.decisions, answers=game.answers,
                      summaries=game.summaries, start=game.start)
        return game
    monkeypatch.setattr(runner, "build_game", build)
    record = GamePlayer(workspace).play(GameTask(0, 0, REFS, None, None, seed, rounds, (), agent))

    full = build_game(workspace, GameSetup(refs=list(REFS), seed=seed, rounds=rounds, default_agent=agent))
    full.run(rounds)
    return played, record, full


@pytest.mark.parametrize("agent, rounds", [("random", 3), ("heuristic", 2)])
def test_a_worker_logs_decisions_by_kind_and_player(agent, rounds, monkeypatch):
    played, record, full = _both(agent, rounds, monkeypatch)
    events = full.state.events
    logged = [e for e in played["events"] if _asked(e)]
    assert len(logged) > 20 and not any("offered" in e or "answer" in e for e in logged)
    assert all("offered" in e and "answer" in e for e in events if _asked(e))
    rolls = [e for e in played["events"] if e["kind"] == "roll"]
    assert len(rolls) > 20 and all(e == {"kind": "roll"} for e in rolls)
    # the same game, event for event, answer for answer
    assert played["events"] == [_lean(e) for e in events]
    assert played["answers"] == full.answers
    assert played["decisions"] == [{k: v for k, v in d.items() if k != "answer"} for d in full.decisions]
    players = frozenset(full.ctx.player_values)
    spaces = frozenset(s.name for s in full.state.map.spaces)
    assert record["accounting"] == game_accounting(events, players, spaces, len(full.summaries))
    full.close()


@pytest.mark.parametrize("agent, rounds", [("random", 3), ("heuristic", 2)])
def test_a_worker_works_out_no_turn_gains_nor_moves_taken(agent, rounds, monkeypatch):
    played, record, full = _both(agent, rounds, monkeypatch)
    assert played["start"] is None and full.start["kind"] == "start"  # (the state before play: saves, logs)
    lean = played["summaries"]
    assert len(lean) == len(full.summaries) == rounds
    for mine, theirs in zip(lean, full.summaries):
        assert (mine.income, mine.battles, mine.scores) == (theirs.income, theirs.battles, theirs.scores)
        assert [c[:3] for c in mine.control_changes] == [c[:3] for c in theirs.control_changes]
        assert all(c[3] is None for c in mine.control_changes) and not mine.collected and not mine.gains
    assert any(s.control_changes for s in lean) and all(s.collected for s in full.summaries)
    assert record["rounds"] == len(full.summaries)
    assert record["control_changes"] == [len(s.control_changes) for s in full.summaries]
    full.close()
