"""A board as plain data (`ruleslang map show --format json`): the map's players and spaces, and
who holds what, at the map's start or in a scenario."""

from __future__ import annotations

from collections import Counter

from ruleslang.board.mapdata import GameMap
from ruleslang.board.scenario import Scenario
from ruleslang.board.state import GameState


def as_state(board: GameState | GameMap) -> GameState:
    """A state to show: a map alone is shown at its starting position."""
    if isinstance(board, GameMap):
        return GameState.from_scenario(Scenario.start_of(board))
    return board


def units_by_space(state: GameState) -> dict[str, dict[str, Counter]]:
    """space -> owner -> unit type -> how many."""
    out: dict[str, dict[str, Counter]] = {}
    for unit in sorted(state.units, key=lambda u: u.id):
        out.setdefault(unit.space, {}).setdefault(unit.owner, Counter())[unit.type] += 1
    return out


def board_json(board: GameState | GameMap) -> dict:
    """The board's document: keys in docs/json-output.md (`map show`)."""
    state = as_state(board)
    game_map = state.map
    units = units_by_space(state)
    spaces = []
    for info in game_map.spaces:
        factory = state.factories.get(info.name)
        spaces.append({
            "name": info.name,
            "kind": info.kind,
            "controller": state.control.get(info.name),
            "original_owner": info.original_owner,
            "impassable": info.impassable,
            "neutral": info.neutral,
            "island": info.island,
            "attributes": dict(sorted(info.attributes.items())),
            "neighbours": list(game_map.neighbours(info.name)),
            "units": {owner: dict(sorted(counts.items())) for owner, counts in units.get(info.name, {}).items()},
            "factory": None if factory is None else {"owner": factory.owner, "kind": factory.kind,
                                                     "damage": factory.damage},
        })
    return {
        "map": game_map.name,
        "title": game_map.title,
        "round": state.round,
        "players": [{"name": p.name, "side": p.side, "capital": p.capital, "color": p.color,
                     "treasury": dict(state.treasury.get(p.name, {}))} for p in game_map.players],
        "sides": {side: list(members) for side, members in game_map.sides.items()},
        "turn_order": list(game_map.turn_order),
        "canals": [{"name": c.name, "sea_zones": list(c.sea_zones), "land": list(c.land)} for c in game_map.canals],
        "spaces": spaces,
    }
