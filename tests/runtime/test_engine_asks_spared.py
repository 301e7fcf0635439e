"""Questions the engine no longer asks where their answer is known (session 19, engine23).

- A move phase whose rules guard no move (no `constraint on move`, none on `bomb`) does not make
  a checked move's units and path into values only to ask no constraint of them.
"""

from __future__ import annotations

from conftest import record_calls
from game_fixtures import make_game
import ruleslang.runtime.kit.moves as moves

HOUSE = ["aar/house-rules@1"]


def test_moves_no_rule_guards_are_not_made_into_values(monkeypatch):
    """The Revised house rules guard no move: a move phase's checks ask `check_action` nothing
    (before: once for every move checked, with its units and path made into values)."""
    asked = record_calls(monkeypatch, moves, "check_action", lambda ctx, action, args: action)
    game = make_game(HOUSE, default_agent="heuristic", rounds=1, seed=4)
    game.run(1)
    assert any(e["kind"] == "move_units" for e in game.state.events)
    assert asked == []


def test_moves_the_rules_guard_are_still_asked(monkeypatch):
    """Global 1940's rules guard moves (`constraint on move`): its move checks still ask them."""
    asked = record_calls(monkeypatch, moves, "check_action", lambda ctx, action, args: action)
    game = make_game(["g40/house-rules@1"], default_agent="random", rounds=1, seed=1)
    game.run(1)
    assert "move" in asked
