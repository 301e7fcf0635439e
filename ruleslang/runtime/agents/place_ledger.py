"""The heuristic agent's ledger of the rules' answers to its purchase's forecast of the placement
(part "ledger" of heuristic.py's SPARE).

A purchase's forecast (purchasing.py's `_placeable`) asks the rules' place constraints of lists of
units at the player's territories, every turn; most of what it asks, it asked the turn before, and
the rules answered the same (a territory with nothing to place at, a production limit). The
ledger keeps each answer by (territory, list), with what stood at the territory when the rules
gave it: who holds it, who held it at the turn's start, its factory (owner, kind, damage) and who
held that at the turn's start. A later forecast of the same game takes the kept answer while those
stand, and asks the rules otherwise (kept only where the place constraints only read:
`Procedures.repeatable`). A rule that reads more of the board (a limit by the
territories connected to a capital, say) may answer otherwise than its kept answer: a change of
play, measured by paired duels. The turn's placement asks the rules of the plan it takes (`_stocked`)
or plans anew with the rules' own answers, so no unit goes where the rules refuse it.
"""

from __future__ import annotations

from typing import Callable

Refusals = Callable[[str, list], list]


class PlaceLedger:
    """The rules' answers to one player's forecasts of its placement, kept across its turns."""

    def __init__(self) -> None:
        self._state = None  # the game state the answers are of (a look-ahead's copy starts anew)
        # (territory, *types) -> (what stood at the territory, the refusals)
        self._answers: dict[tuple, tuple] = {}
        self.asked = 0  # the questions put to the rules through the ledger
        self.taken = 0  # ... and those answered from it

    def asking(self, game, refusals: Refusals) -> Refusals:
        """`refusals` (the purchase's `place_refusals`: a list's refusals at a territory on the
        board as it stands) answered from the ledger where the territory stands as it did when the
        rules answered the same list, and kept in the ledger where asked. For one forecast: the
        board stands as it is while the forecast packs."""
        state = game.state
        if state is not self._state:
            self._state, self._answers = state, {}
        answers = self._answers
        control, held = state.control, state.control_at_turn_start
        factories, built = state.factories, state.factories_at_turn_start

        # each territory's stand, found at its first question: the board does not change while a
        # forecast packs (kit/placement.py `pack`), which asks of a territory list after list
        stands: dict[str, tuple] = {}

        def ask(territory: str, types: list) -> list:
            stand = stands.get(territory)
            if stand is None:
                factory = factories.get(territory)
                stand = stands[territory] = (control.get(territory), held.get(territory), built.get(territory),
                                             None if factory is None else (factory.owner, factory.kind, factory.damage))
            key = (territory, *types)
            kept = answers.get(key)
            if kept is not None and kept[0] == stand:
                self.taken += 1
                return list(kept[1])
            self.asked += 1
            found = refusals(territory, types)
            answers[key] = (stand, tuple(found))
            return found
        return ask
