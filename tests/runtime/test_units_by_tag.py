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


def test_units_by_owner_and_type_in_every_space_are_those_of_a_filter():
    """The filters run one after another and a space's units are read in place
    (`BoardQueries.units_in`, issue 15, session 10): every space of a played board, empty ones
    included, gives what filtering the board's units by hand gives, and the index is not changed."""
    game = make_game(["aar/house-rules@1"], seed=3, rounds=2, default_agent="random")
    game.run(2)
    ctx, board = game.ctx, game.board
    types = list(ctx.unittype_values.values())
    players = list(ctx.player_values.values())
    kinds = (None, types[0], LSet.of_enums(types[:3]))
    empty = held = 0
    for space_name in [None, *board.spaces()]:
        if space_name is not None:
            assert list(board.units_in(space_name)) == board.units(space_name)
        space = ctx.space_values[space_name] if space_name is not None else None
        for owner in (None, players[1], LSet.of_enums(players[:2])):
            owners = None if owner is None else {p.name for p in LSet.of_enums([owner] if owner in players else owner).items}
            for kind in kinds:
                names = None if kind is None else {t.name for t in LSet.of_enums([kind] if kind in types else kind).items}
                found = _units_impl(ctx, space, owner=owner, type=kind)
                wanted = [u.id for u in game.state.units
                          if (space_name is None or u.space == space_name)
                          and (owners is None or u.owner in owners) and (names is None or u.type in names)]
                assert [u.id for u in found] == sorted(wanted), (space_name, owner, kind)
                assert _units_impl(ctx, space, owner=owner, type=kind) is found  # kept until the units change
                empty += not wanted
                held += bool(wanted)
    assert empty > 100 and held > 100
    assert sum(len(board.units_in(s)) for s in board.spaces()) == len(game.state.units)
