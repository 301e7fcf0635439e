"""The `place` runtime procedure: purchased factories are built, purchased units mobilised.

A placement answer lists (territory, sea zone or None, [unit types]): the units mobilised at a
land territory, sea units going to the named sea zone bordering it. An item may add a fourth
element, [carried unit types]: air units (`carrier_cost` above 0) mobilised from the territory
straight onto the player's carriers in that sea zone, those placed there now or already there
with room (`carrier_capacity`; a carrier already there only when the `takes_landings` setting
takes it, as a move's landing would be). The units go to the player the `owner` setting names (by default
the player placing them: an ally when one power's economies place for the player that moves all
of its units). Every territory's units, carried ones included, are
checked against the rules' `constraint on place(player, territory, units)` (and a new factory
against `on build(player, territory)`); a refused placement is asked again; units that cannot
be placed are lost, and the log says so.
"""

from __future__ import annotations

from ruleslang.base.errors import EvalError
from ruleslang.lang.eval.statements import check_action, refusal_texts_read, refusal_texts_unread
from ruleslang.runtime.config import procedure_config
from ruleslang.runtime.decisions import Decision
from ruleslang.runtime.kit.moves import takes_landings_of


def run(ctx, proc) -> None:
    game = ctx.game
    state = game.state
    config = procedure_config(ctx, proc)
    config.new_phase()
    at_sea = config.type_fn("at_sea", False)
    carrier_capacity = config.type_fn("carrier_capacity", 0)
    carrier_cost = config.type_fn("carrier_cost", 0)
    takes = takes_landings_of(config)
    player = state.current_player
    player_value = ctx.player_values[player]
    owner = _owner(ctx, config, player)

    for space in game.kit.builds.pop(player, []):
        refusals = check_action(ctx, "build", [player_value, ctx.space_values[space]])
        if refusals:
            game.log("build_refused", player=player, space=space, reasons=[r.message for r in refusals])
            continue
        state.set_factory(space, player)
        game.log("build", player=player, space=space)

    pending = game.kit.purchased.pop(player, [])
    if not pending:
        return

    # agents try the same units at the same place many times (`pack`: each unit of a kind again
    # while the others placed there are the same); constraints that only read give the same
    # refusals on the same board, so those are kept until the state changes
    kept: dict[tuple, list[str]] | None = {} if ctx.procedures.repeatable("place") else None
    kept_at = [state.version]
    unittype_values = ctx.unittype_values

    def allowed(territory: str, types: list[str]) -> list[str]:
        # refusals without their messages (asked by `pack`) are kept apart from those with
        read = refusal_texts_read()
        key = (read, territory, *types)
        if kept is not None:
            if kept_at[0] != state.version:
                kept.clear()
                kept_at[0] = state.version
            found = kept.get(key)
            if found is None and read:
                # the answer's check asks again, with the messages, what the agent's planner
                # found accepted on this board: a list no constraint refused without its
                # messages is refused by none with them (a message is worked out only on a refusal)
                quiet = kept.get((False, territory, *types))
                if quiet is not None and not quiet:
                    found = quiet
            if found is not None:
                return list(found)
        listed = tuple(map(unittype_values.__getitem__, types))
        refusals = [r.message for r in check_action(ctx, "place", [player_value, ctx.space_values[territory], listed])]
        if kept is not None:
            kept[key] = refusals
        return list(refusals)

    candidates = [t for t in game.board.spaces("land") if state.control.get(t) == player]
    decision = Decision("place", player, f"{player} places {len(pending)} unit(s)",
                        context={"units": list(pending), "candidates": candidates, "allowed": allowed,
                                 "at_sea": at_sea})

    def check(answer) -> list[str]:
        if not isinstance(answer, (list, tuple)):
            return ["a placement is a list of (territory, sea zone or none, [unit types])"]
        left = list(pending)
        reasons: list[str] = []
        at: dict[str, list[str]] = {}  # everything placed at a territory is one placement, however listed
        # the carrier room the answer's carriers add; the room already at sea is found (a pass over
        # the board's units) only for an answer that puts air units onto carriers
        added: dict[str, int] = {}
        for item in answer:
            try:
                territory, sea_zone, types, carried = _item(item)
            except (TypeError, ValueError):
                return ["each placement is (territory, sea zone or none, [unit types][, [carried unit types]])"]
            if territory not in ctx.space_values:
                return [f"there is no space named {territory}"]
            for t in [*types, *carried]:
                if t not in left:
                    return [f"{t} was not bought (or is placed twice)"]
                left.remove(t)
            if any(at_sea(t) is True for t in types) or carried:
                if sea_zone is None or sea_zone not in game.board.neighbours(territory, "sea"):
                    reasons.append(f"sea units placed from {territory} need a sea zone bordering it")
            for t in types:
                if at_sea(t) is True and sea_zone is not None:
                    added[sea_zone] = added.get(sea_zone, 0) + carrier_capacity(t)
            for t in carried:
                if carrier_cost(t) <= 0:
                    reasons.append(f"{t} cannot be placed on a carrier")
            at.setdefault(territory, []).extend([*types, *carried])
        need: dict[str, int] = {}
        for item in answer:
            _, sea_zone, _, carried = _item(item)
            if carried and sea_zone is not None:
                need[sea_zone] = need.get(sea_zone, 0) + sum(max(carrier_cost(t), 0) for t in carried)
        room = _carrier_room(state, owner, carrier_capacity, carrier_cost, takes) if need else {}
        for zone, more in added.items():
            room[zone] = room.get(zone, 0) + more
        for zone, cost in need.items():
            if cost > room.get(zone, 0):
                reasons.append(f"the carriers placed in or already at {zone} have room for "
                               f"{max(room.get(zone, 0), 0)}, not {cost}")
        for territory, types in at.items():
            reasons += allowed(territory, types)
        return reasons

    def fallback():
        """Place what fits, territory by territory; the rest is lost."""
        return pack(game.board, candidates, pending, allowed, at_sea, repeatable=kept is not None)

    answer = game.ask(decision, check, fallback)
    placed: list[str] = []
    logged = []
    for item in answer:
        territory, sea_zone, types, carried = _item(item)
        for t in types:
            target = sea_zone if at_sea(t) is True else territory
            state.add_units(target, t, owner, 1)
            placed.append(t)
        for t in carried:
            state.add_units(sea_zone, t, owner, 1)
            placed.append(t)
        # a fourth element only when air units went to sea, so that placements without any log as before
        logged.append([territory, sea_zone, list(types)] + ([list(carried)] if carried else []))
    lost = list(pending)
    for t in placed:
        lost.remove(t)
    # the owner is logged only when it is not the placer, so that other games log as before
    game.log("place", player=player, placed=logged, **({"owner": owner} if owner != player else {}))
    if lost:
        game.log("lost", player=player, units=lost, why="no legal place to put them")


