"""The scripted agent: a player's orders from a YAML file, for reproducible games and tests.

    Reds:
      - round: 1
        purchase: {foot: 4, tank: 1}
        build: [Marsh]
        combat: [{from: Isle, type: tank, count: 2, to: Hills}]
        noncombat: [{unit: 17, to: Isle}]
        # loading and unloading name the transport: {unit: 5, to: Sea 1, kind: load, transport: 9},
        # {unit: 5, to: Hills, kind: unload, transport: 9}; a raid: {unit: 8, to: Hills, kind: bomb}
        # land units flown into an attack: {from: Isle, type: foot, count: 2, to: Hills, kind: airborne},
        # carried by an air unit: {unit: 5, to: Hills, kind: airborne, lift: 8}
        place: [{at: Isle, units: [foot, foot]}, {at: Isle, sea_zone: Sea 1, units: [ship]}]
        # air units onto carriers in the sea zone: {at: Isle, sea_zone: Sea 1, units: [flattop], carried: [plane]}
        answers: {some_hook.zone: Sea 2, attacker_retreat.go: false}
        casualties: [12, 13]

A round without orders buys nothing and moves nothing; casualties not listed go cheapest first;
a rule decision without an answer takes the first option. Orders the rules refuse are refused
like anyone's (the log says why).
"""

from __future__ import annotations

from ruleslang.runtime.decisions import DONE, Agent, Decision
from ruleslang.lang.values import to_json
from ruleslang.runtime.agents.heuristic import HeuristicAgent
from ruleslang.runtime.kit.movement import Move


class ScriptedAgent(Agent):
    name = "scripted"

    def __init__(self, player: str, orders: list | None):
        self.player = player
        self.orders = {int(o.get("round", 0)): o for o in (orders or []) if isinstance(o, dict)}
        self._moves: dict[tuple[int, str], list] = {}
        self._answers_used: dict[str, int] = {}

    def _now(self, game) -> dict:
        return self.orders.get(game.state.round, {})

    def decide(self, decision: Decision, game):
        return getattr(self, "_" + decision.kind)(decision, game)

    def _purchase(self, d: Decision, game):
        order = self._now(game)
        return {"units": dict(order.get("purchase") or {}), "build": list(order.get("build") or [])}

    def _move(self, d: Decision, game):
        kind = d.context["kind"]
        key = (game.state.round, kind)
        if key not in self._moves:
            self._moves[key] = list(self._now(game).get(kind) or [])
        queue = self._moves[key]
        engine = d.context["engine"]
        while queue:
            order = queue.pop(0)
            units = self._units_of(order, game, engine)
            if not units:
                continue
            kind = order.get("kind", "move")
            if kind == "airborne":
                return self._airborne(order, units, engine)
            # a load or an unload is one step (territory -> sea zone, sea zone -> territory)
            path = engine.destinations(units[0]).get(order["to"]) if kind in ("move", "bomb") else None
            if path is None:
                path = (game.unit_or_none(units[0]).space, order["to"])  # the engine refuses it, with reasons
            return Move(tuple(units), path, kind, order.get("transport"))
        return DONE

    @staticmethod
    def _airborne(order: dict, units: list[int], engine) -> Move:
        """The airborne move of `units` to the order's `to` (with the air unit `lift`, if named)
        on the engine's path; when it offers none, one shortest air path (which it refuses, saying why)."""
        lift = order.get("lift")
        for move in engine.airborne_moves(units[0]):
            if move.path[-1] == order["to"] and (move.units[1:] == ((int(lift),) if lift is not None else ())):
                return Move(tuple(units) + move.units[1:], move.path, "airborne")
        extra = (int(lift),) if lift is not None else ()
        start = engine.state.unit(units[0]).space
        path = engine.airborne_path(start, order["to"], len(engine.board.order)) or engine.board.air_path(start, order["to"])
        return Move(tuple(units) + extra, path, "airborne")

    def _units_of(self, order: dict, game, engine) -> list[int]:
        if "unit" in order:
            return [int(order["unit"])]
        movable = set(engine.movable_units())
        found = [u.id for u in game.board.units(order.get("from")) if u.owner == self.player
                 and u.type == order.get("type") and u.id in movable]
        return found[: int(order.get("count", 1))]

    def _place(self, d: Decision, game):
        plan = []
        for item in self._now(game).get("place") or []:
            units = list(item.get("units") or [])
            carried = list(item.get("carried") or [])
            plan.append((item["at"], item.get("sea_zone"), units, carried) if carried else (item["at"], item.get("sea_zone"), units))
        return plan

    def _casualties(self, d: Decision, game):
        wanted = [int(u) for u in self._now(game).get("casualties") or [] if int(u) in d.context["room"]]
        room = dict(d.context["room"])
        chosen = []
        for uid in wanted:
            if len(chosen) < d.count and room.get(uid, 0) > 0:
                chosen.append(uid)
                room[uid] -= 1
        rest = HeuristicAgent(0, self.player)._casualties(
            Decision("casualties", d.player, d.prompt, count=d.count - len(chosen), context={"room": room}), game) \
            if len(chosen) < d.count else []
        return chosen + rest

    def _choose(self, d: Decision, game):
        answers = self._now(game).get("answers") or {}
        if d.id in answers:
            wanted = answers[d.id]
            for option in d.options:
                if to_json(option) == wanted or str(to_json(option)).lower() == str(wanted).lower():
                    return option
            return wanted  # not an option: refused with the reason, then the fallback
        if d.mode == "one":
            return d.options[0]
        return tuple(d.options[: d.count]) if d.mode == "exactly" else ()
