"""The rules' unit values made without a call per unit (issue 15, session 27, play kept):
`EvalContext.values_of_units` (a rule's `units(...)` and a battle's sides) and `unit_value` set a
value's fields themselves instead of calling `UnitValue.__init__`. Each value must be the one the
constructor makes, field for field, and an unknown unit type must fail as before (E531)."""

from __future__ import annotations

import pytest

from game_fixtures import make_game
from ruleslang.base.errors import EvalError
from ruleslang.lang.builtins.board import _units_impl
from ruleslang.lang.eval.context import WatchedContext
from ruleslang.lang.values import UnitValue

_FIELDS = UnitValue.__slots__


def _made(ctx, unit) -> UnitValue:
    """The value as the constructor makes it (what `unit_value` returned before)."""
    return UnitValue(unit.id, ctx.unittype_values[unit.type], ctx.player_values[unit.owner],
                     ctx.space_values[unit.space], unit.hits, unit.moved)


def _fields(value) -> tuple:
    return tuple(getattr(value, name) for name in _FIELDS)


def _game():
    game = make_game(["aar/house-rules@1"], seed=3, rounds=1, default_agent="random")
    game.run(1)  # (units have moved, some taken hits; the board is not the start's)
    return game


def test_values_of_units_are_the_constructors_field_for_field():
    game = _game()
    ctx = game.ctx
    units = game.state.units
    assert any(u.moved for u in units) or any(u.hits for u in units) or len(units) > 50
    made = ctx.values_of_units(units)
    assert type(made) is tuple and len(made) == len(units)
    for unit, value in zip(units, made):
        assert type(value) is UnitValue
        assert _fields(value) == _fields(_made(ctx, unit))
        assert _fields(ctx.unit_value(unit)) == _fields(value)
    assert ctx.values_of_units([]) == ()


def test_units_gives_the_same_values_as_one_made_at_a_time():
    """`units(...)` of the game's context (in one pass) against a watching context's (which makes
    each value through `unit_value`): the same units, in the same order, with the same fields."""
    game = _game()
    ctx = game.ctx
    player = ctx.player_values[game.state.units[0].owner]
    space = ctx.space_values[game.state.units[0].space]
    for kwargs in ({}, {"owner": player}, {"space": space}, {"space": space, "owner": player}):
        fast = _units_impl(ctx, **kwargs)
        ctx.board.unit_answers().clear()  # (the answers are kept by board version: made again)
        slow = _units_impl(WatchedContext(ctx), **kwargs)
        assert fast and [_fields(v) for v in fast] == [_fields(v) for v in slow]
        assert all(type(v) is UnitValue for v in fast)


def test_an_unknown_unit_type_fails_as_before():
    game = _game()
    ctx = game.ctx
    unit = game.state.units[0]
    unit.type = "no_such_type"
    with pytest.raises(EvalError) as made:
        ctx.values_of_units([unit])
    assert made.value.code == "E531" and "no_such_type" in str(made.value)
    with pytest.raises(EvalError) as one:
        ctx.unit_value(unit)
    assert one.value.code == "E531"
    ctx.board.unit_answers().clear()
    with pytest.raises(EvalError) as asked:
        _units_impl(ctx)
    assert asked.value.code == "E531"
