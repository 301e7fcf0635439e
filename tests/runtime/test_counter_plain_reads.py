"""An int, bool or text counter holding a value of its own type is read as it is, and an
enumeration counter's names are converted once each (issue 15, session 9: `EvalContext.counter`
skips `convert_data` for them). Every counter read of a random house-rules game gives what the
full conversion gives, and values of another type still go through it (a stored number that is
not the counter's type is refused as before)."""

from __future__ import annotations

import pytest

from game_fixtures import make_game
from ruleslang.base.errors import EvalError
from ruleslang.lang.eval.context import EvalContext, counter_key


def test_every_read_is_the_full_conversion(monkeypatch):
    reads = {"plain": 0, "names": 0, "converted": 0}
    read = EvalContext.counter

    def compared(self, name, key, reader=None):
        answer = read(self, name, key, reader)
        if self.state is not None:
            store = self._counter_store(name)
            raw_key = tuple(counter_key(k) for k in key)
            if raw_key in store:
                full = self.compiled.convert_data(store[raw_key], self.compiled.symbols[name].type, f"counter {name}",
                                                  units=self._unit_value_by_id)
                assert answer == full and type(answer) is type(full), (name, key)
                kind = self._counter_plain.get(name)
                reads["converted" if kind is None else "names" if type(kind) is dict else "plain"] += 1
        return answer
    monkeypatch.setattr(EvalContext, "counter", compared)
    game = make_game(["aar/house-rules@1"], seed=2, rounds=3, default_agent="random")
    game.run(3)
    assert reads["plain"] > 100 and reads["names"] > 10, reads


def test_a_stored_value_of_another_type_is_still_refused():
    game = make_game(["aar/house-rules@1"])
    ctx = game.ctx
    uk = ctx.player_values["British"]
    assert ctx.counter("last_raid", (uk,)) == 0
    game.state.set_counter("last_raid", ("British",), 3)
    assert ctx.counter("last_raid", (uk,)) == 3
    game.state.set_counter("last_raid", ("British",), "three")
    with pytest.raises(EvalError):
        ctx.counter("last_raid", (uk,))


def test_an_enumeration_counter_reads_each_name_once_and_refuses_a_name_it_does_not_know():
    game = make_game(["aar/house-rules@1"])
    ctx = game.ctx
    key = (7,)
    game.state.set_counter("fighter_zone", ("7",), "7 Sea Zone")
    first = ctx.counter("fighter_zone", key)
    assert first == ctx.space_values["7 Sea Zone"]
    game.state.set_counter("fighter_zone", ("8",), "7 Sea Zone")
    assert ctx.counter("fighter_zone", (8,)) is first                 # converted once
    game.state.set_counter("fighter_zone", ("7",), None)
    assert ctx.counter("fighter_zone", key) is None
    game.state.set_counter("fighter_zone", ("7",), "Atlantis")
    with pytest.raises(EvalError):
        ctx.counter("fighter_zone", key)


def test_text_keys_are_those_counter_key_gives():
    from ruleslang.lang.eval.context import _text_key, counter_key
    game = make_game(["aar/house-rules@1"])
    uk, sz = game.ctx.player_values["British"], game.ctx.space_values["7 Sea Zone"]
    for key in [(uk,), (7,), (True,), ("x",), (uk, sz), (sz, 3), (False, uk), (uk, sz, 2), (), (1.5, "a", uk, True)]:
        assert _text_key(key) == tuple(counter_key(k) for k in key), key


@pytest.mark.parametrize("refs,rounds", [(["aar/house-rules@1"], 3), (["g40/house-rules@1"], 1)])
def test_entries_written_in_place_are_those_built_again(refs, rounds, monkeypatch):
    """A write through the context to a counter whose keys are all text updates the kept entries
    in place (`EvalContext.set_counter`): after every write of a game they are the entries built
    again from the state."""
    written = {"in place": 0}
    write = EvalContext.set_counter

    def compared(self, name, key, value):
        write(self, name, key, value)
        cached = self._counter_cache.get(name)
        state = self.state
        if (cached is not None and cached[0] is state.counters and cached[1] is state.counters.get(name)
                and cached[2] == state.counter_writes.get(name, 0)):
            built = {tuple(counter_key(k) for k in raw): v for raw, v in state.counters[name].items()}
            assert cached[3] == built, name
            written["in place"] += 1
    monkeypatch.setattr(EvalContext, "set_counter", compared)
    game = make_game(refs, seed=1, rounds=rounds, default_agent="random")
    game.run(rounds)
    assert written["in place"] > 20, written


def test_a_counter_with_a_key_not_in_text_is_built_again_after_a_write():
    game = make_game(["aar/house-rules@1"])
    ctx, state = game.ctx, game.state

    def built(key):  # the entry the full computation finds: the last raw key of that text
        return {tuple(counter_key(k) for k in raw): v for raw, v in state.counters["last_raid"].items()}[key]
    state.counters["last_raid"] = {("7",): 1, (7,): 3}   # a scenario may give a key as a number
    assert ctx.counter("last_raid", (7,)) == built(("7",)) == 3
    ctx.set_counter("last_raid", (7,), 2)                 # written under the text key, first in the dict
    assert ctx.counter("last_raid", (7,)) == built(("7",))
    uk = ctx.player_values["British"]
    ctx.set_counter("last_raid", (uk,), 5)
    assert ctx.counter("last_raid", (uk,)) == 5 and ctx.counter("last_raid", (7,)) == built(("7",))
