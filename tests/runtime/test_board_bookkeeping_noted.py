"""The board's own bookkeeping on moves, placements and turn starts (board/state.py): a turn's
start resets the units the effects noted since (`_touched`), not every unit of the board; the
index of units by id is extended after units are placed, not made again; a move of one unit
finds it in the standing index. Each answer is the one the plain pass over the board gives."""

from __future__ import annotations

import copy

import pytest

from game_fixtures import make_game
from ruleslang.board.scenario import Scenario
from ruleslang.board.state import TURN_FLAGS, GameState
from movement_fixtures import aar  # noqa: F401 (a fixture)


def _reset_by_every_unit(units, player):
    """What a turn's start did before: every unit of the player looked at."""
    for unit in units:
        if unit.owner == player:
            unit.moved = 0
            for name in TURN_FLAGS:
                unit.flags.pop(name, None)


def _as_data(units):
    return [(u.id, u.owner, u.space, u.moved, list(u.flags.items())) for u in units]


@pytest.mark.parametrize("refs,seed,rounds", [(["aar/house-rules@1"], 1, 3), (["g40/house-rules@1"], 2, 2)])
def test_each_turn_start_of_a_heuristic_game_resets_what_the_plain_pass_resets(refs, seed, rounds, monkeypatch):
    starts = {"noted": 0, "plain": 0}
    start_turn = GameState.start_turn

    def compared(self, player):
        known = self._touched is not None and self._touched_for is self.units
        expected = copy.deepcopy(self.units)
        _reset_by_every_unit(expected, player)
        start_turn(self, player)
        assert _as_data(self.units) == _as_data(expected)
        if type(self.events) is list and self.events is not None:
            starts["noted" if known else "plain"] += 1
    monkeypatch.setattr(GameState, "start_turn", compared)
    game = make_game(refs, seed=seed, rounds=rounds, default_agent="heuristic")
    game.run(rounds)
    # the game's board makes one plain pass, at its first turn start; the rest look at the units noted
    assert starts["noted"] >= 8


def test_a_turn_start_resets_units_moved_flagged_or_given_since(aar):  # noqa: F811
    state = GameState.from_scenario(Scenario.start_of(aar))
    state.start_turn("Germans")  # the plain pass, once
    assert state._touched is not None and state._touched_for is state.units
    german = next(u for u in state.units if u.owner == "Germans" and u.type == "infantry")
    tank = next(u for u in state.units if u.owner == "Germans" and u.type == "armour")
    russian = next(u for u in state.units if u.owner == "Russians")
    state.move_units([german.id], german.space, 1, flags={"combat_moved": True}, trail="passed_combat")
    state.update_units([tank.id], moved=2, in_battle=True, disrupted=True)
    state.update_units([russian.id], combat_moved=True)
    state.change_owner([tank.id], "Russians")  # given away with its flags: reset at its new owner's turn
    gone = state.add_units("Germany", "infantry", "Germans")[0]
    state.move_units([gone.id], "Germany", 1, flags={"combat_moved": True})
    state.remove_units([gone.id])
    state.start_turn("Russians")
    assert (russian.moved, russian.flags) == (0, {})
    assert (tank.moved, tank.flags) == (0, {"disrupted": True})
    assert german.moved == 1 and german.flags["combat_moved"] is True  # not its owner's turn
    state.start_turn("Germans")
    assert (german.moved, german.flags) == (0, {})
    assert all(gone.id not in ids for ids in state._touched.values())


def test_a_list_of_units_replaced_without_an_effect_is_looked_at_whole(aar):  # noqa: F811
    state = GameState.from_scenario(Scenario.start_of(aar))
    state.start_turn("Germans")
    units = copy.deepcopy(state.units)
    german = next(u for u in units if u.owner == "Germans")
    german.moved, german.flags = 2, {"in_battle": True}  # set on the new list, not by an effect
    state.units = units
    state.start_turn("Germans")
    assert (german.moved, german.flags) == (0, {})
    # a copy of the board notes nothing of its own until its first turn start
    clone = state.copy()
    assert clone._touched is None
    unit = next(u for u in clone.units if u.owner == "Germans")
    clone.update_units([unit.id], moved=1)
    clone.start_turn("Germans")
    assert clone.unit(unit.id).moved == 0


def test_the_index_by_id_is_extended_after_placements_into_a_new_dict(aar):  # noqa: F811
    state = GameState.from_scenario(Scenario.start_of(aar))
    held = state.unit_index()
    before = dict(held)
    first = state.add_units("Germany", "infantry", "Germans", 2)
    second = state.add_units("Japan", "fighter", "Japanese")
    index = state.unit_index()
    assert held == before  # the index someone held is not changed
    assert index == {u.id: u for u in state.units}
    assert [index[u.id] for u in (*first, *second)] == [*first, *second]
    # a removal after a placement: the index is that of the units left
    state.add_units("Germany", "armour", "Germans")
    state.remove_units([first[0].id])
    assert state.unit_index() == {u.id: u for u in state.units}
    # a placement on a list of units replaced meanwhile: made again from the new list
    state.unit_index()
    state.add_units("Germany", "infantry", "Germans")
    state.units = list(state.units[:-1])
    state.add_units("Germany", "infantry", "Germans")
    assert state.unit_index() == {u.id: u for u in state.units}


def test_a_move_of_one_unit_is_the_move_of_a_list_of_one(aar):  # noqa: F811
    state = GameState.from_scenario(Scenario.start_of(aar))
    unit = next(u for u in state.units if u.space == "Germany" and u.type == "infantry")
    state.move_units((unit.id,), "Eastern Europe", 1, path=(unit.space, "Eastern Europe"), flags={"combat_moved": True},
                     trail="passed_combat")
    event = state.events[-1]
    assert event == {"kind": "move_units", "ids": [unit.id], "origins": ["Germany"], "to": "Eastern Europe", "steps": 1,
                     "path": ["Germany", "Eastern Europe"], "flags": {"combat_moved": True}}
    assert unit.space == "Eastern Europe" and unit.flags["passed_combat"] == ["Eastern Europe"]
    with pytest.raises(Exception, match="no unit with id"):
        state.move_units([10 ** 6], "Eastern Europe", 1)
