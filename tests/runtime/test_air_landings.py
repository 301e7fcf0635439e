"""The movement engine's `landings` query (kit/air.py): where an air unit could land after a move,
as the board stands, with the carrier room there; what the heuristic agent plans its attacks by."""

from __future__ import annotations

from movement_fixtures import ids
from ruleslang.runtime.kit.movement import Move
from ruleslang.runtime.kit.movement_rules import MoveBoard
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


def test_landings_asked_again_are_kept_until_the_carrier_room_changes(aar, rules, monkeypatch):  # noqa: F811
    """The plans ask `landings` of every air unit for every target: an answer is kept for the space
    the path ends in, the movement left there, the carrier cost and where the unit stands (all it
    depends on of the unit), until the carrier room changes."""
    state = board(aar, """
        setup: empty
        units:
          5 Sea Zone: {Germans: {carrier: 1, fighter: 1}}
          Germany: {Germans: {fighter: 2}}
          Karelia S.S.R.: {Russians: {infantry: 1}}
    """)
    germans = engine(state, rules, "Germans")
    first, second = sorted(u.id for u in state.units if u.space == "Germany")
    aboard = one(state, "5 Sea Zone", "Germans", "fighter")
    searched: list[str] = []
    reach = MoveBoard.air_reach
    monkeypatch.setattr(MoveBoard, "air_reach",
                        lambda self, start, left: (searched.append(start), reach(self, start, left))[1])
    path = ("Germany", "5 Sea Zone", KARELIA)
    kept = germans.landings(first, path)
    assert kept["5 Sea Zone"] == 1 and kept["Norway"] is None
    assert germans.landings(second, path) == kept        # the fighter beside it: the same answer...
    assert searched == [KARELIA]                         # ...not worked out again
    kept["5 Sea Zone"] = 7                               # (a copy: the caller may change it)
    assert germans.landings(first, path)["5 Sea Zone"] == 1
    germans.apply(Move((aboard,), ("5 Sea Zone", "Germany")))  # its place on the carrier is free now
    assert germans.landings(first, path)["5 Sea Zone"] == 2
    assert searched == [KARELIA, KARELIA]


def test_landing_destinations_are_kept_until_the_carrier_room_changes(aar, rules):  # noqa: F811
    """`landing_destinations` (the non-combat landing move asks it of every stranded air unit
    after each landing): the unit's destinations that `landings` from where it stands offers,
    the same dict again after a flight ashore, a new one when a fighter leaving a carrier frees
    room on it."""
    state = board(aar, """
        setup: empty
        units:
          5 Sea Zone: {Germans: {carrier: 1, fighter: 2}}
          Germany: {Germans: {fighter: 1}}
          Norway: {Germans: {fighter: 1}}
    """)
    germans = engine(state, rules, "Germans", "noncombat")
    flying = one(state, "Germany", "Germans", "fighter")
    other = one(state, "Norway", "Germans", "fighter")
    aboard = ids(state, "5 Sea Zone", "Germans", "fighter")
    found = germans.landing_destinations(flying)
    now = germans.landings(flying, ("Germany",))
    assert found == {s: p for s, p in germans.destinations(flying).items() if s in now}
    assert "Eastern Europe" in found and "5 Sea Zone" not in found   # the carrier is full
    assert germans.landing_destinations(one(state, "5 Sea Zone", "Germans", "carrier")) == {}
    germans.apply(Move((other,), germans.destinations(other)["Germany"]))  # ashore: no carrier room changed
    assert germans.landing_destinations(flying) is found
    germans.apply(Move((aboard[0],), ("5 Sea Zone", "Norway")))     # a place on the carrier is free now
    again = germans.landing_destinations(flying)
    assert again is not found and again["5 Sea Zone"] == ("Germany", "5 Sea Zone")
