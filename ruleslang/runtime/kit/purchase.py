"""The `purchase` runtime procedure: what a player buys, within its money and the rules' limits.

`runtime purchase with {cost: u => ..., factory_cost: t => ..., buyable: u => ...}`. The player's
agent answers a purchase decision: {"units": {type: count}, "build": [territory, ...]}. The
runtime refuses (and asks again) a purchase that costs more than the treasury or that a
`constraint on purchase(...)` / `on build(...)` refuses; the refusal reasons are the rules' own.
The bid (`ruleslang.runtime.kit.bid`) asks the same decision, with the bid as the money.
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
    factory_cost = config.space_fn("factory_cost")
    money = game.board.treasury(player)
    answer, spent = ask_purchase(ctx, player, money, offered(ctx, config), factory_cost=factory_cost,
                                 prompt=f"{player} has {money} to spend")
    if spent:
        game.state.change_treasury(player, -spent)
    bought = [t for t, n in answer.get("units", {}).items() for _ in range(n)]
    game.kit.purchased[player] = game.kit.purchased.get(player, []) + bought
    game.kit.builds[player] = game.kit.builds.get(player, []) + list(answer.get("build", []))
    game.log("purchase", player=player, units={t: n for t, n in answer.get("units", {}).items() if n},
             build=list(answer.get("build", [])), spent=spent)


def offered(ctx, config) -> dict[str, int]:
    """What a procedure's `cost` and `buyable` settings offer: unit type -> price, in the order the
    types are declared; a type that costs nothing is not for sale."""
    cost = config.type_fn("cost")
    buyable = config.type_fn("buyable", True)
    return {t: cost(t) for t in sorted(ctx.unittype_values, key=lambda n: ctx.unittype_values[n].index)
            if buyable(t) is True and cost(t) > 0}


def ask_purchase(ctx, player: str, money: int, costs: dict[str, int], *, factory_cost, prompt: str,
                 constrained: bool = True) -> tuple[dict, int]:
    """Ask `player`'s agent what it buys with `money` at `costs` (and factories at `factory_cost`;
    None: none may be bought); the answer and what it costs. `constrained`: the rules' constraints
    on `purchase` and `build` are asked too."""
    game = ctx.game
    decision = Decision("purchase", player, prompt,
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
            return ["no factory can be bought here" if not constrained
                    else "these rules have no factory cost, so no factory can be bought"]
        if any(b not in ctx.space_values for b in builds) or len(set(builds)) != len(builds):
            return ["each factory is built once, in a named territory"]
        spent = total(answer)
        if spent > money:
            return [f"this costs {spent}, but {player} has {money}"]
        if not constrained:
            return []
        player_value = ctx.player_values[player]
        listed = tuple(ctx.unittype_values[t] for t, n in units.items() for _ in range(n))
        refusals = [r.message for r in check_action(ctx, "purchase", [player_value, listed])]
        for b in builds:
            refusals += [r.message for r in check_action(ctx, "build", [player_value, ctx.space_values[b]])]
        return refusals

    # agents may try a purchase (its factories too) against the budget and the rules before answering
    decision.context["check"] = check
    answer = game.ask(decision, check, fallback=lambda: {"units": {}, "build": []})
    return answer, total(answer)
