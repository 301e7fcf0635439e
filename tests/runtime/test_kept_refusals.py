"""Placement and the move phases keep the refusals of constraints that only read
(`Procedures.repeatable`) while the board is unchanged: the same games, fewer evaluations; constraints that roll dice or log (the
checker refuses effects and decisions in a constraint) are asked every time."""

from __future__ import annotations

import pytest

from game_fixtures import make_game
from ruleslang.base.paths import packaged_root
from ruleslang.lang.eval import statements
from ruleslang.runtime.kit import moves, placement
from ruleslang.workspace.compositions import Workspace

HOUSE = ["aar/house-rules@1"]


# a constraint on moves that only reads (the house rules guard no move: their move checks ask none)
GUARDED = ('ruleset aar/guarded@1\ntitle "t"\nuses aar/house-rules@1\n'
           'constraint some_units on move(p, moving, path):\n    require count(moving) > 0 else "no units"\n')


def _played(monkeypatch, repeatable: bool, refs=HOUSE, workspace=None):
    calls = []
    real = placement.check_action

    def counted(ctx, action, args):
        calls.append(action)
        return real(ctx, action, args)
    monkeypatch.setattr(placement, "check_action", counted)
    monkeypatch.setattr(moves, "check_action", counted)
    if not repeatable:
        monkeypatch.setattr(statements.Procedures, "repeatable", lambda self, action: False)
    game = make_game(refs, seed=3, rounds=3, default_agent="random", workspace=workspace)
    game.run(3)
    monkeypatch.undo()
    return [e for e in game.state.events], calls.count("place"), calls.count("move")


def test_kept_refusals_play_the_same_game_with_fewer_evaluations(monkeypatch, tmp_path):
    kept_events, kept_places, kept_moves = _played(monkeypatch, True)
    asked_events, asked_places, asked_moves = _played(monkeypatch, False)
    assert kept_events == asked_events
    assert any(e["kind"] == "place" for e in kept_events)
    assert any(e["kind"] == "move_units" for e in kept_events)
    assert kept_places < asked_places, (kept_places, asked_places)
    assert kept_moves == asked_moves == 0  # no constraint guards a move under the house rules
    # the agent's check and the decision's check of the same move: the constraints run once
    family = tmp_path / "aar"
    family.mkdir()
    (family / "guarded@1.rules").write_text(GUARDED, encoding="utf-8")
    workspace = Workspace([tmp_path, packaged_root()])
    kept_events, _, kept_moves = _played(monkeypatch, True, ["aar/guarded@1"], workspace)
    asked_events, _, asked_moves = _played(monkeypatch, False, ["aar/guarded@1"], workspace)
    assert kept_events == asked_events
    assert 0 < kept_moves < asked_moves * 0.7, (kept_moves, asked_moves)


def test_the_shipped_placement_constraints_only_read():
    game = make_game(HOUSE)
    assert game.ctx.procedures.constraints_on("place")
    assert game.ctx.procedures.repeatable("place")


@pytest.mark.parametrize("line", [
    '    require d6 > 0 else "a die"',
    '    log "placing at {t}"',
])
def test_a_constraint_that_rolls_or_logs_is_asked_every_time(line, tmp_path):
    family = tmp_path / "aar"
    family.mkdir()
    (family / "base@3.rules").write_text(
        'ruleset aar/base@3\ntitle "t"\nrevises aar/base@1\n'
        f'constraint extra on place(p, t, list):\n{line}\n', encoding="utf-8")
    game = make_game(["aar/base@3"], workspace=Workspace([tmp_path, packaged_root()]))
    assert "extra" in game.ctx.procedures.constraints_on("place")
    assert not game.ctx.procedures.repeatable("place")
