"""The movement engine's `landings` query (kit/air.py): where an air unit could land after a move,
as the board stands, with the carrier room there; what the heuristic agent plans its attacks by."""

from __future__ import annotations

from test_movement import aar, board, engine, one, rules  # noqa: F401 (aar and rules are fixtures)

KARELIA = "Karelia S.S.R."


def test_landings_after_a_move_with_the_carrier_room_left(aar, rules):  # noqa: F811
    state = board(aar, """
        setup: empty
        units:
          5 Sea Zone: {Germans: {carrier: 1, fighter: 1}}
          Germany: {Germans: {fighter: 1, infantry: 1}}
          Karelia S.S.R.: {Russians: {infantry: 1}}
    """)
    germans = engine(state, rules, "Germans")
    flying = one(state, "Germany", "Germans", "fighter")
    aboard = one(state, "5 Sea Zone", "Germans", "fighter")
    after = germans.landings(flying, ("Germany", "5 Sea Zone", KARELIA))    # 2 of its 4 left
    assert after["5 Sea Zone"] == 1                     # the carrier's room, less the fighter aboard
    assert after["Eastern Europe"] is None and after["Norway"] is None  # held since the turn started
    assert KARELIA not in after                          # its landing would depend on the battle
    assert "Germany" not in germans.landings(flying, ("Germany", "5 Sea Zone", KARELIA, "Archangel", "Russia"))
    assert germans.landings(aboard, ("5 Sea Zone", KARELIA))["5 Sea Zone"] == 2   # its own place too
    assert germans.landings(one(state, "Germany", "Germans", "infantry"), ("Germany", "Eastern Europe")) == {}
