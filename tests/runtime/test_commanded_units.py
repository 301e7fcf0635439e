"""The movement engine's commanded units (the `runtime move` setting `commands`): an ally's unit
the rules let the mover command moves, boards and lands as the mover's own; without the setting
the engine refuses it."""

from __future__ import annotations

import dataclasses

from test_movement import REVISED, aar, board, one  # noqa: F401 (aar: the map fixture)

from ruleslang.runtime.kit.movement import Move, MovementEngine, MovementRules

SCENARIO = """
    setup: empty
    units:
      United Kingdom: {British: {infantry: 1, fighter: 1}}
      7 Sea Zone: {Americans: {transport: 1}}
      Western Europe: {Germans: {infantry: 1}}
"""


def _rules(aar, commanded_owner: str | None) -> MovementRules:
    side = {p.name: p.side for p in aar.players}

    def unit_rules(unit_type, owner):
        base = REVISED[unit_type]
        return dataclasses.replace(base, commanded=True) if owner == commanded_owner else base
    return MovementRules(unit_rules, lambda a, b: side[a] == side[b])


def test_an_allys_commanded_units_move_board_and_attack_as_the_movers_own(aar):
    state = board(aar, SCENARIO)
    infantry = one(state, "United Kingdom", "British", "infantry")
    fighter = one(state, "United Kingdom", "British", "fighter")
    transport = one(state, "7 Sea Zone", "Americans", "transport")
    us = MovementEngine(state, _rules(aar, "British"), "Americans", "combat")
    assert {infantry, fighter, transport} <= set(us.movable_units())
    assert us.commanded_units() == sorted([infantry, fighter])
    # the British infantry boards the American transport in the American turn and goes ashore at once
    us.apply(Move((infantry,), ("United Kingdom", "7 Sea Zone"), "load", transport))
    us.apply(Move((infantry,), ("7 Sea Zone", "Western Europe"), "unload", transport))
    us.apply(Move((fighter,), ("United Kingdom", "7 Sea Zone", "Western Europe")))
    assert {u.space for u in state.units if u.owner == "British"} == {"Western Europe"}
    assert us.contested() == ["Western Europe"]


def test_without_the_setting_an_allys_units_are_refused(aar):
    state = board(aar, SCENARIO)
    fighter = one(state, "United Kingdom", "British", "fighter")
    us = MovementEngine(state, _rules(aar, None), "Americans", "combat")
    assert fighter not in us.movable_units() and us.commanded_units() == []
    assert us.check(Move((fighter,), ("United Kingdom", "7 Sea Zone", "Western Europe"))) == [
        f"fighter {fighter} belongs to British, not Americans"]
