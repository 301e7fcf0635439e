"""The `purchase` runtime procedure: what a player buys, within its money and the rules' limits.

`runtime purchase with {cost: u => ..., factory_cost: t => ..., buyable: u => ...}`. The player's
agent answers a purchase decision: {"units": {type: count}, "build": [territory, ...]}. The
runtime refuses (and asks again) a purchase that costs more than the treasury or that a
`constraint on purchase(...)` / `on build(...)` refuses; the refusal reasons are the rules' own.
"""

from __future__ import annotations

from ruleslang.lang.eval.statements import check_action
from ruleslang.runtime.config import procedure_config
from ruleslang.runtime.decisions import Decision


def run(ctx, proc) -> None:
    game = ctx.game
    config = procedure_config(ctx, proc)
    config.new_phase()
    player = game.state.current_player
    cost = config.type_fn("cost")
    buyable = config.type_fn("buyable", True)
    factory_cost = config.space_fn("factory_cost")
    money = game.board.treasury(player)
    costs = {t: cost(t) for t in sorted(ctx.unittype_values, key=lambda n: ctx.unittype_values[n].index)
             if buyable(t) is True and cost(t) > 0}
    decision = Decision("purchase", player, f"{player} has {money} to spend",
                        context={"money": money, "costs": costs, "factory_cost": factory_cost})

    def total(answer) -> int:
        units = answer.get("units", {})
        builds = answer.get("build", [])
        return sum(costs[t] * n for t, n in units.items()) + sum(factory_cost(b) for b in builds)

    def check(answer) -> list[str]:
        if not isinstance(answer, dict):
            return ["a purchase is {units: {type: count}, build: [territory, ...]}"]
        units = answer.get("units", {})
        builds = answer.get("build", [])
        bad = [t for t in units if t not in costs]
        if bad:
            return [f"{bad[0]} cannot be bought"]
        if any(not isinstance(n, int) or n < 0 for n in units.values()):
            return ["unit counts are whole numbers of at least 0"]
        if factory_cost is None and builds:
            return ["these rules have no factory cost, so no factory can be bought"]
        if any(b not in ctx.space_values for b in builds) or len(set(builds)) != len(builds):
            return ["each factory is built once, in a named territory"]
        spent = total(answer)
        if spent > money:
            return [f"this costs {spent}, but {player} has {money}"]
        player_value = ctx.player_values[player]
        listed = tuple(ctx.unittype_values[t] for t, n in units.items() for _ in range(n))
        refusals = [r.message for r in check_action(ctx, "purchase", [player_value, listed])]
        for b in builds:
            refusals += [r.message for r in check_action(ctx, "build", [player_value, ctx.space_values[b]])]
        return refusals

    # agents may try a purchase (its factories too) against the budget and the rules before answering
    decision.context["check"] = check
    answer = game.ask(decision, check, fallback=lambda: {"units": {}, "build": []})
    spent = total(answer)
    if spent:
        game.state.change_treasury(player, -spent)
    bought = [t for t, n in answer.get("units", {}).items() for _ in range(n)]
    game.kit.purchased[player] = game.kit.purchased.get(player, []) + bought
    game.kit.builds[player] = game.kit.builds.get(player, []) + list(answer.get("build", []))
    game.log("purchase", player=player, units={t: n for t, n in answer.get("units", {}).items() if n},
             build=list(answer.get("build", [])), spent=spent)
