"""A context keeps a counter's entries (keyed as text) until the counter is written or the state's
counters are replaced, not until any event: what it reads after either is what the state holds."""

from __future__ import annotations

from game_fixtures import CR1, make_game


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
