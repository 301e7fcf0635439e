"""What the movement tests share: the Revised map, Revised-like unit rules spelled out for the tests,
a board from scenario text over the Revised start, and the units and engine of a board
(tests/runtime/test_movement.py, tests/runtime/test_movement_sea_air.py)."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from ruleslang.board.mapdata import load_map
from ruleslang.board.scenario import Scenario, scenario_from_data
from ruleslang.board.state import GameState
from ruleslang.base.paths import packaged_root
from ruleslang.runtime.kit.movement import MovementEngine, MovementRules, UnitRules
from ruleslang.base.source import Source
from ruleslang.base.yamlio import load_yaml


REPO = Path(__file__).resolve().parents[2]

# Revised-like unit rules: what the runtime reads from aar/base, spelled out for the tests.
REVISED = {
    "infantry": UnitRules(1, "land", False, False, transport_cost=2),
    "artillery": UnitRules(1, "land", False, False, transport_cost=3),
    "armour": UnitRules(2, "land", True, False, transport_cost=3),
    "aaGun": UnitRules(1, "land", False, False, transport_cost=3, moves_in_combat=False),
    "fighter": UnitRules(4, "air", False, False, carrier_cost=1),
    "bomber": UnitRules(6, "air", False, False, can_bomb=True),
    "transport": UnitRules(2, "sea", False, False, transport_capacity=5),
    "submarine": UnitRules(2, "sea", False, False),
    "destroyer": UnitRules(2, "sea", False, True),
    "battleship": UnitRules(2, "sea", False, True),
    "carrier": UnitRules(2, "sea", False, True, carrier_capacity=2),
}


@pytest.fixture(scope="module")
def aar():
    """The Revised map as shipped."""
    return load_map("aar", [packaged_root()])


@pytest.fixture(scope="module")
def rules(aar):
    """Movement rules of the REVISED units, allies by the map's sides."""
    side = {p.name: p.side for p in aar.players}
    return MovementRules(lambda unit_type, owner: REVISED[unit_type], lambda a, b: side[a] == side[b])


def board(aar, *parts: str) -> GameState:
    """A state from YAML scenario text merged over the Revised start. The parts are joined: a
    block (starting with a new line) is dedented, a one-line part is kept as written."""
    text = "\n".join(textwrap.dedent(part).strip("\n") if part.startswith("\n") else part for part in parts) + "\n"
    data, positions = load_yaml(Source("scenario.yaml", text))
    scenario = scenario_from_data(data or {}, positions, positions.source, [packaged_root()],
                                  base=Scenario.start_of(aar))
    return GameState.from_scenario(scenario)


def ids(state: GameState, space: str, owner: str, unit_type: str) -> list[int]:
    """The ids of `owner`'s units of `unit_type` at `space`."""
    return [u.id for u in state.units if u.space == space and u.owner == owner and u.type == unit_type]


def one(state: GameState, space: str, owner: str, unit_type: str) -> int:
    """The id of one of `owner`'s units of `unit_type` at `space` (there must be one)."""
    found = ids(state, space, owner, unit_type)
    assert found, (space, owner, unit_type)
    return found[0]


def engine(state, rules, player, phase="combat") -> MovementEngine:
    """The movement engine of `player` in `phase` on `state`."""
    return MovementEngine(state, rules, player, phase)
