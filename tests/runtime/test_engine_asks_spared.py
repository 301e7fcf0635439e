"""Questions the engine no longer asks where their answer is known (session 19, engine23).

- The placement planner `pack`, when its `allowed` answers the same question the same way
  (`repeatable`: the place constraints only read and the board does not change while it plans),
  does not try another unit of a type refused at a territory until a unit is placed there: the
  same list would be asked again. The plan is the one asking every unit gives.
- A move phase whose rules guard no move (no `constraint on move`, none on `bomb`) does not make
  a checked move's units and path into values only to ask no constraint of them.
"""

from __future__ import annotations

from conftest import record_calls
from game_fixtures import make_game
import ruleslang.runtime.kit.moves as moves
import ruleslang.runtime.kit.placement as placement
from ruleslang.runtime.kit.placement import pack

HOUSE = ["aar/house-rules@1"]


class _Board:
    """A board of two territories bordering no sea."""

    def neighbours(self, territory, kind):
        return ()


def _allowed(asked: list):
    """Refuses everything at "North"; at "South", more than one "a", and a "b" without an "a"
    (as a rule may refuse a kind of unit alone and take it beside another); notes each question."""
    def allowed(territory, types):
        asked.append((territory, tuple(types)))
        if territory == "North":
            return ["no"]
        return ["refused"] if types.count("a") > 1 or ("b" in types and "a" not in types) else []
    return allowed


def test_a_repeatable_pack_asks_a_refused_type_once_until_a_unit_is_placed():
    asked: list = []
    units = ["b", "a", "a", "b", "c"]
    plan = pack(_Board(), ["North", "South"], units, _allowed(asked), lambda t: False, repeatable=True)
    # the "b" refused alone at South is asked again once an "a" is placed there, and fits
    assert plan == [("South", None, ["a", "b", "c"])]
    assert asked == [("North", ("b",)), ("North", ("a",)), ("North", ("c",)),
                     ("South", ("b",)), ("South", ("a",)), ("South", ("a", "a")), ("South", ("a", "b")),
                     ("South", ("a", "b", "c"))]
    # rules that may answer otherwise when asked again (dice in a constraint) are asked every unit
    every: list = []
    assert pack(_Board(), ["North", "South"], units, _allowed(every), lambda t: False) == plan
    assert len(every) == 10 and set(every) == set(asked)


def test_the_heuristic_games_packs_ask_no_question_twice_and_plan_the_same(monkeypatch):
    """Every plan of a heuristic house-rules game (the purchase's forecast and the placement) asks
    each (territory, units) once, and is the plan made asking every unit as before."""
    real = placement._pack
    seen = {"packs": 0, "questions": 0, "again": 0}

    def checked(board, territories, units, allowed, at_sea, pick_sea, repeatable):
        assert repeatable  # the house rules' place constraints only read
        asked: list = []

        def noted(territory, types):
            asked.append((territory, tuple(types)))
            return allowed(territory, types)
        plan = real(board, territories, units, noted, at_sea, pick_sea, repeatable)
        again = real(board, territories, units, allowed, at_sea, pick_sea, False)
        assert plan == again
        assert len(set(asked)) == len(asked)
        seen["packs"] += 1
        seen["questions"] += len(asked)
        return plan
    monkeypatch.setattr(placement, "_pack", checked)
    game = make_game(HOUSE, default_agent="heuristic", rounds=2, seed=4)
    game.run(2)
    assert seen["packs"] >= 10 and seen["questions"] > 100


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


def test_a_what_if_of_control_keeps_the_boards_index_of_units_by_place(monkeypatch):
    """The heuristic agent's what-if (`_what_if_taken`: the score with a territory taken, control
    changed and changed back) leaves the board as it was: the board's index of units by place is
    not made again after it (before: the version stepped twice, and the combat plan's next
    questions made the index again, about 30 times a game)."""
    from ruleslang.board.queries import BoardQueries

    game = make_game(HOUSE, default_agent="heuristic")
    agent = game.agents["Germans"]
    board, state = game.board, game.state
    before = {space: list(board.units(space)) for space in ("Germany", "Karelia S.S.R.")}
    board.units("Germany")  # the index of every space is made at the second question
    made = record_calls(monkeypatch, BoardQueries, "_index_by_space", lambda self: self)
    version, control = state.version, dict(state.control)
    assert agent._what_if_taken(game, "Karelia S.S.R.") != 0.0  # the score read the changed control
    assert state.version == version + 2 and state.control == control
    assert {space: list(board.units(space)) for space in before} == before
    assert made == []


def test_a_board_asked_while_changed_keeps_nothing_when_restored(monkeypatch):
    """`BoardQueries.restored` keeps the answers of the version the board is back at only when
    nothing was asked of the changed board: an answer worked out meanwhile is of that board."""
    from ruleslang.board.queries import BoardQueries

    game = make_game(HOUSE)
    board, state = game.board, game.state
    board.units("Germany")
    board.units("Karelia S.S.R.")  # the index is made
    version = state.version
    held = state.control["Karelia S.S.R."]
    state.control["Karelia S.S.R."] = "Germans"
    state.version += 1
    board.units("Germany")  # asked of the changed board: the queries moved to its version
    state.control["Karelia S.S.R."] = held
    state.version += 1
    made = record_calls(monkeypatch, BoardQueries, "_index_by_space", lambda self: self)
    board.restored(version)
    board.units("Germany")
    board.units("Karelia S.S.R.")
    assert len(made) == 1  # made again: nothing of the version before the change was kept
