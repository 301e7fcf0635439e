"""What the engine of a game no longer works out again (issue 15, session 17, play kept):

- the first space asked for after units moved, came or went is answered by one pass over the
  board (a battle's first step asks for its own space, and often nothing else is asked before
  the next move or casualty), not by the index of every space, which the second question makes;
- a counter entry no rule has set, of a counter whose default is a constant, is read without
  evaluating the default, and generated rules read counters through the context itself;
- a die's place in the rules (`at` of its `roll` event) is written once per place.

Each answer is compared with the full computation, after every event of games."""

from __future__ import annotations

from conftest import record_calls
from game_fixtures import make_game
from ruleslang.base.source import Span
from ruleslang.board.queries import BoardQueries
from ruleslang.board.state import GameState
from ruleslang.lang.eval.program import CompiledProgram


def _by_index(state: GameState, space: str) -> list[int]:
    """`space`'s units as the index of every space gives them (made now, on a new board)."""
    fresh = BoardQueries(state)
    fresh.units_in(state.map.space_names()[0])  # (the first question is answered without the index)
    return [u.id for u in fresh.units_in(space)]


def test_the_first_space_asked_for_is_answered_without_the_index(monkeypatch):
    game = make_game(["aar/house-rules@1"], seed=2, rounds=2, default_agent="random")
    queries = game.board
    record = GameState._record
    seen = {"first": 0, "events": 0}
    spaces = game.state.map.space_names()

    def compared(self, event_kind, **data):
        event = record(self, event_kind, **data)
        if self is queries.state:
            seen["events"] += 1
            space = spaces[seen["events"] % len(spaces)]
            fresh = BoardQueries(self)
            first = [u.id for u in fresh.units_in(space)]
            assert fresh._units_by_space is None  # answered without the index of every space
            assert first == _by_index(self, space), (event_kind, space)
            # a question with a filter, and the whole board's units (by id), likewise
            assert ([u.id for u in BoardQueries(self).units(space, owner=game.state.current_player)]
                    == [i for i in first if game.unit_or_none(i).owner == game.state.current_player])
            assert [u.id for u in BoardQueries(self).units()] == sorted(u.id for u in self.units)
            seen["first"] += bool(first)
        return event
    monkeypatch.setattr(GameState, "_record", compared)
    game.run(2)
    assert seen["events"] > 300 and seen["first"] > 50, seen


def test_the_second_space_asked_for_makes_the_index_kept_while_units_stand():
    game = make_game(["aar/house-rules@1"])
    queries = game.board
    held = list(dict.fromkeys(u.space for u in game.state.units))
    first, second = held[:2]
    queries.units_in(first)
    assert queries._units_by_space is None
    queries.units_in(second)
    index = queries._units_by_space
    assert index is not None
    queries.units_in(first)
    assert queries._units_by_space is index
    unit = next(u for u in game.state.units if u.space == first)
    game.state.move_units([unit.id], second)
    assert [u.id for u in queries.units_in(second)] == _by_index(game.state, second)
    assert unit.id in _by_index(game.state, second)
    assert queries._units_by_space is None  # a unit moved: the first question again without the index
    assert [u.id for u in queries.units_in(first)] == _by_index(game.state, first)
    assert queries._units_by_space is not None


def test_unset_entries_of_counters_with_constant_defaults_are_read_without_the_default(monkeypatch):
    evaluated = record_calls(monkeypatch, CompiledProgram, "counter_default", lambda self, ctx, name, key: name)
    game = make_game(["aar/house-rules@1"])
    ctx = game.ctx
    uk, russia = ctx.player_values["British"], ctx.space_values["Russia"]
    # `last_raid` has no default (an int: 0), `rocket_loss` the constant 0, `rocket_fired` false
    for _ in range(3):
        assert ctx.counter("last_raid", (uk,)) == 0
        assert ctx.counter("rocket_loss", (russia, 1, uk)) == 0
        assert ctx.counter("rocket_fired", (russia, 1, uk)) is False
    assert sorted(evaluated) == ["last_raid", "rocket_fired", "rocket_loss"]  # each made once, then read


def test_generated_rules_read_counters_through_the_context():
    game = make_game(["aar/house-rules@1"])
    compiled = CompiledProgram(game.loaded.program, backend="codegen")  # (its code generated now)
    fn = compiled.callable("attack_value")  # reads `developed(u.owner, super_submarines)`
    source = fn.generated_source
    assert "ctx.counter(" in source
    consts = [v for k, v in fn.__globals__.items() if k.startswith("_k")]
    assert "developed" in consts and not any(callable(v) and getattr(v, "__name__", "") == "<lambda>" for v in consts)
    ctx = game.ctx
    sub = next(u for u in game.state.units if u.type == "submarine")
    closures = CompiledProgram(game.loaded.program, backend="closures")
    value = ctx.unit_value(sub)
    assert fn(ctx, value) == closures.callable("attack_value")(ctx, value) == 2
    game.state.set_counter("developed", (sub.owner, "super_submarines"), True)
    assert fn(ctx, value) == closures.callable("attack_value")(ctx, value) == 3


def test_a_roll_s_place_is_written_once_per_place(monkeypatch):
    asked = []
    line = Span.line

    def counted(self):
        asked.append(self)
        return line.fget(self)
    monkeypatch.setattr(Span, "line", property(counted))
    game = make_game(["aar/house-rules@1"], seed=2, rounds=2, default_agent="random")
    game.run(2)
    rolls = [e for e in game.state.events if e["kind"] == "roll"]
    places = {e["at"] for e in rolls}
    assert len(rolls) > 10 * len(places)
    assert len(asked) == len({id(s) for s in asked}) <= len(places) + 5
    for e in rolls:  # written as before: the ruleset, the line and the column
        ref, row, column = e["at"].rsplit(":", 2)
        assert ref.startswith("aar/") and int(row) > 0 and int(column) > 0


def test_a_removal_leaves_the_index_by_id_of_the_units_left_without_changing_the_old(monkeypatch):
    """(session 19) `GameState.remove_units` gives the board the index of the units left, copied
    from the old one less the units gone, rather than leaving it to be made again from every unit
    at the next look-up; whoever holds the old index keeps it as it was."""
    game = make_game(["aar/house-rules@1"], seed=2, rounds=3, default_agent="random")
    real = GameState.remove_units
    seen = {"removals": 0}

    def compared(self, ids):
        held = self.unit_index()
        before = dict(held)
        real(self, ids)
        assert held == before  # (the old index, as a caller may hold it, unchanged)
        assert self._indexed is self.units  # the new index is made with the removal
        index = self.unit_index()
        assert list(index.items()) == [(u.id, u) for u in self.units]  # as made from the units, in order
        seen["removals"] += 1
    monkeypatch.setattr(GameState, "remove_units", compared)
    game.run(3)
    assert seen["removals"] > 5, seen
