"""Invariants checked after every effect of randomized games.

An observer wraps the game state's event recorder (every effect records exactly one event) and,
after each event, checks the whole state against the one before it:

- no treasury is negative;
- units appear only through `add_units`, by placement or by a declared effect (a rule's `add`);
- units take hits only in battle; a declared effect may repair them;
- units disappear only through `remove_units`, in a battle or a bombing raid, by a declared
  effect, or (the standard rule) as air units with no place to land at the end of non-combat move;
- units change space only through `move_units`, never change type, and change owner only
  through an `owner` event of the battle (units captured with their territory);
- control changes only through a `control` event made by the rules' capture step (after a battle
  or on a blitz) or another declared effect;
- hits are taken only in battle.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

import ruleslang
from game_fixtures import make_game
from ruleslang.lang.eval.codegen_blocks import STATEMENTS
from ruleslang.runtime.agents.heuristic import HeuristicAgent

PACKAGE = Path(ruleslang.__file__).resolve().parent  # where the code runs from (a checkout or a wheel)
STATE, GAME = PACKAGE / "board" / "state.py", PACKAGE / "runtime" / "game.py"
PLACEMENT, BATTLE, MOVES = (PACKAGE / "runtime" / "kit" / n for n in ("placement.py", "battle.py", "moves.py"))
ENGINE = PACKAGE / "runtime" / "kit" / "movement.py"
# the effects of rules: the statements (as closures, or as generated code: lang/eval/codegen_blocks.py),
# and the writers of the board properties `set` and `change` reach
EFFECTS = (PACKAGE / "lang" / "eval" / "statements.py", PACKAGE / "lang" / "builtins" / "board.py")
GENERATED_STATEMENTS = f"<ruleslang {STATEMENTS}:"


def by_rules(caller: Path) -> bool:
    """Whether the code that made a change is a rule's effect."""
    return caller in EFFECTS or caller.name.startswith(GENERATED_STATEMENTS)


class Violation(AssertionError):
    pass


class EffectObserver:
    """Checks the invariants after every event the state records; collects what it saw."""

    def __init__(self, game):
        self.game = game
        self.state = game.state
        self.seen: dict[str, int] = {}
        self.causes: set[tuple[str, str]] = set()
        self.snapshot = self._snapshot()
        record = self.state._record

        def observed(event_kind: str, **data):
            event = record(event_kind, **data)
            self.check(event, self._caller())
            return event
        self.state._record = observed

    def _snapshot(self):
        units = {u.id: (u.space, u.owner, u.type, u.hits) for u in self.state.units}
        return units, dict(self.state.control)

    @staticmethod
    def _caller() -> Path:
        """The first source file on the stack outside the game state and the game's helpers."""
        frame = sys._getframe(2)
        while frame is not None:
            path = Path(frame.f_code.co_filename).resolve()
            if path not in (STATE, GAME):
                return path
            frame = frame.f_back
        raise Violation("an effect with no caller")

    def fail(self, event, why: str):
        ctx = self.game.ctx
        raise Violation(f"{why}\n  event: {event}\n  phase: {self.state.phase}, running: {ctx.running}")

    def check(self, event: dict, caller: Path) -> None:
        kind = event["kind"]
        self.seen[kind] = self.seen.get(kind, 0) + 1
        ctx, state = self.game.ctx, self.state
        for player, economies in state.treasury.items():
            for economy, amount in economies.items():
                if amount < 0:
                    self.fail(event, f"{player}'s treasury ({economy}) is {amount}")
        units, control = self._snapshot()
        before_units, before_control = self.snapshot
        self.snapshot = units, control
        appeared = units.keys() - before_units.keys()
        gone = before_units.keys() - units.keys()
        in_battle = ctx.battle is not None
        if appeared:
            if kind != "add_units":
                self.fail(event, f"units {sorted(appeared)} appeared without add_units")
            if caller == PLACEMENT and state.phase == "place":
                self.causes.add(("add", "placement"))
            elif by_rules(caller):
                self.causes.add(("add", "effect in " + "/".join(ctx.running)))
            else:
                self.fail(event, f"units added by {caller.name}")
        if gone:
            if kind != "remove_units":
                self.fail(event, f"units {sorted(gone)} vanished without remove_units")
            if caller == BATTLE and in_battle:
                self.causes.add(("remove", "battle"))
            elif by_rules(caller):
                self.causes.add(("remove", "effect in " + "/".join(ctx.running)))
            elif caller == MOVES and state.phase == "noncombat_move" and \
                    all(self.game.domain(_Unit(before_units[i], i)) == "air" for i in gone):
                self.causes.add(("remove", "air units with no place to land"))
            else:
                self.fail(event, f"units removed by {caller.name} outside a battle")
        for uid in units.keys() & before_units.keys():
            (space, owner, type_, hits), (space0, owner0, type0, hits0) = units[uid], before_units[uid]
            if type_ != type0 or (owner != owner0 and not (kind == "owner" and caller == BATTLE and in_battle)):
                self.fail(event, f"unit {uid} changed from {owner0} {type0} to {owner} {type_}")
            if owner != owner0:
                self.causes.add(("owner", "captured"))
            if space != space0 and kind != "move_units":
                self.fail(event, f"unit {uid} moved from {space0} to {space} without move_units")
            # hits change in battle, or by a rule's declared `set hits(u) to ...` (the repair at
            # the end of a turn is one)
            if hits != hits0 and not ((in_battle and (caller == BATTLE or by_rules(caller)))
                                      or (by_rules(caller) and hits < hits0)):
                self.fail(event, f"unit {uid} took hits outside a battle")
        changed = [s for s in control if control[s] != before_control.get(s)]
        if changed:
            if kind != "control" or changed != [event["space"]]:
                self.fail(event, f"control of {changed} changed without its control event")
            if not by_rules(caller):
                self.fail(event, f"control changed by {caller.name}, not by a declared effect")
            if "capture" not in ctx.running:
                self.fail(event, f"control changed outside the capture step (running: {ctx.running})")
            self.causes.add(("control", "blitz" if state.phase == "combat_move" else "battle"))


