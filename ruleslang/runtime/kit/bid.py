"""The `bid` runtime procedure: before the first round, a power spends its bid on extra units.

`phase bid: runtime bid with {cost: u => ..., buyable: u => ..., at_sea: u => ..., space: t => ...,
per_space: N}` is a phase outside the turn: the game runs it for each power with a bid
(`ruleslang play --bid SIDE=IPCS`; `Game.play_bids`), with that power as `current_player()`. The
power's agent buys units with the bid at the `cost` setting (a purchase decision, the bid as its
money, no factories, the purchase constraints of the turn not asked), then places them at once
(`placement.place_bid`): each in a space where `space` holds, at most `per_space` in a space. What
the power leaves unspent is handed back to the game (`game.bid_purse`), which gives it to the next
power sharing the bid or to the power's treasury.
"""

from __future__ import annotations

from ruleslang.base.errors import EvalError
from ruleslang.runtime.config import procedure_config
from ruleslang.runtime.kit.placement import place_bid
from ruleslang.runtime.kit.purchase import ask_purchase, offered


def run(ctx, proc) -> None:
    game = ctx.game
    money = getattr(game, "bid_purse", None)
    if money is None:
        raise EvalError("E545", "the bid procedure runs before the first round, for a power with a bid "
                                "(play --bid SIDE=IPCS); it cannot be played inside a turn", proc.name.span)
    config = procedure_config(ctx, proc)
    config.new_phase()
    player = game.state.current_player
    answer, spent = ask_purchase(ctx, player, money, offered(ctx, config), factory_cost=None,
                                 prompt=f"{player} has a bid of {money} to spend", constrained=False)
    bought = [t for t, n in answer.get("units", {}).items() for _ in range(n)]
    game.bid_purse = money - spent
    game.log("bid_purchase", player=player, units={t: n for t, n in answer.get("units", {}).items() if n},
             spent=spent, left=money - spent)
    if bought:
        per_space = config.value("per_space")
        place_bid(ctx, player, bought, space=config.space_fn("space"), per_space=per_space,
                  at_sea=config.type_fn("at_sea", False))
