"""The casualties a player chooses among an enemy's units: the dearest destroyed first."""

from __future__ import annotations

from types import SimpleNamespace

from ruleslang.runtime.kit.casualties import casualty_order, cheapest_rank, enemy_casualty_order

COST = {"cheap": 3, "dear": 20, "middle": 10}


def unit(uid, kind):
    return SimpleNamespace(id=uid, type=kind)


def test_the_dearest_enemy_unit_takes_every_hit_it_has_room_for_first():
    units = [unit(1, "cheap"), unit(2, "dear"), unit(3, "middle")]
    room = {1: 1, 2: 2, 3: 1}
    cost = lambda u: COST[u.type]  # noqa: E731
    assert enemy_casualty_order(units, room, 3, cost=cost) == [2, 2, 3]
    assert enemy_casualty_order(units, room, 1, cost=cost) == [2]
    # the player's own casualties go the other way: the two-hit unit absorbs, then the cheapest
    assert casualty_order(units, room, 2, rank=cheapest_rank(cost)) == [2, 1]