class _Unit:
    """A unit as it stood before an event (for the unit rules' questions)."""

    def __init__(self, facts, uid):
        self.space, self.owner, self.type, self.hits = facts
        self.id = uid


def observed_game(refs, seed: int, rounds: int, agent: str = "random"):
    game = make_game(refs, seed=seed, default_agent=agent, rounds=rounds)
    if agent == "heuristic":
        # the previous heuristic agent (quick odds only): the games below are pinned to its play
        # (a blitz in the base game of seed 6), not to the agent of the day
        game.agents = {p: HeuristicAgent(seed, p, odds="quick") for p in game.agents}
    observer = EffectObserver(game)
    result = game.run(rounds)
    return game, observer, result


@pytest.mark.parametrize("seed", [1, 2, 3, 4, 5])
def test_invariants_hold_after_every_effect_of_random_house_rules_games(seed):
    game, observer, result = observed_game(["aar/house-rules@1"], seed, 3)
    assert result["rounds_played"] == 3 or result["winner"]
    assert observer.seen["add_units"] and observer.seen["remove_units"] and observer.seen["treasury"]


@pytest.mark.parametrize("seed", [1, 2])
def test_invariants_hold_in_random_base_games(seed):
    game, observer, result = observed_game(["aar/base@1"], seed, 3)
    assert ("add", "placement") in observer.causes and ("remove", "battle") in observer.causes


@pytest.mark.parametrize("refs, seed", [(["aar/house-rules@1"], 1), (["aar/base@1"], 1)])
def test_invariants_hold_in_heuristic_games_where_territories_change_hands(refs, seed):
    game, observer, result = observed_game(refs, seed, 3, "heuristic")
    assert ("control", "battle") in observer.causes
    if refs == ["aar/house-rules@1"]:       # the emergency purchase adds units by a declared effect
        assert ("add", "effect in battle/battle_start") in observer.causes
    else:
        assert ("control", "blitz") in observer.causes


def test_the_observer_catches_a_change_that_bypasses_the_effects():
    game = make_game(["aar/base@1"])
    observer = EffectObserver(game)
    game.state.units.pop()                       # a unit vanishes without remove_units
    with pytest.raises(Violation, match="vanished without remove_units"):
        game.state.log("anything")
    assert observer.seen == {"log": 1}


def test_the_observer_refuses_control_changed_outside_the_capture_step():
    game = make_game(["aar/base@1"])
    EffectObserver(game)
    with pytest.raises(Violation, match="not by a declared effect"):
        game.state.set_control("Karelia S.S.R.", "Germans")


@pytest.mark.parametrize("seed", [1, 2])
def test_invariants_hold_in_random_infrastructure_defense_games(seed):
    game, observer, result = observed_game(["aar/base@1", "aar/infrastructure-defense@1"], seed, 4)
    assert ("add", "placement") in observer.causes and ("remove", "battle") in observer.causes
