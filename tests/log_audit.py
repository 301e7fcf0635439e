"""An independent audit of a game log: it reads the log's lines only (no ruleslang import) and
checks them against the standard Revised rules as a referee would.

What it re-derives:
- the board, from the start record and the events: every unit an event names exists then (it
  was in the start record or an `add_units` event, and no `remove_units` took it away), every
  move leaves from where its units are and its path ends where it says, new ids are new;
- control and factories: every change of control, and every factory event, starts from who held
  the territory (or the factory) then;
- every treasury change: the figure before plus `amount` is the `after` stated, and a purchase
  spends what its treasury change took;
- every die is a number on its die;
- the dice of a battle round in which only infantry and artillery fight (a land battle, no
  landing): each side rolls one die per unit, and the hits it scores are what Revised gives for
  those dice (attacking infantry hit on 1, on 2 when an artillery supports it, artillery on 2;
  defending infantry and artillery on 2), capped at what the other side can take.

`audit(lines)` returns the problems found, as text; an empty list is a clean log.
"""

from __future__ import annotations

import json

SIMPLE = {"infantry", "artillery"}     # the units of a battle whose dice the audit re-derives
ATTACK = {"infantry": 1, "artillery": 2}
DEFENSE = {"infantry": 2, "artillery": 2}


def read(path) -> list[dict]:
    """A log's lines as JSON values."""
    with open(path, encoding="utf-8") as file:
        return [json.loads(line) for line in file if line.strip()]


