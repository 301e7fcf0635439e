"""The `purchase` runtime procedure: what a player buys, within its money and the rules' limits.

`runtime purchase with {cost: u => ..., factory_cost: t => ..., buyable: u => ...}`. The player's
agent answers a purchase decision: {"units": {type: count}, "build": [territory, ...]}. The
runtime refuses (and asks again) a purchase that costs more than the treasury or that a
`constraint on purchase(...)` / `on build(...)` refuses; the refusal reasons are the rules' own.
The bid (`ruleslang.runtime.kit.bid`) asks the same decision, with the bid as the money.
"""

from __future__ import annotations

from ruleslang.base.errors import EvalError
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
    costs = offered(ctx, config)
    lot = config.type_fn("lot", 1)
    lots = {t: lot(t) for t in costs}
    if any(not isinstance(n, int) or n < 1 for n in lots.values()):
        bad = next(t for t, n in lots.items() if not isinstance(n, int) or n < 1)
        raise EvalError("E524", f"the purchase setting 'lot' gives {bad} a lot of {lots[bad]}: expected a whole "
                                "number of at least 1", proc.span)
    stocks = Stocks(ctx, config, player, costs, proc)
    answer, spent = ask_purchase(ctx, player, money, costs, factory_cost=factory_cost,
                                 prompt=f"{player} has {money} to spend", lots=lots, stocks=stocks)
    if spent:
        game.state.change_treasury(player, -spent)
    units = {t: n * lots[t] for t, n in answer.get("units", {}).items() if n}
    stocks.charge(answer.get("units", {}))
    bought = [t for t, n in units.items() for _ in range(n)]
    game.kit.purchased[player] = game.kit.purchased.get(player, []) + bought
    game.kit.builds[player] = game.kit.builds.get(player, []) + list(answer.get("build", []))
    game.log("purchase", player=player, units=units, build=list(answer.get("build", [])), spent=spent,
             **({"resources": stocks.spent(answer.get("units", {}))} if stocks.names else {}))


class Stocks:
    """The resources besides money a purchase charges (the settings `resources`, names of counters
    `NAME(p: player) -> int`, and `resource_costs: u => list of int`, what a lot of `u` costs in
    each): the player's stock of each, what a purchase would spend, and the charge."""

    def __init__(self, ctx, config, player: str, costs: dict[str, int], proc):
        self.ctx, self.player, self.player_name = ctx, ctx.player_values[player], player
        self.names = list(config.value("resources", []) or [])
        per_type = config.type_fn("resource_costs", [])
        self.costs = {t: list(per_type(t) or []) for t in costs} if self.names else {}
        for name in self.names:
            symbol = ctx.compiled.symbols.get(name)
            if symbol is None or getattr(symbol, "kind", None) != "counter":
                raise EvalError("E524", f"the purchase setting 'resources' names '{name}', which is not a counter "
                                        "(expected counters NAME(p: player) -> int)", proc.span)
        for t, amounts in self.costs.items():
            if len(amounts) != len(self.names) or any(not isinstance(a, int) or a < 0 for a in amounts):
                raise EvalError("E524", f"the purchase setting 'resource_costs' gives {t} {amounts}: expected "
                                        f"{len(self.names)} whole numbers of at least 0, one per resource "
                                        f"({', '.join(self.names)})", proc.span)

    def stock(self, name: str) -> int:
        return self.ctx.counter(name, (self.player,))

    def spent(self, units: dict[str, int]) -> dict[str, int]:
        """Resource -> what buying `units` (lots by type) spends of it."""
        return {name: sum(self.costs.get(t, [0] * len(self.names))[i] * n for t, n in units.items())
                for i, name in enumerate(self.names)}

    def refusal(self, units: dict[str, int]) -> str | None:
        for name, amount in self.spent(units).items():
            if amount > self.stock(name):
                return f"this costs {amount} {name}, but {self.player_name} has {self.stock(name)}"
        return None

    def charge(self, units: dict[str, int]) -> None:
        for name, amount in self.spent(units).items():
            if amount:
                self.ctx.set_counter(name, (self.player,), self.stock(name) - amount)


