"""The heuristic agent's non-combat move (the `Positioning` part of HeuristicAgent): the plan that
moves units toward the most threatened own territories (the fronts) and ferries the rest
(shipping.py), then a landing for every air unit left with none where it stands. The methods read
the agent's values, dangers and unit facts (heuristic.py, purchasing.py) through `self`.
"""

from __future__ import annotations

from ruleslang.runtime.kit.movement import Move


class Positioning:
    """The non-combat plan and the air units' landings, mixed into HeuristicAgent."""

    def _landing_move(self, game, engine, check) -> Move | None:
        """A landing for one of the player's air units that has none where it stands (the
        engine's `stranded_air`), after the rest of the non-combat plan: to a space the engine
        offers it (its non-combat destinations are the spaces it may land in, carrier room
        counted as it is now) and the rules' constraints allow; None when no such unit is left."""
        # each unit's landing spaces (only where it can land as the board stands: this agent moves
        # no carrier to meet it), whether one is a territory, and their order: the engine keeps
        # its answer (the same dict) until the carrier room changes, so the rest is worked out
        # again only then (this is asked after every landing of the phase)
        kept = self._landings
        offered = {}
        for uid in engine.stranded_air():
            if uid in self._grounded:
                continue
            destinations = engine.landing_destinations(uid)
            found = kept.get(uid)
            if found is None or found[0] is not destinations:
                board = game.board
                ashore = any(board.is_land(s) for s in destinations)
                found = kept[uid] = [destinations, (ashore, 0 if ashore else len(destinations), uid), None]
            offered[uid] = found
        # those that can land only on carriers first, fewest choices first: carrier room is
        # scarce, a territory takes any number
        for uid in sorted(offered, key=lambda i: offered[i][1]):
            found = offered[uid]
            destinations, order = found[0], found[2]
            if order is None:  # (worked out for the units tried: most calls try only the first)
                order = found[2] = self._landing_order(game, uid, destinations)
            for space in order:
                move = Move.of_tuples((uid,), destinations[space])
                if not check(move):
                    return move
            self._grounded.add(uid)  # nowhere to land: asked no more this phase
        return None

    def _landing_order(self, game, uid: int, destinations: dict) -> list[str]:
        """The landing spaces offered to an air unit, best first: back to the sea zone it started
        the turn in (the carrier it flew from), then territories nearest the fronts, then other
        sea zones."""
        board = game.board
        home = self._origins.get(uid)

        def key(space: str):
            if space == home and not board.is_land(space):
                return (0, 0, game.space_order(space))
            if board.is_land(space):
                return (1, self._distance(game, space, self._fronts), game.space_order(space))
            return (2, 0, game.space_order(space))
        return sorted(destinations, key=key)

    def _noncombat_plan(self, game, engine) -> list:
        board = game.board
        control = game.state.control  # (read straight: the names are the board's own)
        own = [t for t in board.spaces("land") if control.get(t) == self.player]
        fronts = self._fronts = self._most_threatened(game, own)[:4]
        self._steps = {}
        plan = []
        landing = set(engine.stranded_air())  # they land after the plan's moves (_landing_move)
        unit_of = game.state.unit_index().get  # (no unit comes or goes while the plan is made)
        # a reach the engine keeps (one dict for the units of a kind standing together: they share
        # its start) -> (it, where they go): worked out once a dict (held here: its id stays its own)
        toward: dict[int, tuple[dict, str | None]] = {}
        # every unit the player moves, by id: a unit the engine's `movable_units` leaves out has no
        # destinations (an empty reach, or none allowed), so the plan moves the same units as when
        # it asked that list, whose making (whether each unit can move at all: its first steps, air
        # units' landings, the loads) this plan does not need: it asks each unit's reach
        for uid in engine.player_units():
            unit = unit_of(uid)
            if unit is None or uid in landing:
                continue
            if unit.space in fronts and uid not in self._commanded:
                continue  # (it stays at the front: where it could go is not asked)
            if self._domain(game, unit) == "sea":
                continue  # (its reach is sea zones, no nearer the fronts by land than it is: it stays)
            if uid in self._commanded:
                destinations = {s: path for s, path in engine.destinations(uid).items()
                                if self._may(Move.of_tuples((uid,), path))}
                best = self._toward_fronts(game, destinations, unit.space, fronts)
            else:
                destinations = engine.kept_destinations(uid)
                found = toward.get(id(destinations))
                if found is None:
                    found = toward[id(destinations)] = (
                        destinations, self._toward_fronts(game, destinations, unit.space, fronts))
                best = found[1]
            if best is not None:
                plan.append(Move.of_tuples((uid,), destinations[best]))
        used = {uid for move in plan for uid in move.units}
        # the ferry's test of a space for units not on the player's side reads the threats' table,
        # made above on this board (no unit moves while the plan is made): no board query, whose
        # first ones pass over the board's units again
        return plan + self._shipping(game, engine, self._hostile_spaces(game)).ferry(used)

    def _most_threatened(self, game, own: list[str]) -> list[str]:
        """The territories the player holds (`own`), the most threatened first: by the enemy
        strength next to each (`_danger`) and three times its `_value`. Where the score rolls no
        dice, taking a territory one holds changes nothing it reads (`_what_if_taken` answers 0
        for it), so a held territory's value is its territory value alone: read so here, without
        the what-if's questions a territory (the same key: its value plus 4.0 times 0.0)."""
        order = game.space_order
        if game.compiled.is_random("score"):
            return sorted(own, key=lambda t: (-self._danger(game, t) - 3 * self._value(game, t), order(t)))
        worth = self._territory_value
        return sorted(own, key=lambda t: (-self._danger(game, t) - 3 * float(worth(game, t)), order(t)))

    def _toward_fronts(self, game, destinations: dict, start: str, fronts: list[str]) -> str | None:
        """Where a unit in `start` that can end its move in `destinations` goes in the non-combat
        plan: the first of `fronts` it reaches, else the space nearest them (a step toward the most
        threatened front), if nearer than `start`; None: it stays (at a front, or nowhere nearer)."""
        if not destinations or start in fronts:
            return None
        for front in fronts:
            if front in destinations:
                return front
        # the nearest by land steps, then the first in the board's order (steps read from the plan's
        # table in line: the plans' units reach a dozen spaces or more each)
        steps, distance = self._steps, self._distance
        if fronts is not self._fronts:
            steps = {}
        near, best = 100, []  # (farther than any: `_distance` answers 99 at most)
        for space in destinations:
            d = steps.get(space)
            if d is None:
                d = distance(game, space, fronts)
            if d < near:
                near, best = d, [space]
            elif d == near:
                best.append(space)
        if near >= distance(game, start, fronts):
            return None
        return best[0] if len(best) == 1 else min(best, key=game.space_order)

    def _distance(self, game, space: str, fronts: list[str]) -> int:
        """Land steps from `space` to the nearest of `fronts` (99: none by land). The map's
        distances do not change: for the plan's `_fronts`, each space's is worked out once."""
        kept = fronts is self._fronts
        if kept:
            found = self._steps.get(space)
            if found is not None:
                return found
        best = 99
        if game.board.is_land(space):
            from_space = game.board.graph.distances(space, "land")  # the map's land steps from it
            for f in fronts:
                d = from_space.get(f)
                if d is not None and d < best:
                    best = d
        if kept:
            self._steps[space] = best
        return best
