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


def _ending(run: Callable) -> Callable:
    """`run`, telling the game as it ends (`Game.on_resume_point`): a copy of the game made there
    goes on from its end (the phase's `after` hooks: runtime/agents/phase_starts.py); in such a copy
    (the kit's `ended` set) it has ended already."""
    def ending(ctx, proc) -> None:
        game = ctx.game
        kit = game.kit
        if kit.ended:
            kit.ended = False
            return
        run(ctx, proc)
        if game.on_resume_point is not None:
            kit.ended = True
            try:
                game.on_resume_point(game)
            finally:
                kit.ended = False
    ending.__doc__ = run.__doc__
    return ending


# made once: a game's table is the same functions (tests compare them)
_PROCEDURES = {name: _ending(run) for name, run in
               (("purchase", purchase.run), ("move", moves.run), ("battle", battle.run), ("place", placement.run),
                ("bid", bid.run))}


def procedure_table() -> dict[str, Callable]:
    """The Axis & Allies-style kit's procedures by name: purchase, move, battle, place and bid."""
    return dict(_PROCEDURES)


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
