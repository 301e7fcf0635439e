"""The order in which a player takes casualties, written once: the runtime's default casualty
choice, the heuristic agent's and the exact battle chain (`ruleslang odds`) all use it.

A hit first goes to a unit that survives it (a unit with more than one hit point left absorbs
hits down to its last one); only then are units destroyed, in the order of a rank (by default
the cheapest first, by the `cost` setting of `runtime purchase`, then the lowest id). So whether
a unit with two hit points survives does not depend on whether its side's hits came in one
`hit` or in two. The casualties of n hits are the first n of those of more hits (the rank does
not depend on the count): the exact chain makes a hit once for every count on this
(runtime/odds/makings.py, `_every_made`).
"""

from __future__ import annotations

from typing import Any, Callable, Sequence


def casualty_order(units: Sequence[Any], room: dict[int, int], count: int, *,
                   rank: Callable[[Any], tuple]) -> list[int]:
    """The `count` casualties among `units` (each id once per hit it takes): `room[id]` is how
    many more hits a unit can take. Units that survive a hit absorb first (in `rank` order),
    then units are destroyed in `rank` order (`rank(unit)`: a sort key, lowest lost first)."""
    order = sorted([u for u in units if room.get(u.id, 0) > 0], key=rank)
    left = {u.id: room[u.id] for u in order}
    chosen: list[int] = []
    for u in order:  # hits a unit survives
        while left[u.id] > 1 and len(chosen) < count:
            chosen.append(u.id)
            left[u.id] -= 1
    for u in order:  # then the units destroyed, each taking its last hit
        if len(chosen) >= count:
            break
        if left[u.id] > 0:
            chosen.append(u.id)
            left[u.id] -= 1
    return chosen


def cheapest_rank(cost: Callable[[Any], int]) -> Callable[[Any], tuple]:
    """The default rank: the cheapest unit is lost first, then the lowest id."""
    return lambda u: (cost(u), u.id)


def cheapest_rank_of(units: Sequence[Any], cost: Callable[[Any], int]) -> Callable[[Any], tuple]:
    """`cheapest_rank` for `units`, where `cost(u)` reads only the unit's type (the purchase cost
    setting): each type's cost asked once, not once for every unit the sort ranks."""
    costs: dict[str, int] = {}
    for u in units:
        if u.type not in costs:
            costs[u.type] = cost(u)
    return lambda u: (costs[u.type], u.id)


def listed_rank(types: Sequence[str], cost: Callable[[Any], int]) -> Callable[[Any], tuple]:
    """Units of the listed types are lost in the list's order, then the others cheapest first."""
    position = {name: i for i, name in enumerate(types)}
    return lambda u: (position.get(u.type, len(position)), cost(u), u.id)


def keep_rank(keep: Callable[[Any], bool], units: Sequence[Any], cost: Callable[[Any], int]) -> Callable[[Any], tuple]:
    """Cheapest first, but the dearest of the units `keep` says (those that take a territory) is
    lost last, so that one stays to take it as long as any unit of its side does."""
    kept = max((u for u in units if keep(u)), key=lambda u: (cost(u), -u.id), default=None)
    kept_id = kept.id if kept is not None else None
    return lambda u: (u.id == kept_id, cost(u), u.id)


def enemy_casualty_order(units: Sequence[Any], room: dict[int, int], count: int, *,
                         cost: Callable[[Any], int]) -> list[int]:
    """The `count` casualties a player chooses among an enemy's units (a rule may let it choose
    them): the dearest unit is destroyed first, taking every hit it has room for, then the next
    (then the lowest id)."""
    chosen: list[int] = []
    for u in sorted((u for u in units if room.get(u.id, 0) > 0), key=lambda u: (-cost(u), u.id)):
        take = min(room[u.id], count - len(chosen))
        chosen += [u.id] * take
        if len(chosen) >= count:
            break
    return chosen
