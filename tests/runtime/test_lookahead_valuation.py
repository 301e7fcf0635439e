"""The look-ahead's valuation asks each kind of unit's cost and hit points once (lookahead.py
`units_worth`) and gives the same figure, to the bit, as asking them unit by unit."""

from __future__ import annotations

import random

import pytest

from ruleslang.runtime import saves
from ruleslang.runtime.agents.lookahead import units_worth
from ruleslang.workspace.compositions import Workspace


def _worth_unit_by_unit(game, sign) -> float:
    """The units' worth as `valuation` summed it before: every unit's cost and hit points asked for it."""
    total = 0.0
    for unit in game.state.units:
        s = sign(unit.owner)
        if s:
            points = max(1, game.hit_points(unit))
            total += s * game.unit_cost(unit) * max(0, points - unit.hits) / points
    return total


@pytest.mark.parametrize("ref,seed", [("aar/house-rules@1", 3), ("aa50/house-rules@1", 5)])
def test_the_units_worth_by_kind_is_the_worth_unit_by_unit(ref, seed):
    setup = saves.GameSetup(refs=[ref], scenario=None, seed=seed, rounds=1, players={}, default_agent="random",
                            settings=[], orders=None)
    game = saves.build_game(Workspace([]), setup)
    game.run(1)
    pick = random.Random(seed)
    side_of = game.compiled.side_of_player
    damaged = 0
    for _ in range(4):
        # damage some units that can take more than one hit (as a battle leaves them)
        for unit in game.state.units:
            if game.hit_points(unit) > 1 and pick.random() < 0.5:
                unit.hits = pick.randint(0, game.hit_points(unit) - 1)
                damaged += unit.hits > 0
        for player in game.state.map.turn_order:
            def sign(owner, mine=side_of.get(player)):
                side = side_of.get(owner) if owner is not None else None
                return 0 if side is None else (1 if side == mine else -1)
            worth = units_worth(game, sign)
            assert worth == _worth_unit_by_unit(game, sign) and worth != 0
    assert damaged  # some damaged units were valued
