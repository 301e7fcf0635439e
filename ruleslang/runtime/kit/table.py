"""The kit's table of runtime procedures: what a `runtime NAME with {...}` phase runs in a game.

The game runtime knows no procedure of its own; whoever builds a `Game` hands it the kit
(`kit_table()`): its procedures (name -> implementation, each called with the evaluation context
and the phase's `RuntimeProcedure`; the names are those of `ruleslang.runtime.registry.PROCEDURES`)
and how to make the kit's state of a game (`game.kit`, `ruleslang.runtime.kit.turn_state`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

from ruleslang.runtime.kit import battle, bid, moves, placement, purchase
from ruleslang.runtime.kit.turn_state import KitState


def procedure_table() -> dict[str, Callable]:
    """The Axis & Allies-style kit's procedures by name: purchase, move, battle, place and bid."""
    return {"purchase": purchase.run, "move": moves.run, "battle": battle.run, "place": placement.run,
            "bid": bid.run}


@dataclass
class KitTable:
    """What a `Game` is built with: the kit's procedures, and `new_state(game)` making its state."""
    procedures: dict[str, Callable] = field(default_factory=procedure_table)

    @staticmethod
    def new_state(game) -> KitState:
        """The kit's state of a new game (kept by the game as `game.kit`)."""
        return KitState(game)


def kit_table() -> KitTable:
    """The Axis & Allies-style kit, as a `Game` is built with."""
    return KitTable()
