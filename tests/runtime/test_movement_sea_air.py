"""The movement engine on the Revised map at sea and in the air: blocking ships, canals, transports
and amphibious assaults, landing, carriers, bombing raids, contested spaces (the rest:
tests/runtime/test_movement.py)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from ruleslang.runtime.kit.movement import Move, MovementRules
from movement_fixtures import REVISED, aar, board, engine, ids, one, rules  # noqa: F401,F811 (aar, rules: pytest fixtures, used by name)


# ---------------------------------------------------------------- sea


SEA = """
    setup: empty
    units:
      7 Sea Zone: {British: {destroyer: 1, transport: 1, submarine: 1}}
      6 Sea Zone: {Germans: {destroyer: 1}}
      8 Sea Zone: {Germans: {submarine: 1}}
"""


@pytest.mark.parametrize("first", ["submarine", "destroyer"])
def test_a_sea_reach_is_kept_apart_for_units_that_may_end_among_enemies(aar, first):
    # a submarine that may end a non-combat move among enemy units (g40's and aa50's rule) and a
    # destroyer alike in all else, in one zone: the engine keeps each one's reach, whichever it
    # is asked first (the key of a sea reach holds what the walk reads)
    kinds = dict(REVISED, submarine=replace(REVISED["submarine"], ends_among_enemies=True))
    side = {p.name: p.side for p in aar.players}
    subs_end = MovementRules(lambda unit_type, owner: kinds[unit_type], lambda a, b: side[a] == side[b])
    state = board(aar, SEA)
    british = engine(state, subs_end, "British", "noncombat")
    units = {kind: one(state, "7 Sea Zone", "British", kind) for kind in ("submarine", "destroyer")}
    order = [first] + [k for k in units if k != first]
    reach = {kind: british.destinations(units[kind]) for kind in order}
    assert "6 Sea Zone" in reach["submarine"] and "6 Sea Zone" not in reach["destroyer"]


def test_enemy_blocking_units_stop_sea_movement(aar, rules):
    state = board(aar, SEA)
    british = engine(state, rules, "British")
    ship = one(state, "7 Sea Zone", "British", "destroyer")
    reach = british.destinations(ship)
    # 6 Sea Zone (a German destroyer) is an attack and a dead end: 3 and 5 are not reached through it
    assert "6 Sea Zone" in reach and "5 Sea Zone" not in reach
    assert "3 Sea Zone" not in reach  # 7-6-3 is blocked, 7-8-2-3 is three steps
    assert british.check(Move((ship,), ("7 Sea Zone", "6 Sea Zone", "5 Sea Zone"))) == [
        f"destroyer {ship} must stop in 6 Sea Zone: enemy units there block it"]
    # a submarine does not block: 8 Sea Zone is passed on the way to 2 Sea Zone
    assert reach["2 Sea Zone"] == ("7 Sea Zone", "8 Sea Zone", "2 Sea Zone")
    assert british.check(Move((ship,), ("7 Sea Zone", "8 Sea Zone", "2 Sea Zone"))) == []
    assert "8 Sea Zone" in reach  # and it may end there to attack it


def test_noncombat_sea_moves_avoid_enemy_ships(aar, rules):
    state = board(aar, SEA)
    british = engine(state, rules, "British", "noncombat")
    transport = one(state, "7 Sea Zone", "British", "transport")
    reach = british.destinations(transport)
    assert "6 Sea Zone" not in reach and "8 Sea Zone" not in reach
    assert reach["2 Sea Zone"] == ("7 Sea Zone", "8 Sea Zone", "2 Sea Zone")
    assert british.check(Move((transport,), ("7 Sea Zone", "6 Sea Zone"))) == [
        f"transport {transport} cannot enter 6 Sea Zone in non-combat move: enemy units there block it"]
    assert british.check(Move((transport,), ("7 Sea Zone", "8 Sea Zone"))) == [
        f"transport {transport} cannot end a non-combat move in 8 Sea Zone: it holds enemy units"]


def test_canal_needs_its_territories_held_by_the_side(aar, rules):
    text = """
        setup: empty
        units:
          15 Sea Zone: {British: {destroyer: 1}}
    """
    open_state = board(aar, text)
    ship = one(open_state, "15 Sea Zone", "British", "destroyer")
    assert "34 Sea Zone" in engine(open_state, rules, "British").destinations(ship)
    closed = board(aar, text, "control: {Anglo Egypt: Germans}")
    british = engine(closed, rules, "British")
    assert "34 Sea Zone" not in british.destinations(ship) and "33 Sea Zone" not in british.destinations(ship)
    assert british.check(Move((ship,), ("15 Sea Zone", "34 Sea Zone"))) == [
        f"destroyer {ship} cannot pass the Suez Canal from 15 Sea Zone to 34 Sea Zone: Anglo Egypt is held by Germans"]
    # the canal is the Axis' only when they hold both territories
    axis = """
        setup: empty
        units:
          14 Sea Zone: {Germans: {battleship: 1}}
    """
    closed = board(aar, axis, "control: {Anglo Egypt: Germans}")
    battleship = one(closed, "14 Sea Zone", "Germans", "battleship")
    germans = engine(closed, rules, "Germans")
    assert germans.check(Move((battleship,), ("14 Sea Zone", "15 Sea Zone", "34 Sea Zone"))) == [
        f"battleship {battleship} cannot pass the Suez Canal from 15 Sea Zone to 34 Sea Zone: "
        "Trans-Jordan is held by British"]
    both = board(aar, axis, "control: {Anglo Egypt: Germans, Trans-Jordan: Germans}")
    assert engine(both, rules, "Germans").destinations(battleship)["34 Sea Zone"] == (
        "14 Sea Zone", "15 Sea Zone", "34 Sea Zone")
    assert "34 Sea Zone" not in germans.destinations(battleship)
    # air units ignore canals
    air = board(aar, """
        setup: empty
        units:
          Trans-Jordan: {British: {fighter: 1}}
    """, "control: {Anglo Egypt: Germans}")
    fighter = one(air, "Trans-Jordan", "British", "fighter")
    assert engine(air, rules, "British").check(Move((fighter,), ("Trans-Jordan", "15 Sea Zone", "34 Sea Zone"))) == []


# ---------------------------------------------------------------- transports


TRANSPORT = """
    setup: empty
    units:
      United Kingdom: {British: {infantry: 3, armour: 1, aaGun: 1}}
      7 Sea Zone: {British: {transport: 1}}
      Western Europe: {Germans: {infantry: 1}}
