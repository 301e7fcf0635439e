"""The units left in a battle's space after it, known from its set-up (`Battle.standing_since`):
the units the set-up found there, less those gone, when the battle's own removals of its
casualties are the only changes of the board's units since; otherwise not known (None), and the
territory's leftovers are found by a walk over the board as before (issue 15, session 27, play
kept)."""

from __future__ import annotations

from game_fixtures import make_game
from ruleslang.runtime.kit import battle as battle_module
from ruleslang.runtime.kit.battle import _new_battle, units_at
from ruleslang.runtime.kit.battle_rules import BattleRules


def _set_up(game):
    state = game.state
    state.start_turn("Russians")
    space = next(u.space for u in state.units if u.owner == "Germans" and game.board.is_land(u.space)
                 and sum(1 for v in state.units if v.space == u.space) >= 3)
    battle, _, here = _new_battle(game, space, BattleRules(game, game.kit.battle_config()))
    return battle, here, state.placement_mark()


def test_after_the_battles_own_removals_the_units_left_are_the_set_ups_less_those_gone():
    game = make_game(["aar/house-rules@1"])
    battle, here, placed = _set_up(game)
    assert battle.standing_since(placed, here) == here
    battle.pending = [here[0].id]
    battle.end_round()
    battle.hit(game.ctx, 1, [here[1].id], "Germans", True)  # removed at once
    assert battle.removals == 2
    left = battle.standing_since(placed, here)
    assert left == units_at(game.state, battle.space) == here[2:]


def test_any_other_change_of_the_boards_units_leaves_them_unknown():
    game = make_game(["aar/house-rules@1"])
    state = game.state
    battle, here, placed = _set_up(game)
    other = next(u for u in state.units if u.space != battle.space and game.board.is_land(u.space))
    state.move_units([other.id], battle.space)  # a unit came
    assert battle.standing_since(placed, here) is None
    battle, here, placed = _set_up(make_game(["aar/house-rules@1"]))
    battle.game.remove_units([here[0].id], "not by the battle")  # a removal the battle did not make
    assert battle.standing_since(placed, here) is None
    battle, here, placed = _set_up(make_game(["aar/house-rules@1"]))
    battle.game.state.add_units("Germany", "infantry", "Germans")
    assert battle.standing_since(placed, here) is None
    battle, here, placed = _set_up(make_game(["aar/house-rules@1"]))
    battle.game.state.update_units([here[0].id], hits=1)  # units in place: still known
    assert battle.standing_since(placed, here) == here
    assert battle.standing_since(None, here) is None


def test_in_games_the_leftovers_known_are_the_walks(monkeypatch):
    """Every answer `standing_since` gives in heuristic games is what the walk over the board finds,
    and most captures are answered so."""
    known = []
    original = battle_module.Battle.standing_since

    def checked(self, placed, here):
        found = original(self, placed, here)
        if found is not None:
            assert found == units_at(self.game.state, self.space)
        known.append(found is not None)
        return found
    monkeypatch.setattr(battle_module.Battle, "standing_since", checked)
    for seed in (1, 2):
        game = make_game(["aar/house-rules@1"], seed=seed, default_agent="heuristic", rounds=2)
        game.run(3)
    assert len(known) > 10 and sum(known) > len(known) // 2
