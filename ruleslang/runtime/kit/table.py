"""The kit's table of runtime procedures: what a `runtime NAME with {...}` phase runs in a game.

The game runtime knows no procedure of its own; whoever builds a `Game` hands it this table
(name -> implementation, each called with the evaluation context and the phase's
`RuntimeProcedure`). The names are those of `ruleslang.runtime.registry.PROCEDURES`.
"""

from __future__ import annotations

from typing import Callable

from ruleslang.runtime.kit import battle, moves, placement, purchase


def procedure_table() -> dict[str, Callable]:
    """The Axis & Allies-style kit's procedures by name: purchase, move, battle and place."""
    return {"purchase": purchase.run, "move": moves.run, "battle": battle.run, "place": placement.run}
