"""The cheapest-first casualty rank with each type's cost asked once (`cheapest_rank_of`): the
same order as `cheapest_rank`, which asks the cost of every unit it ranks (issue 15, session 30)."""

from __future__ import annotations

import random
from types import SimpleNamespace

from ruleslang.runtime.kit.casualties import casualty_order, cheapest_rank, cheapest_rank_of

COST = {"infantry": 3, "artillery": 4, "armour": 5, "fighter": 10, "battleship": 24}


def test_the_rank_by_type_orders_casualties_as_the_rank_by_unit_and_asks_each_type_once():
    rng = random.Random(30)
    for _ in range(200):
        units = [SimpleNamespace(id=i, type=rng.choice(list(COST))) for i in rng.sample(range(100), rng.randint(1, 12))]
        room = {u.id: rng.choice([0, 1, 1, 2]) for u in units}
        count = rng.randint(1, 8)
        asked = []

        def cost(u):
            asked.append(u.type)
            return COST[u.type]
        by_type = casualty_order(units, room, count, rank=cheapest_rank_of(units, cost))
        assert sorted(asked) == sorted({u.type for u in units})  # once a type, before the sort
        assert by_type == casualty_order(units, room, count, rank=cheapest_rank(lambda u: COST[u.type]))
