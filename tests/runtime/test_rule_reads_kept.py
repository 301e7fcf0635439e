"""What the rules' hooks read many times in a turn, answered without working it out again: a
counter's value read again under the same key while the counter stands (lang/eval/context.py),
the sets of a one-enumeration collection ordered by declaration, `intersection`, `difference` and
`sorted` of a set taken in its order (lang/values.py, lang/builtins/core.py), and the board's
factories in their spaces' natural order kept while the same spaces hold them (board/queries.py).
Each gives what the general path gives."""

from __future__ import annotations

from ruleslang.lang.builtins.core import BUILTINS
from ruleslang.lang.values import LSet, UnitValue, sort_key
from ruleslang.board.mapdata import natural_sorted

from game_fixtures import CR1, make_game


def _builtin(name):
    return BUILTINS[name].impl


def test_a_counter_read_again_sees_every_write_and_every_replaced_store():
    game = make_game(CR1, seed=3)
    ctx = game.ctx
    fighter = next(u for u in game.state.units if u.type == "fighter")
    zone = ctx.space_values["7 Sea Zone"]
    key = (fighter.id,)
    assert ctx.counter("fighter_zone", key) is None
    assert ctx.counter("fighter_zone", key) is None  # (the second read: the kept one)
    ctx.set_counter("fighter_zone", key, zone)
    assert ctx.counter("fighter_zone", key) is zone
    # the same entry under a unit's value as its key: the same text key, read after the write
    value = ctx.unit_value(fighter)
    assert isinstance(value, UnitValue) and ctx.counter("fighter_zone", (value,)) is zone
    ctx.set_counter("fighter_zone", (value,), None)
    assert ctx.counter("fighter_zone", key) is None
    # a write straight into the state (as the game's own effects make) is seen too
    british = ctx.player_values["British"]
    assert ctx.counter("last_raid", (british,)) == 0
    game.state.set_counter("last_raid", ("British",), 5)
    assert ctx.counter("last_raid", (british,)) == 5
    # the state's counters replaced by other dicts (a what-if, the exact odds' states)
    saved = game.state.counters
    game.state.counters = {name: dict(store) for name, store in saved.items()}
    game.state.counters["last_raid"][("British",)] = 7
    assert ctx.counter("last_raid", (british,)) == 7
    game.state.counters = saved
    assert ctx.counter("last_raid", (british,)) == 5


def test_a_whole_number_key_is_not_taken_for_a_true_key():
    game = make_game(CR1, seed=3)
    ctx = game.ctx
    game.state.set_counter("room", ("1",), 4)
    game.state.set_counter("room", ("true",), 9)
    assert ctx.counter("room", (1,)) == 4
    assert ctx.counter("room", (True,)) == 9
    assert ctx.counter("room", (1,)) == 4


def test_sets_of_one_enumeration_keep_the_general_order():
    game = make_game(CR1, seed=3)
    ctx = game.ctx
    spaces = [ctx.space_values[n] for n in ("8 Sea Zone", "United Kingdom", "2 Sea Zone", "Russia", "7 Sea Zone", "United Kingdom")]
    players = [ctx.player_values[n] for n in ("British", "Germans")]
    for items in (spaces, players, spaces + players, [3, 1, 2], [3, None, 1], spaces[:1], []):
        made = LSet(items)
        assert made.items == tuple(sorted(dict.fromkeys(items), key=sort_key))


def test_intersection_difference_and_sorted_give_the_general_answers():
    game = make_game(CR1, seed=3)
    ctx = game.ctx
    a = LSet(ctx.space_values[n] for n in ("8 Sea Zone", "United Kingdom", "2 Sea Zone", "7 Sea Zone"))
    b = LSet(ctx.space_values[n] for n in ("7 Sea Zone", "2 Sea Zone", "Germany"))
    both, less, order = _builtin("intersection"), _builtin("difference"), _builtin("sorted")
    for x, y in ((a, b), (b, a), (a, LSet()), (LSet(), a), (a.items[::-1], b), (a, b.items)):
        xs, ys = x.items if isinstance(x, LSet) else x, set(y.items if isinstance(y, LSet) else y)
        assert both(ctx, x, y) == LSet(v for v in xs if v in ys)
        assert less(ctx, x, y) == LSet(v for v in xs if v not in ys)
        assert both(ctx, x, y).items == LSet(v for v in xs if v in ys).items
    assert order(ctx, a) == tuple(sorted(a.items, key=sort_key))
    assert order(ctx, a.items[::-1]) == tuple(sorted(a.items, key=sort_key))
    assert order(ctx, (3, 1, 2)) == (1, 2, 3)


def test_the_factories_follow_a_capture_and_a_new_factory():
    game = make_game(CR1, seed=3)
    board, state = game.board, game.state

    def expected(owner=None):
        return tuple(state.factories[s] for s in natural_sorted(state.factories)
                     if owner is None or state.factories[s].owner == owner)

    assert board.factories() == expected() and board.factories(owner="British") == expected("British")
    uk = state.factories["United Kingdom"]
    state.factories.pop("United Kingdom")
    assert board.factories(owner="British") == expected("British") and uk not in board.factories()
    state.factories["United Kingdom"] = uk
    state.factories["Norway"] = type(uk)("Norway", "Germans", uk.kind, 0, {})
    assert board.factories() == expected() and board.factories(owner="Germans") == expected("Germans")
    assert [f.space for f in board.factories()] == list(natural_sorted(state.factories))


def test_the_factories_natural_order_is_worked_out_once_while_the_spaces_stand(monkeypatch):
    from ruleslang.board import queries
    game = make_game(CR1, seed=3)
    sorts = []
    monkeypatch.setattr(queries, "natural_sorted", lambda names: sorts.append(1) or natural_sorted(names))
    first = game.board.factories(owner="British")
    game.state.set_counter("last_raid", ("British",), 1)  # a change of the board that leaves the factories
    assert game.board.factories(owner="British") == first and game.board.factories() and len(sorts) == 1
    gone = first[-1].space
    game.state.factories.pop(gone)
    assert gone not in [f.space for f in game.board.factories()] and len(sorts) == 2


def test_a_set_of_spaces_is_made_without_the_general_sort_key(monkeypatch):
    from ruleslang.lang import values
    game = make_game(CR1, seed=3)
    names = ("8 Sea Zone", "United Kingdom", "2 Sea Zone")
    expected = tuple(sorted((game.ctx.space_values[n] for n in names), key=sort_key))
    asked = []
    monkeypatch.setattr(values, "sort_key", lambda v: asked.append(v) or sort_key(v))
    assert LSet(game.ctx.space_values[n] for n in names).items == expected and not asked


def test_allied_reads_the_program_s_sides_as_side_of_gives_them():
    game = make_game(CR1, seed=3)
    ctx = game.ctx
    allied = _builtin("allied")
    players = list(ctx.player_values.values())
    for a in players + [None]:
        for b in players + [None]:
            expected = a is not None and b is not None and (
                a == b or (ctx.side_of(a.name) is not None and ctx.side_of(a.name) == ctx.side_of(b.name)))
            assert allied(ctx, a, b) is expected
    assert allied(ctx, ctx.player_values["British"], ctx.player_values["Americans"])
    assert not allied(ctx, ctx.player_values["British"], ctx.player_values["Germans"])