def _owner(ctx, config, player: str) -> str:
    """Who gets the units `player` places: the `owner` setting (evaluated with `player` as the
    current player), else the player itself. An owner not on the placer's side is E557."""
    if not config.has("owner"):
        return player
    chosen = getattr(config.value("owner"), "name", None)
    if chosen is None or not ctx.game.allied(chosen, player):
        raise EvalError("E557", f"the place setting owner gives {chosen or 'none'} the units {player} places: "
                                f"expected {player} or a player on its side",
                        config.fields["owner"].span,
                        hint="the units a player places go to itself or to an ally that moves them")
    return chosen


def _item(item) -> tuple:
    """(territory, sea zone, types, carried types) of an answer item, carried empty when not given.
    Raises ValueError for an item of another shape (a recorded answer may hold any JSON value)."""
    if isinstance(item, (list, tuple)) and len(item) == 4:
        territory, sea_zone, types, carried = item
    else:
        (territory, sea_zone, types), carried = item, None
    types, carried = list(types), list(carried or [])
    if (not isinstance(territory, str) or not isinstance(sea_zone, (str, type(None)))
            or not all(isinstance(t, str) for t in [*types, *carried])):
        raise ValueError("a placement names its spaces and unit types by text")
    return territory, sea_zone, types, carried


def _carrier_room(state, player: str, carrier_capacity, carrier_cost, takes=None) -> dict[str, int]:
    """Room left on the player's own carriers, per space where it has any (air units of the player
    there already take theirs). A carrier that `takes` refuses (e.g. a damaged one) gives no room,
    and the air units there are counted on such carriers first (they stay aboard)."""
    capacity: dict[str, int] = {}
    closed: dict[str, int] = {}
    used: dict[str, int] = {}
    of_type: dict[str, tuple] = {}  # type -> (carrier capacity, carrier cost): asked once per type here
    for unit in state.units:
        if unit.owner != player:
            continue
        found = of_type.get(unit.type)
        if found is None:
            found = of_type[unit.type] = (carrier_capacity(unit.type), carrier_cost(unit.type))
        room, cost = found
        if room:
            kept = capacity if takes is None or takes(unit) else closed
            kept[unit.space] = kept.get(unit.space, 0) + room
        if cost > 0:
            used[unit.space] = used.get(unit.space, 0) + cost
    spaces = list(capacity) + [space for space in closed if space not in capacity]
    return {space: capacity.get(space, 0) - max(0, used.get(space, 0) - closed.get(space, 0)) for space in spaces}


