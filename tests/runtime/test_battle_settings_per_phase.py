"""The battle procedure's settings on units are read once per phase (docs/runtime.md "Kit
settings"), not once per game: `aa50/d-day@1` makes the casualties of British and American units
chosen by no single power while D-Day is in progress (a counter its hooks set and clear), so the
`casualties_by` answer for a British unit must follow the counter from one phase to the next."""

from __future__ import annotations

from game_fixtures import make_game
from ruleslang.runtime.kit.battle_rules import BattleRules


def _chooser(game, unit):
    """The power that chooses `unit`'s casualties by the battle's `casualties_by` (None: none)."""
    found = BattleRules(game, game.kit.battle_config()).casualties_by(unit)
    return None if found is None else found.name


def _set_d_day(game, value: bool) -> None:
    game.state.set_counter("d_day_in_progress", (), value)


def test_a_battle_setting_follows_a_counter_changed_between_phases():
    game = make_game(["aa50/d-day@1"], seed=1, rounds=1, default_agent="random")
    british = next(u for u in game.state.units if u.owner == "British")
    state = game.state
    state.current_player = "British"
    state.set_phase("battle")
    assert _chooser(game, british) == "British"
    # the Americans' turn: D-Day began at its start (a hook after `start_turn`)
    _set_d_day(game, True)
    state.current_player = "Americans"
    state.set_phase("battle")
    assert _chooser(game, british) is None
    # within one phase the answer is kept (asked once per unit type and owner)
    _set_d_day(game, False)
    assert _chooser(game, british) is None
    # the next phase reads the counter again
    state.set_phase("noncombat_move")
    assert _chooser(game, british) == "British"