def offered(ctx, config) -> dict[str, int]:
    """What a procedure's `cost` and `buyable` settings offer: unit type -> price, in the order the
    types are declared; a type that costs nothing is not for sale."""
    cost = config.type_fn("cost")
    buyable = config.type_fn("buyable", True)
    values = ctx.unittype_values
    out = {}
    for t in sorted(values, key=lambda n: values[n].index):
        if buyable(t) is True:
            price = cost(t)  # (asked once a type: the price is what is compared and kept)
            if price > 0:
                out[t] = price
    return out


def ask_purchase(ctx, player: str, money: int, costs: dict[str, int], *, factory_cost, prompt: str,
                 constrained: bool = True, lots: dict[str, int] | None = None,
                 stocks: Stocks | None = None) -> tuple[dict, int]:
    """Ask `player`'s agent what it buys with `money` at `costs` (and factories at `factory_cost`;
    None: none may be bought); the answer and what it costs. `constrained`: the rules' constraints
    on `purchase` and `build` are asked too. With `lots`, a count in the answer is a number of
    lots of that many units each, `costs` the price of a lot; `stocks`: the other resources the
    lots cost, which the player must have."""
    game = ctx.game
    lots = lots or {}
    context = {"money": money, "costs": costs, "factory_cost": factory_cost}
    if any(n > 1 for n in lots.values()):
        context["lots"] = {t: n for t, n in lots.items() if n > 1}
    if stocks is not None and stocks.names:
        context["resources"] = {name: stocks.stock(name) for name in stocks.names}
        context["resource_costs"] = {t: dict(zip(stocks.names, c)) for t, c in stocks.costs.items() if any(c)}
    decision = Decision("purchase", player, prompt, context=context)

    def total(answer) -> int:
        units = answer.get("units", {})
        builds = answer.get("build", [])
        return sum(costs[t] * n for t, n in units.items()) + sum(factory_cost(b) for b in builds)

    def check(answer) -> list[str]:
        if not isinstance(answer, dict):
            return ["a purchase is {units: {type: count}, build: [territory, ...]}"]
        units = answer.get("units", {})
        builds = answer.get("build", [])
        # a recorded answer may hold any JSON value: names are texts before they are looked up
        if (not isinstance(units, dict) or not isinstance(builds, (list, tuple))
                or not all(isinstance(name, str) for name in [*units, *builds])):
            return ["a purchase is {units: {type: count}, build: [territory, ...]}"]
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
        short = stocks.refusal(units) if stocks is not None and stocks.names else None
        if short:
            return [short]
        if not constrained:
            return []
        player_value = ctx.player_values[player]
        listed = tuple(ctx.unittype_values[t] for t, n in units.items() for _ in range(n * lots.get(t, 1)))
        refusals = [r.message for r in check_action(ctx, "purchase", [player_value, listed])]
        for b in builds:
            refusals += [r.message for r in check_action(ctx, "build", [player_value, ctx.space_values[b]])]
        return refusals

    def place_refusals(territory: str, types: list[str]) -> list[str]:
        """The rules' refusals of placing `types` at `territory` on the board as it stands (the
        placement comes after the moves, so this is a forecast), for an agent that buys no more
        than it can place."""
        listed = tuple(map(ctx.unittype_values.__getitem__, types))
        return [r.message for r in check_action(ctx, "place", [ctx.player_values[player],
                                                                ctx.space_values[territory], listed])]

    # agents may try a purchase (its factories too) against the budget and the rules before answering
    decision.context["check"] = check
    if constrained:
        decision.context["place_refusals"] = place_refusals
    answer = game.ask(decision, check, fallback=lambda: {"units": {}, "build": []})
    return answer, total(answer)
