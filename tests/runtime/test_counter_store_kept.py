"""A context keeps a counter's entries (keyed as text) until the counter is written or the state's
counters are replaced, not until any event: what it reads after either is what the state holds.
The move settings kept across phases are looked at again on the same signs."""

from __future__ import annotations

from game_fixtures import CR1, make_game, run_phases
from ruleslang.runtime.kit.moves import unit_rules_of


def test_a_counter_read_after_other_events_writes_and_replacements_is_the_states():
    game = make_game(CR1)
    ctx, state = game.ctx, game.state
    uk = ctx.player_values["British"]
    assert ctx.counter("last_raid", (uk,)) == 0
    kept = ctx._counter_store("last_raid")
    state.log("an event that writes no counter")
    assert ctx._counter_store("last_raid") is kept          # kept across an unrelated event
    state.set_counter("last_raid", ("British",), 7)
    assert ctx.counter("last_raid", (uk,)) == 7             # a write is seen
    state.set_counter("room", ("UK",), 3)
    assert ctx.counter("last_raid", (uk,)) == 7
    state.counters = {name: dict(entries) for name, entries in state.counters.items()}
    state.counters["last_raid"][("British",)] = 9           # replaced dicts, written directly (as the odds do)
    assert ctx.counter("last_raid", (uk,)) == 9
    copy = state.copy()
    copy.counters["last_raid"][("British",)] = 11
    ctx.state = copy
    assert ctx.counter("last_raid", (uk,)) == 11


def _fighter_movement(game) -> int:
    config = next(c for c in game.configs.values() if c.has("movement"))
    return unit_rules_of(game.ctx, config)("fighter", "Germans").movement


def test_lasting_move_settings_see_counters_written_or_replaced_between_phases():
    game = make_game(["aar/base@1"])
    run_phases(game, "Germans", "combat_move")
    assert _fighter_movement(game) == 4
    game.state.log("no counter written")
    run_phases(game, "Germans", "combat_move")
    assert _fighter_movement(game) == 4
    # the counters replaced by other dicts, the entry written directly: seen by the next phase
    state = game.state
    state.counters = {name: dict(entries) for name, entries in state.counters.items()}
    state.counters.setdefault("developed", {})[("Germans", "long_range_aircraft")] = True
    run_phases(game, "Germans", "combat_move")
    assert _fighter_movement(game) == 6
    state.set_counter("developed", ("Germans", "long_range_aircraft"), False)
    run_phases(game, "Germans", "combat_move")
    assert _fighter_movement(game) == 4
