"""The `place` runtime procedure: purchased factories are built, purchased units mobilised.

A placement answer lists (territory, sea zone or None, [unit types]): the units mobilised at a
land territory, sea units going to the named sea zone bordering it. Every territory's units are
checked against the rules' `constraint on place(player, territory, units)` (and a new factory
against `on build(player, territory)`); a refused placement is asked again; units that cannot
be placed are lost, and the log says so.
"""

from __future__ import annotations

from ruleslang.lang.eval.statements import check_action
from ruleslang.runtime.config import procedure_config
from ruleslang.runtime.decisions import Decision


def run(ctx, proc) -> None:
    game = ctx.game
    state = game.state
    config = procedure_config(ctx, proc)
    config.new_phase()
    at_sea = config.type_fn("at_sea", False)
    player = state.current_player
    player_value = ctx.player_values[player]

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

    def allowed(territory: str, types: list[str]) -> list[str]:
        listed = tuple(ctx.unittype_values[t] for t in types)
        return [r.message for r in check_action(ctx, "place", [player_value, ctx.space_values[territory], listed])]

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
        for item in answer:
            try:
                territory, sea_zone, types = item
            except (TypeError, ValueError):
                return ["each placement is (territory, sea zone or none, [unit types])"]
            if territory not in ctx.space_values:
                return [f"there is no space named {territory}"]
            for t in types:
                if t not in left:
                    return [f"{t} was not bought (or is placed twice)"]
                left.remove(t)
            if any(at_sea(t) is True for t in types):
                if sea_zone is None or sea_zone not in game.board.neighbours(territory, "sea"):
                    reasons.append(f"sea units placed from {territory} need a sea zone bordering it")
            at.setdefault(territory, []).extend(types)
        for territory, types in at.items():
            reasons += allowed(territory, types)
        return reasons

    def fallback():
        """Place what fits, territory by territory; the rest is lost."""
        return pack(game.board, candidates, pending, allowed, at_sea)

    answer = game.ask(decision, check, fallback)
    placed: list[str] = []
    for territory, sea_zone, types in answer:
        for t in types:
            target = sea_zone if at_sea(t) is True else territory
            state.add_units(target, t, player, 1)
            placed.append(t)
    lost = list(pending)
    for t in placed:
        lost.remove(t)
    game.log("place", player=player, placed=[[a, b, list(c)] for a, b, c in answer])
    if lost:
        game.log("lost", player=player, units=lost, why="no legal place to put them")


def pack(board, territories, units, allowed, at_sea, pick_sea=lambda seas: seas[0]) -> list:
    """A placement answer: the `units` (type names) put territory by territory, in the order of
    `territories`, each taking every unit the rules still accept there (`allowed(territory,
    types)` lists the refusals; sea units only where a sea zone borders it, the one `pick_sea`
    picks among them). What fits nowhere is left out."""
    plan = []
    left = list(units)
    for territory in territories:
        seas = board.neighbours(territory, "sea")
        fits: list[str] = []
        for t in list(left):
            if at_sea(t) is True and not seas:
                continue
            if not allowed(territory, fits + [t]):
                fits.append(t)
                left.remove(t)
        if fits:
            plan.append((territory, pick_sea(seas) if seas and any(at_sea(t) is True for t in fits) else None, fits))
    return plan
