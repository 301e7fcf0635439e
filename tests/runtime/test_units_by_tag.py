"""`units(..., tag: g)` asks each unit type's tags once per question (issue 15, session 9), not
once per unit: its answers on a played board are those of a filter asking every unit."""

from __future__ import annotations

from game_fixtures import make_game
from ruleslang.lang.builtins.board import _units_impl
from ruleslang.lang.values import LSet


def test_units_by_tag_are_those_of_asking_every_unit():
    game = make_game(["g40/house-rules@1"], seed=2, rounds=1, default_agent="random")
    game.run(1)
    ctx = game.ctx
    tags = list(ctx.enums["tag"].by_name.values())
    checked = 0
    for tag in tags[:6]:
        for owner in (None, *list(ctx.player_values.values())[:3]):
            for space in (None, *(ctx.space_values[u.space] for u in game.state.units[:40:4])):
                found = _units_impl(ctx, space, owner=owner, tag=tag)
                wanted = [u.id for u in game.board.units(space.name if space is not None else None)
                          if (owner is None or u.owner == owner.name) and ctx.unit_has_any_tag(u.type, (tag.name,))]
                assert [u.id for u in found] == wanted, (tag, owner, space)
                checked += bool(wanted)
        several = LSet.of_enums(tags[:3])
        found = _units_impl(ctx, None, tag=several)
        assert [u.id for u in found] == [u.id for u in game.board.units()
                                         if ctx.unit_has_any_tag(u.type, tuple(t.name for t in tags[:3]))]
    assert checked > 20