class _Audit:
    def __init__(self, start: dict):
        self.units = {u["id"]: dict(u) for u in start["units"]}
        self.gone: dict[int, dict] = {}  # units removed, as they last were
        self.treasury = {p: dict(amounts) for p, amounts in start["treasury"].items()}
        self.control = dict(start["control"])
        self.factories = {f["space"]: f["owner"] for f in start["factories"]}
        self.problems: list[str] = []
        self.battle: dict | None = None
        self.step: dict | None = None
        self.audited: list[dict] = []  # the battle steps whose dice were re-derived
        self.last_treasury: dict | None = None

    def problem(self, number: int, text: str) -> None:
        self.problems.append(f"line {number}: {text}")

    def known(self, number: int, ids, what: str) -> bool:
        missing = [i for i in ids if i not in self.units]
        if missing:
            self.problem(number, f"{what} names unit {missing[0]}, which is not on the board")
        return not missing

    def event(self, number: int, e: dict) -> None:
        kind = e["kind"]
        handler = getattr(self, "on_" + kind, None)
        if handler is not None:
            handler(number, e)

    # -------------------------------------------------------------- the board

    def on_add_units(self, number, e):
        for uid in e["ids"]:
            if uid in self.units:
                self.problem(number, f"add_units gives id {uid}, which is taken")
            self.units[uid] = {"id": uid, "type": e["unit_type"], "owner": e["owner"], "space": e["space"]}

    def on_remove_units(self, number, e):
        if self.known(number, e["ids"], "remove_units"):
            for uid in e["ids"]:
                self.gone[uid] = self.units.pop(uid)

    def on_move_units(self, number, e):
        if not self.known(number, e["ids"], "move_units"):
            return
        origins = sorted({self.units[uid]["space"] for uid in e["ids"]})
        if origins != e["origins"]:
            self.problem(number, f"move_units says the units leave {e['origins']}, they are in {origins}")
        path = e.get("path")
        if path is not None and (path[-1] != e["to"] or path[0] not in origins):
            self.problem(number, f"the path {path} does not go from where the units are to {e['to']}")
        for uid in e["ids"]:
            self.units[uid]["space"] = e["to"]

    def on_update_units(self, number, e):
        if self.known(number, e["ids"], "update_units") and "hits" in e:
            for uid in e["ids"]:
                self.units[uid]["hits"] = e["hits"]

    def on_owner(self, number, e):
        if self.known(number, e["ids"], "owner"):
            for uid in e["ids"]:
                self.units[uid]["owner"] = e["owner"]

    def on_retreat(self, number, e):
        self.known(number, e["units"], "retreat")

    def on_captured_units(self, number, e):
        self.known(number, e["units"], "captured_units")

    def on_control(self, number, e):
        if self.control.get(e["space"]) != e["before"]:
            self.problem(number, f"{e['space']} changes hands from {e['before']}, but {self.control.get(e['space'])} "
                                 "held it")
        self.control[e["space"]] = e["after"]

    def on_factory(self, number, e):
        if self.factories.get(e["space"]) != e["before"]:
            self.problem(number, f"the factory of {e['space']} was {self.factories.get(e['space'])}'s, not "
                                 f"{e['before']}'s")
        if e["after"] is None:
            self.factories.pop(e["space"], None)
        else:
            self.factories[e["space"]] = e["after"]

    # -------------------------------------------------------------- money

    def on_treasury(self, number, e):
        before = self.treasury.setdefault(e["player"], {}).get(e["economy"], 0)
        if before + e["amount"] != e["after"]:
            self.problem(number, f"{e['player']}'s treasury was {before}; {before} + {e['amount']} is not "
                                 f"{e['after']}")
        self.treasury[e["player"]][e["economy"]] = e["after"]
        self.last_treasury = e

    def on_purchase(self, number, e):
        if e["spent"] and (self.last_treasury is None or self.last_treasury["player"] != e["player"]
                           or self.last_treasury["amount"] != -e["spent"]):
            self.problem(number, f"{e['player']} spent {e['spent']}, but no treasury change took it")

    # -------------------------------------------------------------- dice

    def on_roll(self, number, e):
        if not 1 <= e["value"] <= e["sides"]:
            self.problem(number, f"a die of {e['sides']} sides shows {e['value']}")
        if self.step is not None:
            self.step["dice"].append(e["value"])
            self.step["lines"].append(number)

    def on_battle(self, number, e):
        self.battle = e

    def on_battle_end(self, number, e):
        self.battle = None

    def on_hits(self, number, e):
        # casualties taken `now` leave the board before their hits are logged
        units = {**self.gone, **self.units} if e["now"] else self.units
        missing = [uid for uid in e["chosen"] if uid not in units]
        if missing:
            self.problem(number, f"hits names unit {missing[0]}, which is not on the board")
        if len(e["chosen"]) != e["count"]:
            self.problem(number, f"{e['count']} hits, but {len(e['chosen'])} units chosen")
        if any(units[uid]["space"] != e["space"] for uid in e["chosen"] if uid in units):
            self.problem(number, f"a hit in {e['space']} falls on a unit elsewhere")
        if self.step is not None:
            self.step["hits"] += e["count"]

    def on_phase(self, number, e):
        name = e.get("name")
        if name not in ("attacker_fire", "defender_fire") or self.battle is None:
            return
        if e["stage"] == "start":
            self.step = self.simple_step(name)
        elif self.step is not None:
            self.check_step(number, self.step)
            self.step = None

    def simple_step(self, name: str) -> dict | None:
        """The step's shooters and targets when only infantry and artillery are in the battle."""
        battle = self.battle
        if battle["amphibious"]:
            return None
        here = [u for u in self.units.values() if u["space"] == battle["space"]]
        if not here or any(u["type"] not in SIMPLE for u in here):
            return None
        attackers = [u for u in here if u["owner"] == battle["attacker"]]
        defenders = [u for u in here if u["owner"] != battle["attacker"]]
        shooters, targets = (attackers, defenders) if name == "attacker_fire" else (defenders, attackers)
        return {"name": name, "shooters": shooters, "targets": targets, "dice": [], "lines": [], "hits": 0}

    def check_step(self, number: int, step: dict) -> None:
        """Revised: one die per unit; attacking infantry hit on 1 (2 when an artillery supports
        it: one infantry per artillery), artillery on 2; defenders hit on 2."""
        shooters, dice = step["shooters"], step["dice"]
        if len(dice) != len(shooters):
            self.problem(number, f"{step['name']} in {self.battle['space']}: {len(shooters)} units fire, "
                                 f"{len(dice)} dice were rolled")
            return
        if step["name"] == "attacker_fire":
            # the rule rolls the infantry's dice first (the supported ones first), then the others'
            foot = sum(1 for u in shooters if u["type"] == "infantry")
            supported = min(foot, sum(1 for u in shooters if u["type"] == "artillery"))
            needs = [2] * supported + [ATTACK["infantry"]] * (foot - supported) + \
                [ATTACK["artillery"]] * (len(shooters) - foot)
        else:
            needs = [DEFENSE[u["type"]] for u in shooters]
        scored = sum(1 for die, need in zip(dice, needs) if die <= need)
        expected = min(scored, len(step["targets"]))
        if step["hits"] != expected:
            self.problem(number, f"{step['name']} in {self.battle['space']}: the dice {dice} give {expected} "
                                 f"hit(s), the log has {step['hits']}")
        step.update(needs=needs, scored=scored, expected=expected)
        self.audited.append(step)


def audit(lines: list[dict]) -> tuple[list[str], list[dict]]:
    """The problems of a log (its lines as JSON values), and the battle steps whose dice were
    re-derived (name, shooters, targets, dice, the line numbers of the dice, hits)."""
    if len(lines) < 2 or lines[0].get("kind") != "game" or lines[1].get("kind") != "start":
        return ["a log begins with the game and its start"], []
    check = _Audit(lines[1])
    for number, e in enumerate(lines[2:], start=3):
        check.event(number, e)
    return check.problems, check.audited
