"""Territories taken over by entering them (the movement engine's part).

With the move setting `taken_over` (`MovementRules.taken_over(space, player)`), a land territory
not of the mover's side that the setting accepts may be entered by the mover's land units in
non-combat move, as the end of their move (never passed through): the move takes it over, and the
units of its holder there become the mover's (TripleA's "canTakeOverOwnedTerritory" with
"captureUnitOnEnteringBy": a friendly neutral). Which
units may enter (e.g. only units with an attack value) is the rules' `constraint on move`.
"""

from __future__ import annotations


class TakeoverPart:
    """The engine's take-overs by a move (a mixin of `MovementEngine`)."""

    def _taken_over(self, space: str) -> bool:
        """Whether the mover's land units take `space` over by ending a non-combat move there."""
        ask = self.rules.taken_over
        if ask is None or self.combat or self.board.is_sea[space] or self._friendly(space):
            return False
        version = self.state.version
        if getattr(self, "_takeover_version", None) != version:
            self._takeover_version = version
            self._takeover_answers: dict[str, bool] = {}
        found = self._takeover_answers.get(space)
        if found is None:
            found = self._takeover_answers[space] = ask(space, self.player) is True
        return found

    def _take_over(self, space: str) -> None:
        """The mover's land units ended a move in `space`, which they take over (`taken_over`): its
        control and its holder's units there (a `control` and an `owner` event)."""
        holder = self.state.control.get(space)
        self.state.set_control(space, self.player)
        units = [u.id for u in self.state.units if u.space == space and u.owner == holder]
        if units:
            self.state.change_owner(units, self.player)
