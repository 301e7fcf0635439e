"""What a game's battles no longer look for by walking the whole board (issue 15, session 19,
play kept):

- a battle's set-up walks the board for its space's units once, and hands them to the board's
  queries (`BoardQueries.note_units_in`): its first step's question for its own space
  (`units(battle_space(), tag: aa)`) is answered from them, by id, without a pass of its own;
- the ships offshore of a battle no landing came to are none, found without a walk;
- after a sea battle, the allies' air units riding the attacker's carriers are looked for in one
  walk, and the carriers' room is not worked out when there are none;
- units that came to a battle's space during its start step are looked for only when a unit
  moved, came or went since the set-up;
- the sea battles of enemy units that came after the combat move are looked for only when a
  unit moved, came or went since it ended (`KitState.stand_as_at_contest`).

Walks over the board are counted on a list of units that counts its iterations; every answer
is compared with the walk's, in games too."""

from __future__ import annotations

import copy

from conftest import record_calls
from game_fixtures import make_game
from ruleslang.board.queries import BoardQueries
from ruleslang.runtime.kit import battle as battle_module
from ruleslang.runtime.kit import landings
from ruleslang.runtime.kit.battle import Battle, _allied_air_follows_its_carriers, _new_battle, _offshore
from ruleslang.runtime.kit.battle_rules import BattleRules


class CountedUnits(list):
    """The board's list of units, counting the walks over it."""

    walks = 0

    def __iter__(self):
        self.walks += 1
        return super().__iter__()


def _counted(game) -> CountedUnits:
    units = game.state.units = CountedUnits(game.state.units)
    game.state.log("units counted")  # (an event: the board's queries see the new list)
    game.state.unit_index()  # (the index by id made again for the new list now, not counted)
    units.walks = 0
    return units


def _held_space(game, player: str) -> str:
    return next(u.space for u in game.state.units if u.owner == player and game.board.is_land(u.space))


def test_a_battles_set_up_answers_the_first_question_for_its_own_space():
    game = make_game(["aar/house-rules@1"])
    state = game.state
    state.start_turn("Russians")
    space = _held_space(game, "Russians")
    other = next(u.space for u in state.units if u.space != space)
    rules = BattleRules(game, game.kit.battle_config())
    units = _counted(game)
    plain = units[:]  # (a slice: no walk counted)

    def ids_in(where: str) -> list[int]:
        return sorted(u.id for u in plain if u.space == where)
    battle, _, here = _new_battle(game, space, rules)
    assert units.walks == 1  # the space's units (no landing came: no walk for the ships offshore)
    answer = game.board.units_in(space)
    assert units.walks == 1  # answered from the set-up's walk
    assert [u.id for u in answer] == ids_in(space) and sorted(u.id for u in here) == ids_in(space)
    assert game.board._units_by_space is None  # (nor by the index of every space)
    # another space is then the first question, answered by a pass of its own
    assert [u.id for u in game.board.units_in(other)] == ids_in(other)
    assert units.walks == 2
    # a unit moved: the note is gone
    mover = here[0]
    state.move_units([mover.id], other)
    assert mover.id not in [u.id for u in game.board.units_in(space)]
    assert mover.id in [u.id for u in game.board.units_in(other)]


def test_no_walk_for_the_ships_offshore_of_a_battle_no_landing_came_to():
    game = make_game(["aar/house-rules@1"])
    game.state.start_turn("Russians")
    space = _held_space(game, "Russians")
    units = _counted(game)
    assert _offshore(game, space, "Russians") == []
    assert units.walks == 0
    game.kit.landed_from[space] = []  # (an empty list, as a recalled landing may leave it)
    assert _offshore(game, space, "Russians") == []
    assert units.walks == 0


def test_air_units_follow_their_carriers_with_one_walk_when_none_ride_them():
    game = make_game(["aar/house-rules@1"])
    state = game.state
    state.start_turn("Americans")
    zone = next(u.space for u in state.units if u.owner == "Americans" and game.board.is_sea(u.space))
    units = _counted(game)
    _allied_air_follows_its_carriers(game, zone, "Americans", None)
    assert units.walks == 1
    assert isinstance(state.units, CountedUnits)  # (nothing removed)


def _walked_late_sea_battles(game, rules) -> list[str]:
    """`late_sea_battles` as the walk over the board answers it (the note of the combat move's
    end forgotten, as a copy of the game has none)."""
    kit = copy.copy(game.kit)
    kit.stand_as_at_contest = lambda state: False
    original = game.kit
    game.kit = kit
    try:
        return landings.late_sea_battles(game, rules)
    finally:
        game.kit = original


def test_late_sea_battles_are_looked_for_only_when_a_unit_moved_since_the_combat_move(monkeypatch):
    game = make_game(["aar/house-rules@1"], seed=3, default_agent="random", rounds=3)
    real = landings.late_sea_battles
    seen = {"spared": 0, "walked": 0}

    def compared(game_, rules):
        found = real(game_, rules)
        if game_.kit.placed_at_contest:
            seen["spared" if game_.kit.stand_as_at_contest(game_.state) else "walked"] += 1
        assert found == _walked_late_sea_battles(game_, rules)
        return found
    monkeypatch.setattr(battle_module, "late_sea_battles", compared)
    game.run(3)
    assert seen["spared"] > 10, seen
    # a unit moved since the combat move ended: the note says so
    kit, state = game.kit, game.state
    kit.note_contest(state)
    assert kit.stand_as_at_contest(state)
    state.update_units([state.units[0].id], hits=0)  # (a unit changed in place: still where it stood)
    assert kit.stand_as_at_contest(state)
    state.move_units([state.units[0].id], state.units[1].space)
    assert not kit.stand_as_at_contest(state)


def test_units_that_came_during_the_start_step_are_looked_for_only_after_a_move(monkeypatch):
    game = make_game(["aar/house-rules@1"], seed=2, default_agent="random", rounds=4)
    join = Battle.join_arrivals
    joined = record_calls(monkeypatch, Battle, "join_arrivals", lambda battle, present: id(battle))
    started: dict[int, set[int]] = {}
    real_point, real_rounds = battle_module._resume_point, battle_module._rounds
    checked = {"battles": 0, "came": 0}  # battles whose arrivals were not looked for

    def point(game_, battle, at, present):
        if at == battle_module.START:
            started[id(battle)] = present
        return real_point(game_, battle, at, present)

    def rounds(ctx, game_, battle, sequence, rules, at):
        present = started.pop(id(battle), None)
        if present is not None and id(battle) not in joined:
            # what joining the arrivals would add now: nothing, where it was not asked
            scratch = Battle.__new__(Battle)
            vars(scratch).update(vars(battle))
            scratch.attacking, scratch.defending = list(battle.attacking), list(battle.defending)
            scratch.came_from = dict(battle.came_from)
            join(scratch, present)
            added = len(scratch.attacking) + len(scratch.defending) - len(battle.attacking) - len(battle.defending)
            checked["battles"] += 1
            checked["came"] += bool(added)
            assert not added, battle.space
        return real_rounds(ctx, game_, battle, sequence, rules, at)
    monkeypatch.setattr(battle_module, "_resume_point", point)
    monkeypatch.setattr(battle_module, "_rounds", rounds)
    game.run(4)
    assert checked["battles"] > 10 and not checked["came"], checked
