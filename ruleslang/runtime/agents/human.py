"""The human agent: a terminal prompt listing the legal choices, with help (`?`)."""

from __future__ import annotations

import sys

from ruleslang.runtime.decisions import DONE, Agent, Decision
from ruleslang.lang.values import format_value
from ruleslang.runtime.agents.heuristic import HeuristicAgent
from ruleslang.runtime.kit.movement import Move

HELP = """Answer with the number of a choice, or press Enter for the default shown.
  purchase    pick a unit to buy it (again to buy another), "done" to end the purchase
  move        pick a unit, then where it goes; "done" ends the phase's moves
  place       pick where each bought unit goes
  casualties  pick the unit that takes each hit (the default is the cheapest)
  a rule's question: pick one of its options
`q` takes the default for this question. At the end of the input (Ctrl-D) the heuristic agent
plays on for this player, and the game says so."""


class HumanAgent(Agent):
    name = "human"

    def __init__(self, player: str, stdin=None, stdout=None, seed: int = 0):
        self.player = player
        self.stdin = stdin or sys.stdin
        self.stdout = stdout or sys.stdout
        self.seed = seed
        self._stand_in = None  # the agent that plays on once the input has ended

    def decide(self, decision: Decision, game):
        if self._stand_in is not None:
            return self._stand_in.decide(decision, game)
        if decision.refusals:
            self._say("refused: " + "; ".join(decision.refusals))
        try:
            return getattr(self, "_" + decision.kind)(decision, game)
        except _EndOfInput:
            self._say(f"\n[{self.player}] end of input: the heuristic agent plays on for {self.player}")
            self._stand_in = HeuristicAgent(self.seed, self.player)
            return self._stand_in.decide(decision, game)

    # ------------------------------------------------------------------ terminal

    def _say(self, text: str) -> None:
        self.stdout.write(text + "\n")
        self.stdout.flush()

    def _pick(self, title: str, labels: list[str], default: int = 0) -> int | None:
        self._say(f"\n[{self.player}] {title}")
        for i, label in enumerate(labels, 1):
            self._say(f"  {i:>3}. {label}")
        while True:
            self.stdout.write(f"choice [default {default + 1}, ? for help]: ")
            self.stdout.flush()
            line = self.stdin.readline()
            if not line:
                raise _EndOfInput()
            if line.strip().lower() == "q":
                return None
            text = line.strip()
            if text == "":
                return default
            if text == "?":
                self._say(HELP)
                continue
            if text.isdigit() and 1 <= int(text) <= len(labels):
                return int(text) - 1
            self._say(f"  please give a number from 1 to {len(labels)}")

    # ------------------------------------------------------------------ kinds

    def _choose(self, d: Decision, game):
        labels = [format_value(o) for o in d.options]
        if d.mode == "one":
            i = self._pick(d.prompt, labels)
            return d.options[0 if i is None else i]
        chosen = []
        while len(chosen) < d.count:
            i = self._pick(f"{d.prompt} (choice {len(chosen) + 1} of {'up to ' if d.mode == 'up_to' else ''}{d.count})",
                           labels + (["done"] if d.mode == "up_to" else []))
            if i is None or i == len(labels):
                break
            chosen.append(d.options[i])
        return tuple(chosen)

    def _purchase(self, d: Decision, game):
        money, costs = d.context["money"], d.context["costs"]
        bought: dict[str, int] = {}
        while True:
            affordable = [t for t in costs if costs[t] <= money]
            labels = [f"{t} ({costs[t]})" for t in affordable] + ["done"]
            i = self._pick(f"buy (money left {money})", labels, default=len(labels) - 1)
            if i is None or i == len(affordable):
                return {"units": bought, "build": []}
            t = affordable[i]
            bought[t] = bought.get(t, 0) + 1
            money -= costs[t]

    def _move(self, d: Decision, game):
        engine = d.context["engine"]
        units = engine.movable_units()
        labels = [f"{game.unit_or_none(u).type} #{u} in {game.unit_or_none(u).space}" for u in units] + ["done"]
        i = self._pick(f"{d.context['kind']} move: which unit?", labels, default=len(labels) - 1)
        if i is None or i == len(units):
            return DONE
        destinations = engine.destinations(units[i])
        names = sorted(destinations, key=game.space_order)
        j = self._pick("to where?", names + ["cancel"], default=len(names))
        if j is None or j == len(names):
            return self._move(d, game)
        return Move((units[i],), destinations[names[j]])

    def _place(self, d: Decision, game):
        plan = []
        allowed, at_sea = d.context["allowed"], d.context["at_sea"]
        for t in d.context["units"]:
            options = [c for c in d.context["candidates"] if not allowed(c, [t])]
            i = self._pick(f"place {t} where?", options + ["leave it"], default=0)
            if i is None or i == len(options):
                continue
            seas = game.board.neighbours(options[i], "sea")
            plan.append((options[i], seas[0] if at_sea(t) is True and seas else None, [t]))
        return plan

    def _casualties(self, d: Decision, game):
        room = dict(d.context["room"])
        chosen = []
        while len(chosen) < d.count:
            # cheapest first (units that can take another hit before them): the default is the first
            live = sorted((u for u, r in room.items() if r > 0), key=lambda u: _casualty_order(game, u))
            labels = [f"{game.unit_or_none(u).type} #{u}" for u in live]
            i = self._pick(f"choose casualty {len(chosen) + 1} of {d.count}", labels)
            uid = live[0 if i is None else i]
            chosen.append(uid)
            room[uid] -= 1
        return chosen


class _EndOfInput(Exception):
    """The terminal's input has ended."""


def _casualty_order(game, uid: int):
    unit = game.unit_or_none(uid)
    return (game.hit_points(unit) - unit.hits <= 1, game.unit_cost(unit), uid)