def pack(board, territories, units, allowed, at_sea, pick_sea=lambda seas: seas[0], repeatable=False) -> list:
    """A placement answer: the `units` (type names) put territory by territory, in the order of
    `territories`, each taking every unit the rules still accept there (`allowed(territory,
    types)` lists the refusals; sea units only where a sea zone borders it, the one `pick_sea`
    picks among them). What fits nowhere is left out. Only whether there are refusals is read:
    the rules' constraints do not work out their messages meanwhile. `repeatable`: `allowed`
    gives the same answer whenever it is asked the same (the place constraints only read:
    `Procedures.repeatable`; the board does not change while a plan is made), so a unit of a
    type refused at a territory is not asked again there until a unit is placed there, and a
    formula the constraints call with their own parameters is worked out once per arguments
    (`refusal_texts_unread(unchanged=True)`: a limit the rules set per territory, asked of every
    list tried there)."""
    with refusal_texts_unread(unchanged=repeatable):
        return _pack(board, territories, units, allowed, at_sea, pick_sea, repeatable)


def _pack(board, territories, units, allowed, at_sea, pick_sea, repeatable) -> list:
    plan = []
    left = list(units)
    # whether a type goes to sea, asked once a type here (in the order first asked): the placement
    # settings are kept for the phase, and this asks of every unit at every territory
    sea: dict[str, bool] = {}
    for territory in territories:
        # the sea zones bordering it, looked up at the first sea unit tried there (most plans
        # place none, and a plan tries every territory the player holds)
        seas = None
        fits: list[str] = []
        # the types refused here with `fits` as it stands: another unit of one would be the same
        # question (a unit of a kind is tried after each of its kind refused, when they are many)
        refused: set[str] = set()
        for t in list(left):
            if t in refused:
                continue
            goes = sea.get(t)
            if goes is None:
                goes = sea[t] = at_sea(t) is True
            if goes:
                if seas is None:
                    seas = board.neighbours(territory, "sea")
                if not seas:
                    continue
            if not allowed(territory, fits + [t]):
                fits.append(t)
                left.remove(t)
                refused.clear()
            elif repeatable:
                refused.add(t)
        if fits:
            plan.append((territory, pick_sea(seas) if seas and any(map(sea.__getitem__, fits)) else None, fits))
    return plan


def place_bid(ctx, player: str, units: list[str], *, space, per_space: int | None, at_sea) -> None:
    """Place the units `player` bought with its bid, at once: its agent answers a placement
    decision whose items are (space, None, [unit types]), each unit in that space itself (a sea
    unit in a sea zone, any other on land) where the bid rule `space(name)` holds, at most
    `per_space` units in a space (None: no limit). What cannot be placed is lost, and logged."""
    game = ctx.game
    state = game.state
    board = game.board
    candidates = [s for s in board.spaces() if space(s) is True]

    def allowed(where: str, types: list[str]) -> list[str]:
        if where not in candidates:
            return [f"bids are not placed in {where} (the bid rule's space condition)"]
        sea = where in board.spaces("sea")
        reasons = [f"{t} is placed {'on land' if sea else 'at sea'}, not in {where}" for t in types
                   if (at_sea(t) is True) != sea]
        if per_space is not None and len(types) > per_space:
            reasons.append(f"at most {per_space} bid unit(s) a space, not {len(types)} in {where}")
        return reasons

    decision = Decision("place", player, f"{player} places {len(units)} unit(s) bought with its bid",
                        context={"units": list(units), "candidates": candidates, "allowed": allowed,
                                 "at_sea": at_sea})

    def check(answer) -> list[str]:
        if not isinstance(answer, (list, tuple)):
            return ["a placement is a list of (space, none, [unit types])"]
        left = list(units)
        at: dict[str, list[str]] = {}
        for item in answer:
            try:
                where, _, types, carried = _item(item)
            except (TypeError, ValueError):
                return ["each placement is (space, none, [unit types])"]
            if carried:
                return ["bid units are not placed onto carriers"]
            if where not in ctx.space_values:
                return [f"there is no space named {where}"]
            for t in types:
                if t not in left:
                    return [f"{t} was not bought (or is placed twice)"]
                left.remove(t)
            at.setdefault(where, []).extend(types)
        return [reason for where, types in at.items() for reason in allowed(where, types)]

    answer = game.ask(decision, check, fallback=lambda: pack(board, candidates, units, allowed, at_sea,
                                                                       repeatable=True))
    placed: list[str] = []
    logged = []
    for item in answer:
        where, _, types, _ = _item(item)
        for t in types:
            state.add_units(where, t, player, 1)
            placed.append(t)
        logged.append([where, None, list(types)])
    lost = list(units)
    for t in placed:
        lost.remove(t)
    game.log("place", player=player, placed=logged)
    if lost:
        game.log("lost", player=player, units=lost, why="no legal place to put them")
