"""The random agent: uniform over legal choices, deterministic for a given seed and player."""

from __future__ import annotations

import random

from ruleslang.runtime.decisions import DONE, Agent, Decision
from ruleslang.runtime.kit.placement import pack

DONE_CHANCE = 0.2  # a random player stops moving with this chance at each move decision


class RandomAgent(Agent):
    name = "random"
    deterministic = True

    def __init__(self, seed: int, player: str):
        # a string seed is hashed the same in every process (not by PYTHONHASHSEED)
        self.rng = random.Random(f"random:{seed}:{player}")

    def decide(self, decision: Decision, game):
        return getattr(self, "_" + decision.kind)(decision, game)

    def _choose(self, d: Decision, game):
        options = d.options
        if d.mode == "one":
            return self.rng.choice(options)
        n = d.count if d.mode == "exactly" else self.rng.randint(0, min(d.count, len(options)))
        return tuple(self.rng.sample(options, min(n, len(options))))

    def _purchase(self, d: Decision, game):
        money = d.context["money"]
        costs = d.context["costs"]
        bought: dict[str, int] = {}
        kinds = sorted(costs)
        while kinds and self.rng.random() > 0.05:
            affordable = [t for t in kinds if costs[t] <= money]
            if not affordable:
                break
            t = self.rng.choice(affordable)
            bought[t] = bought.get(t, 0) + 1
            money -= costs[t]
        return {"units": bought, "build": []}

    def _move(self, d: Decision, game):
        engine = d.context["engine"]
        check = d.context.get("check", engine.check)
        if self.rng.random() < DONE_CHANCE:
            return DONE
        units = engine.movable_units()
        for _ in range(4):
            if not units:
                return DONE
            uid = self.rng.choice(units)
            moves = engine.moves_of(uid)
            if moves:
                # a kind first (a move or a raid), so a unit that can bomb raids as often as it moves
                kinds = sorted({m.kind for m in moves})
                kind = self.rng.choice(kinds)
                if len(kinds) > 1:
                    moves = [m for m in moves if m.kind == kind]
                # then one of that kind's moves, by destination in the map's order for the seed (only
                # the chosen kind's moves are sorted: the same list as sorting them all by kind and
                # destination and keeping that kind's, as the sort keeps the engine's order of ties)
                order = game.space_order
                move = self.rng.choice(sorted(moves, key=lambda m: order(m.path[-1])))
                if not check(move):  # neither the engine nor the rules' constraints refuse it
                    return move
        return DONE

    def _place(self, d: Decision, game):
        left = list(d.context["units"])
        self.rng.shuffle(left)
        territories = list(d.context["candidates"])
        self.rng.shuffle(territories)
        return pack(game.board, territories, left, d.context["allowed"], d.context["at_sea"], pick_sea=self.rng.choice,
                    repeatable=game.ctx.procedures.repeatable("place"))

    def _casualties(self, d: Decision, game):
        room = dict(d.context["room"])
        chosen = []
        for _ in range(d.count):
            live = [uid for uid, r in room.items() if r > 0]
            uid = self.rng.choice(live)
            chosen.append(uid)
            room[uid] -= 1
        return chosen
