"""Removing units: the units left and every cargo list as a pass over the board leaves them, with
the board's counts of what its cargo lists hold (`GameState.remove_units`) sparing that pass when
no unit removed is carried."""

from __future__ import annotations

import random

from ruleslang.board.state import Unit
from board_fixtures import aar, aar_state, roots  # noqa: F401,F811 (pytest fixtures, used by name)


def _reference_removal(units: list, ids: set) -> tuple[list, dict]:
    """What a removal of `ids` leaves, worked out by a pass over every unit: (the ids left in
    order, each unit's cargo)."""
    left = [u for u in units if u.id not in ids]
    return [u.id for u in left], {u.id: [i for i in u.cargo if i not in ids] for u in left}


def _counted(state) -> dict:
    """The ids the board's cargo lists hold, each with how many lists hold it, counted now."""
    counts: dict = {}
    for unit in state.units:
        for i in unit.cargo:
            counts[i] = counts.get(i, 0) + 1
    return counts


def _sea_and_land(state) -> tuple[str, str]:
    transport = next(u for u in state.units if u.type == "transport")
    land = next(u for u in state.units if u.type == "infantry")
    return transport.space, land.space


def test_random_removals_leave_what_a_pass_leaves(aar_state):
    """Boardings, landings, additions, copies and removals at random: after every removal the units
    left, in order, and every cargo list are what a pass over the board gives, and the board's
    counts of its cargo lists are exact."""
    state = aar_state
    rng = random.Random(7)
    zone, territory = _sea_and_land(state)
    for step in range(300):
        transports = [u for u in state.units if u.type == "transport"]
        roll = rng.random()
        if roll < 0.25 and transports:
            carrier = rng.choice(transports)
            riders = [u for u in state.units if u.type == "infantry" and u.space != carrier.space][:2]
            if riders:
                state.move_units([u.id for u in riders], carrier.space, onto=carrier.id)
        elif roll < 0.4:
            loaded = [u for u in transports if u.cargo]
            if loaded:
                carrier = rng.choice(loaded)
                state.move_units([carrier.cargo[0]], territory, off=carrier.id)
        elif roll < 0.5:
            state.add_units(zone if rng.random() < 0.5 else territory,
                            "transport" if rng.random() < 0.5 else "infantry", "Germans", 2)
        elif roll < 0.55:
            state = state.copy(events=False)
        else:
            ids = {u.id for u in rng.sample(state.units, rng.randint(1, 3))}
            expected = _reference_removal(state.units, ids)
            state.remove_units(sorted(ids))
            assert ([u.id for u in state.units], {u.id: u.cargo for u in state.units}) == expected
            assert state._carried_now() == _counted(state)
            assert all(state.unit_or_none(i) is None for i in ids)
            assert all(state.unit_or_none(u.id) is u for u in state.units)


def test_units_out_of_id_order_are_removed_by_a_pass(aar_state):
    """A list of units not in the order of their ids (not as the board keeps it) loses the units
    named all the same, the others staying in their order."""
    state = aar_state
    state.units = list(reversed(state.units))
    ids = {state.units[3].id, state.units[40].id, state.units[-1].id}
    expected = _reference_removal(state.units, ids)
    state.remove_units(sorted(ids))
    assert ([u.id for u in state.units], {u.id: u.cargo for u in state.units}) == expected


class _CargoReadCounted(Unit):
    """A unit that counts the reads of its cargo list (class-wide)."""

    reads = 0

    def __getattribute__(self, name):
        if name == "cargo":
            _CargoReadCounted.reads += 1
        return super().__getattribute__(name)


def test_a_removal_of_units_none_carries_reads_no_other_cargo(aar_state):
    """Once the board has counted its cargo lists (its first removal), removing units that no cargo
    list holds and that carry nothing reads the cargo of the units removed alone, not every unit's;
    removing a carried unit reads every unit's cargo and takes it out of its carrier's list."""
    state = aar_state
    zone, _ = _sea_and_land(state)
    transport = next(u for u in state.units if u.type == "transport")
    rider = next(u for u in state.units if u.type == "infantry" and u.space != zone)
    state.move_units([rider.id], transport.space, onto=transport.id)
    state.units = [_CargoReadCounted(**vars(u)) for u in state.units]
    infantry = [u.id for u in state.units if u.type == "infantry" and u.id != rider.id]
    state.remove_units([infantry[0]])  # the first removal: every cargo list counted
    _CargoReadCounted.reads = 0
    state.remove_units([infantry[1], infantry[2]])
    assert _CargoReadCounted.reads == 2
    _CargoReadCounted.reads = 0
    state.remove_units([rider.id])
    assert _CargoReadCounted.reads >= len(state.units)
    assert rider.id not in state.unit_or_none(transport.id).cargo
    assert state._carried_now() == _counted(state) == {}


def test_the_counts_follow_the_board_through_copies_and_boardings(aar_state):
    """A copy of the board keeps its counts, and a boarding or a landing counts the ids the
    carrier took on or let off; cargo set by `update_units` leaves them unknown until the next
    removal counts them again."""
    state = aar_state
    zone, territory = _sea_and_land(state)
    transport = next(u for u in state.units if u.type == "transport")
    riders = [u.id for u in state.units if u.type == "infantry" and u.space != transport.space][:2]
    state.remove_units([next(u.id for u in state.units if u.type == "armour")])
    state.move_units(riders, transport.space, onto=transport.id)
    assert state._carried_now() == {riders[0]: 1, riders[1]: 1}
    copy = state.copy(events=False)
    assert copy._carried_now() == {riders[0]: 1, riders[1]: 1}
    copy.move_units([riders[0]], territory, off=transport.id)
    assert copy._carried_now() == {riders[1]: 1} == _counted(copy)
    assert state._carried_now() == {riders[0]: 1, riders[1]: 1}
    state.update_units([transport.id], cargo=[riders[1]])
    assert state._carried_now() is None
    state.remove_units([riders[0]])
    assert state._carried_now() == {riders[1]: 1} == _counted(state)