"""


def test_load_move_and_amphibious_assault(aar, rules):
    state = board(aar, TRANSPORT)
    british = engine(state, rules, "British")
    transport = one(state, "7 Sea Zone", "British", "transport")
    inf1, inf2, inf3 = ids(state, "United Kingdom", "British", "infantry")
    armour = one(state, "United Kingdom", "British", "armour")
    gun = one(state, "United Kingdom", "British", "aaGun")
    loads = [m for m in british.legal_moves() if m.kind == "load"]
    assert Move((inf1,), ("United Kingdom", "7 Sea Zone"), "load", transport) in loads
    assert not any(m.units == (gun,) for m in loads)  # not in combat move
    british.apply(Move((inf1,), ("United Kingdom", "7 Sea Zone"), "load", transport))
    assert state.events[-1] == {
        "kind": "move_units", "ids": [inf1], "origins": ["United Kingdom"], "to": "7 Sea Zone", "steps": 1,
        "path": ["United Kingdom", "7 Sea Zone"], "flags": {"combat_moved": True, "loaded_this_turn": True},
        "onto": transport}
    british.apply(Move((inf2,), ("United Kingdom", "7 Sea Zone"), "load", transport))
    assert state.unit(transport).cargo == [inf1, inf2]
    assert state.unit(inf1).space == "7 Sea Zone" and state.unit(inf1).flags["loaded_this_turn"] is True
    # capacity 5: two infantry take 4, armour needs 3
    assert british.check(Move((armour,), ("United Kingdom", "7 Sea Zone"), "load", transport)) == [
        f"transport {transport} has room for 1, armour {armour} need 3"]
    # loaded units do not move on their own
    assert british.check(Move((inf1,), ("7 Sea Zone", "6 Sea Zone"))) == [
        f"infantry {inf1} cannot move: it is aboard a transport and can only unload"]
    # the transport carries its cargo
    british.apply(Move((transport,), ("7 Sea Zone", "6 Sea Zone")))
    assert [state.unit(i).space for i in (transport, inf1, inf2)] == ["6 Sea Zone"] * 3
    assert state.unit(inf1).moved == 1 and state.unit(transport).moved == 1
    unloads = [m for m in british.legal_moves() if m.kind == "unload"]
    assert Move((inf1,), ("6 Sea Zone", "Western Europe"), "unload", transport) in unloads
    assert Move((inf2,), ("6 Sea Zone", "Norway"), "unload", transport) in unloads
    british.apply(Move((inf1,), ("6 Sea Zone", "Western Europe"), "unload", transport))
    assert state.events[-1] == {
        "kind": "move_units", "ids": [inf1], "origins": ["6 Sea Zone"], "to": "Western Europe", "steps": 0,
        "path": ["6 Sea Zone", "Western Europe"],
        "flags": {"combat_moved": True, "unloaded": True, "unloaded_from": transport, "in_battle": True},
        "off": transport, "carrier_flags": {"unloaded_to": "Western Europe", "unloaded_in": "combat"}}
    assert state.unit(transport).cargo == [inf2]
    assert state.unit(inf1).space == "Western Europe"
    assert state.unit(transport).flags == {"combat_moved": True, "unloaded_to": "Western Europe",
                                           "unloaded_in": "combat", "passed_combat": ["6 Sea Zone"]}
    assert british.contested() == ["Western Europe"]
    # all of a transport's cargo goes to one territory
    assert british.check(Move((inf2,), ("6 Sea Zone", "Norway"), "unload", transport)) == [
        f"transport {transport} already unloaded into Western Europe this turn: "
        "all its cargo goes ashore in one territory"]
    assert [m.path for m in british.legal_moves() if m.kind == "unload"] == [("6 Sea Zone", "Western Europe")]
    # and a transport that has unloaded moves no further
    assert british.check(Move((transport,), ("6 Sea Zone", "7 Sea Zone"))) == [
        f"transport {transport} cannot move: it unloaded into Western Europe this turn"]
    assert transport not in british.movable_units()
    british.apply(Move((inf2,), ("6 Sea Zone", "Western Europe"), "unload", transport))
    assert state.unit(transport).cargo == [] and british.contested() == ["Western Europe"]
    # unloaded units are done for the turn
    assert british.check(Move((inf2,), ("Western Europe", "Germany"))) == [
        f"infantry {inf2} cannot move: it went ashore this turn"]
    # the third infantry could only have gone aboard (Eire is impassable): nothing is left to it
    assert inf3 not in british.movable_units()
    assert british.check(Move((inf3,), ("United Kingdom", "6 Sea Zone"), "load", transport)) == [
        f"transport {transport} cannot load: it unloaded into Western Europe this turn"]


def test_load_needs_movement_left_and_cargo_room(aar, rules):
    state = board(aar, TRANSPORT)
    british = engine(state, rules, "British")
    transport = one(state, "7 Sea Zone", "British", "transport")
    inf1 = ids(state, "United Kingdom", "British", "infantry")[0]
    assert british.check(Move((inf1,), ("United Kingdom", "2 Sea Zone"), "load", transport)) == [
        f"transport {transport} is in 7 Sea Zone, not 2 Sea Zone"]
    state2 = board(aar, TRANSPORT)
    british2 = engine(state2, rules, "British")
    a, b, c = ids(state2, "United Kingdom", "British", "infantry")
    t2 = one(state2, "7 Sea Zone", "British", "transport")
    assert british2.check(Move((a, b, c), ("United Kingdom", "7 Sea Zone"), "load", t2)) == [
        f"transport {t2} has room for 5, infantry {a}, infantry {b}, infantry {c} need 6"]
    state2.update_units([a], moved=1)
    assert british2.check(Move((a,), ("United Kingdom", "7 Sea Zone"), "load", t2)) == [
        f"infantry {a} cannot load: it has no movement left"]


def _loaded_transport(aar):
    """A board with only a British transport in 6 Sea Zone carrying two infantry: (state, its id, theirs)."""
    state = board(aar, """
        setup: empty
        units:
          6 Sea Zone: {British: {transport: 1, infantry: 2}}
    """)
    transport = one(state, "6 Sea Zone", "British", "transport")
    cargo = ids(state, "6 Sea Zone", "British", "infantry")
    state.update_units([transport], cargo=cargo)
    return state, transport, cargo


def test_noncombat_unload_only_into_friendly_territory(aar, rules):
    state, transport, cargo = _loaded_transport(aar)
    british = engine(state, rules, "British", "noncombat")
    assert [m.path for m in british.legal_moves() if m.kind == "unload"] == [
        ("6 Sea Zone", "United Kingdom"), ("6 Sea Zone", "United Kingdom")]
    assert british.check(Move((cargo[0],), ("6 Sea Zone", "Western Europe"), "unload", transport)) == [
        "cannot unload into Western Europe in non-combat move: it is held by Germans"]
    british.apply(Move(tuple(cargo), ("6 Sea Zone", "United Kingdom"), "unload", transport))
    assert [state.unit(i).space for i in cargo] == ["United Kingdom", "United Kingdom"]
    assert british.contested() == []


def test_unloading_in_one_phase_only(aar, rules):
    state, transport, cargo = _loaded_transport(aar)
    engine(state, rules, "British", "combat").apply(
        Move((cargo[0],), ("6 Sea Zone", "United Kingdom"), "unload", transport))
    noncombat = engine(state, rules, "British", "noncombat")
    assert noncombat.check(Move((cargo[1],), ("6 Sea Zone", "United Kingdom"), "unload", transport)) == [
        f"transport {transport} cannot unload: it unloaded in combat move"]


def test_transport_blocked_by_enemy_ships_in_noncombat(aar, rules):
    state = board(aar, TRANSPORT, "  8 Sea Zone: {Germans: {battleship: 1}}")
    british = engine(state, rules, "British", "noncombat")
    transport = one(state, "7 Sea Zone", "British", "transport")
    assert "8 Sea Zone" not in british.destinations(transport)
    assert "2 Sea Zone" not in british.destinations(transport)  # only through 8 Sea Zone
    assert british.check(Move((transport,), ("7 Sea Zone", "8 Sea Zone", "2 Sea Zone"))) == [
        f"transport {transport} cannot enter 8 Sea Zone in non-combat move: enemy units there block it"]


# ---------------------------------------------------------------- air: landing, carriers, raids


def test_air_must_be_able_to_land_after_combat(aar, rules):
    state = board(aar, """
        setup: empty
        units:
          Western Europe: {Germans: {fighter: 1}}
          1 Sea Zone: {British: {transport: 1}}
          12 Sea Zone: {British: {transport: 1}}
    """)
    germans = engine(state, rules, "Germans")
    fighter = one(state, "Western Europe", "Germans", "fighter")
    # 1 Sea Zone is 3 steps out: no friendly land within the 1 point left
    assert germans.check(Move((fighter,), ("Western Europe", "7 Sea Zone", "8 Sea Zone", "1 Sea Zone"))) == [
        f"fighter {fighter} could not land after moving to 1 Sea Zone: it would have 1 movement left "
        "and the nearest friendly landing space, Algeria, is 3 away"]
    assert "1 Sea Zone" not in germans.destinations(fighter)
    # 12 Sea Zone is 2 out, Algeria (German) is next to it
    assert germans.destinations(fighter)["12 Sea Zone"] == ("Western Europe", "7 Sea Zone", "12 Sea Zone")
    with pytest.raises(ValueError, match="could not land"):
        germans.apply(Move((fighter,), ("Western Europe", "7 Sea Zone", "8 Sea Zone", "1 Sea Zone")))


def test_air_counts_only_land_held_since_the_turn_started(aar, rules):
    state = board(aar, """
        setup: empty
        units:
          Eastern Europe: {Germans: {armour: 1, fighter: 1}}
    """)
    germans = engine(state, rules, "Germans")
    armour = one(state, "Eastern Europe", "Germans", "armour")
    fighter = one(state, "Eastern Europe", "Germans", "fighter")
    germans.apply(Move((armour,), ("Eastern Europe", "Karelia S.S.R.", "Archangel")))
    assert state.control["Karelia S.S.R."] == "Germans"
    noncombat = engine(state, rules, "Germans", "noncombat")
    assert noncombat.check(Move((fighter,), ("Eastern Europe", "Karelia S.S.R."))) == [
        f"fighter {fighter} cannot land in Karelia S.S.R.: its side did not hold it when the turn started"]


def test_carriers_take_air_units_up_to_their_room(aar, rules):
    state = board(aar, """
        setup: empty
        units:
          10 Sea Zone: {Americans: {carrier: 1, fighter: 1}}
          Eastern United States: {Americans: {fighter: 3, bomber: 1}}
    """)
    americans = engine(state, rules, "Americans", "noncombat")
    f1, f2, f3 = ids(state, "Eastern United States", "Americans", "fighter")
    bomber = one(state, "Eastern United States", "Americans", "bomber")
    assert americans.destinations(f1)["10 Sea Zone"] == ("Eastern United States", "10 Sea Zone")
    assert "10 Sea Zone" not in americans.destinations(bomber)
    assert americans.check(Move((bomber,), ("Eastern United States", "10 Sea Zone"))) == [
        f"bomber {bomber} cannot land in 10 Sea Zone: it cannot land on a carrier"]
    assert americans.check(Move((f1, f2), ("Eastern United States", "10 Sea Zone"))) == [
        "the carriers in 10 Sea Zone have room for 1, the move needs 2"]
    americans.apply(Move((f1,), ("Eastern United States", "10 Sea Zone")))
    assert americans.check(Move((f2,), ("Eastern United States", "10 Sea Zone"))) == [
        f"fighter {f2} cannot land in 10 Sea Zone: the carriers there have room for 0, not 1"]
    assert "10 Sea Zone" not in americans.destinations(f2)
    assert "9 Sea Zone" not in americans.destinations(f2)
    assert americans.check(Move((f3,), ("Eastern United States", "10 Sea Zone", "9 Sea Zone"))) == [
        f"fighter {f3} cannot land in 9 Sea Zone: no carrier of its side is there"]
    assert americans.stranded_air() == []


def test_a_moving_carrier_takes_its_landing_room_along(aar, rules):
    state = board(aar, """
        setup: empty
        units:
          10 Sea Zone: {Americans: {carrier: 1}}
          Eastern United States: {Americans: {fighter: 1}}
    """)
    americans = engine(state, rules, "Americans", "noncombat")
    carrier = one(state, "10 Sea Zone", "Americans", "carrier")
    fighter = one(state, "Eastern United States", "Americans", "fighter")
    assert "10 Sea Zone" in americans.destinations(fighter) and "11 Sea Zone" not in americans.destinations(fighter)
    americans.apply(Move((carrier,), ("10 Sea Zone", "11 Sea Zone")))
    reach = americans.destinations(fighter)
    assert "10 Sea Zone" not in reach
    assert reach["11 Sea Zone"] == ("Eastern United States", "10 Sea Zone", "11 Sea Zone")


def test_allied_carriers_and_the_units_own_place(aar, rules):
    state = board(aar, """
        setup: empty
        units:
          7 Sea Zone: {British: {carrier: 1, fighter: 1}, Americans: {fighter: 1}}
    """)
    american = one(state, "7 Sea Zone", "Americans", "fighter")
    combat = engine(state, rules, "Americans", "combat")
    # the carrier is full, but the unit's own place there is free once it leaves: it may attack
    # Western Europe (one step) and come back
    assert combat.destinations(american)["Western Europe"] == ("7 Sea Zone", "Western Europe")
    combat.apply(Move((american,), ("7 Sea Zone", "Western Europe")))
    noncombat = engine(state, rules, "Americans", "noncombat")
    assert noncombat.destinations(american)["7 Sea Zone"] == ("Western Europe", "7 Sea Zone")
    assert noncombat.stranded_air() == [american]   # still over enemy land
    noncombat.apply(Move((american,), ("Western Europe", "7 Sea Zone")))
    assert noncombat.stranded_air() == []


def test_stranded_air_at_the_end_of_noncombat(aar, rules):
    state = board(aar, """
        setup: empty
        units:
          Western Europe: {Germans: {fighter: 2}}
          6 Sea Zone: {British: {destroyer: 1}}
          5 Sea Zone: {Germans: {carrier: 1, fighter: 2}}
    """)
    f1, f2 = ids(state, "Western Europe", "Germans", "fighter")
    deck = ids(state, "5 Sea Zone", "Germans", "fighter")
    combat = engine(state, rules, "Germans", "combat")
    combat.apply(Move((f1,), ("Western Europe", "6 Sea Zone")))
    state.remove_units(ids(state, "6 Sea Zone", "British", "destroyer"))  # the battle is won
    noncombat = engine(state, rules, "Germans", "noncombat")
    assert noncombat.stranded_air() == [f1]
    # the carrier is full: no landing for a third
    assert noncombat.check(Move((f2,), ("Western Europe", "5 Sea Zone"))) == [
        f"fighter {f2} cannot land in 5 Sea Zone: the carriers there have room for 0, not 1"]
    # put there anyway (as a rule's effect might): one too many, the highest id is stranded
    state.move_units([f2], "5 Sea Zone")
    assert noncombat.stranded_air() == sorted([f1, max(deck + [f2])])


def test_bombing_raid(aar, rules):
    state = board(aar, """
        setup: empty
        units:
          Germany: {Germans: {bomber: 1, fighter: 1}}
          United Kingdom: {British: {infantry: 1}}
        factories: {United Kingdom: British, Germany: Germans}
    """)
    germans = engine(state, rules, "Germans")
    bomber = one(state, "Germany", "Germans", "bomber")
    fighter = one(state, "Germany", "Germans", "fighter")
    raid = Move((bomber,), ("Germany", "5 Sea Zone", "6 Sea Zone", "United Kingdom"), "bomb")
    assert [m for m in germans.legal_moves() if m.kind == "bomb"] == [raid]
    assert germans.check(Move((bomber,), ("Germany", "Western Europe", "6 Sea Zone", "United Kingdom"), "bomb")) == []
    assert germans.check(Move((fighter,), ("Germany", "Western Europe", "6 Sea Zone", "United Kingdom"), "bomb")) == [
        f"fighter {fighter} cannot make a bombing raid",
        f"fighter {fighter} could not land after moving to United Kingdom: it would have 1 movement left "
        "and the nearest friendly landing space, Norway, is 2 away"]
    assert germans.check(Move((bomber,), ("Germany", "Western Europe"), "bomb")) == [
        f"bomber {bomber} cannot raid Western Europe: it is not an enemy's territory"]
    assert germans.check(Move((bomber,), ("Germany", "Eastern Europe", "Karelia S.S.R."), "bomb")) == [
        f"bomber {bomber} cannot raid Karelia S.S.R.: it has no factory"]
    germans.apply(raid)
    assert state.unit(bomber).flags == {"combat_moved": True, "bombing": True,
                                        "passed_combat": ["5 Sea Zone", "6 Sea Zone", "United Kingdom"]}
    assert germans.bombing_raids() == ["United Kingdom"]
    assert germans.contested() == []  # a raid is not a battle for the territory
    assert germans.check(Move((bomber,), ("United Kingdom", "Eire"))) == [
        f"bomber {bomber} cannot move: it is on a bombing raid"]
    noncombat = engine(state, rules, "Germans", "noncombat")
    assert noncombat.check(raid) == ["bombing raids are flown in combat move"]
    assert noncombat.destinations(bomber)["Germany"] == ("United Kingdom", "6 Sea Zone", "5 Sea Zone", "Germany")


def test_contested_spaces_in_natural_order(aar, rules):
    state = board(aar, """
        setup: empty
        units:
          Germany: {Germans: {fighter: 1}}
          Eastern Europe: {Germans: {infantry: 2}}
          Norway: {Germans: {fighter: 1}}
          5 Sea Zone: {Germans: {destroyer: 1}}
          Karelia S.S.R.: {Russians: {infantry: 1}}
          6 Sea Zone: {British: {transport: 1}}
    """)
    germans = engine(state, rules, "Germans")
    inf = ids(state, "Eastern Europe", "Germans", "infantry")
    germans.apply(Move((inf[0],), ("Eastern Europe", "Karelia S.S.R.")))
    germans.apply(Move((inf[1],), ("Eastern Europe", "Belorussia")))
    germans.apply(Move((one(state, "5 Sea Zone", "Germans", "destroyer"),), ("5 Sea Zone", "6 Sea Zone")))
    germans.apply(Move((one(state, "Norway", "Germans", "fighter"),), ("Norway", "Karelia S.S.R.")))
    assert germans.contested() == ["6 Sea Zone", "Karelia S.S.R."]
