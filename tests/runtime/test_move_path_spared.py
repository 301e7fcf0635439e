"""What a single move's path through the movement engine spares (issue 15, session 29): `apply`
takes the answer of the check the agent and the decision have just made of the same move on the
same board rather than asking `check` a third time, and asks it again when the board changed
since; `contested` judges each space once (a hostile territory by its land units alone) and
lists what the plain pass over the player's units lists."""

from __future__ import annotations

import pytest

from game_fixtures import make_game
from movement_fixtures import aar, board, engine, one, rules  # noqa: F401 (aar and rules are fixtures)
from ruleslang.runtime.kit.movement import Move, MovementEngine


def _counted_checks(monkeypatch) -> list:
    asked = []
    kept = MovementEngine.check
    monkeypatch.setattr(MovementEngine, "check", lambda self, move: asked.append(move) or kept(self, move))
    return asked


def test_apply_takes_the_check_just_made_of_the_same_move(aar, rules, monkeypatch):
    state = board(aar)
    germans = engine(state, rules, "Germans")
    infantry = one(state, "Germany", "Germans", "infantry")
    move = Move((infantry,), ("Germany", "Eastern Europe"))
    asked = _counted_checks(monkeypatch)
    assert germans.check(move) == []
    germans.apply(move)
    assert asked == [move]  # the check made before, not a second one
    assert germans._unit(infantry).space == "Eastern Europe"


def test_apply_checks_again_a_move_checked_before_the_board_changed(aar, rules, monkeypatch):
    state = board(aar)
    germans = engine(state, rules, "Germans")
    infantry = one(state, "Germany", "Germans", "infantry")
    armour = one(state, "Germany", "Germans", "armour")
    first = Move((infantry,), ("Germany", "Eastern Europe"))
    second = Move((armour,), ("Germany", "Eastern Europe"))
    asked = _counted_checks(monkeypatch)
    assert germans.check(second) == []
    germans.apply(first)  # the board changed since `second` was checked
    germans.apply(second)
    assert asked == [second, first, second]


def test_apply_refuses_a_move_whose_kept_check_found_problems(aar, rules, monkeypatch):
    state = board(aar)
    germans = engine(state, rules, "Germans")
    infantry = one(state, "Germany", "Germans", "infantry")
    move = Move((infantry,), ("Germany", "Moscow"))
    problems = germans.check(move)
    assert problems
    asked = _counted_checks(monkeypatch)
    with pytest.raises(ValueError) as refused:
        germans.apply(move)
    assert str(refused.value) == "; ".join(problems) and asked == []
    assert germans._unit(infantry).space == "Germany"


def _contested_plainly(engine) -> list[str]:
    """`contested` as the plain pass over every unit of the player's asks it."""
    found = set()
    for unit in engine._mine:
        if unit.flags.get("bombing"):
            continue
        space = unit.space
        if space in engine._enemy or (not engine.board.is_sea[space] and engine._ur[unit.id].domain == "land"
                                      and not engine._friendly(space)):
            found.add(space)
    return sorted(found, key=engine.board.order.__getitem__)


@pytest.mark.parametrize("refs,rounds,seed,agent", [(["aar/house-rules@1"], 4, 1, "heuristic"),
                                                    (["g40/house-rules@1"], 2, 2, "random")])
def test_the_contested_spaces_are_those_of_the_plain_pass(refs, rounds, seed, agent, monkeypatch):
    seen = {"asked": 0, "battles": 0}
    kept = MovementEngine.contested

    def compared(self):
        answer = kept(self)
        assert answer == _contested_plainly(self), (self.player, self.phase)
        seen["asked"] += 1
        seen["battles"] += len(answer)
        return answer
    monkeypatch.setattr(MovementEngine, "contested", compared)
    game = make_game(refs, seed=seed, rounds=rounds, default_agent=agent)
    game.run(rounds)
    assert seen["asked"] >= 8 and seen["battles"] >= 8, seen
