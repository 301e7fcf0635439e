"""Helpers for the runtime tests: small games on the Revised board with scripted players.

    g = make_game(["aar/base@1"], scenario={"setup": "empty", "units": {...}}, orders={...})
    run_phases(g, "Germans", "combat_move", "battle")     # phases of a turn, as the turn loop runs them
    ids(g, "Karelia S.S.R.", "Germans", "infantry")
    load_dice(g, [1, 6, 2])                       # the dice the rules will roll, in order
    tapped = tap_dice(g)                          # every die rolled, with the step that rolled it

A scenario is plain data merged over the map's start (`setup: empty` starts with no units and no
factories). Orders are the scripted agent's format (ruleslang/runtime/agents/scripted.py), given
per player; a player without orders does nothing (buys nothing, moves nothing, answers a rule's
decision with its first option).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import NamedTuple

import yaml

from ruleslang.base.paths import packaged_root
from ruleslang.workspace.compositions import Workspace
from ruleslang.lang.eval.statements import run_procedure
from ruleslang.runtime.agents import lookahead
from ruleslang.runtime.agents.heuristic import HeuristicAgent
from ruleslang.runtime.decisions import Decision
from ruleslang.runtime.kit.battle import Battle
from ruleslang.runtime.agents.scripted import ScriptedAgent
from ruleslang.runtime.kit import placement
from ruleslang.runtime.saves import GameSetup, build_game

REPO = Path(__file__).resolve().parents[2]
WORKSPACE = Workspace([packaged_root()])

BASE = ["aar/base@1"]
VC1 = ["aar/base@1", "aar/victory-cities@1"]
CR1 = ["aar/base@1", "aar/commerce-raiding@1"]
CR2 = ["aar/base@1", "aar/commerce-raiding@2"]


def make_game(refs, *, scenario: dict | None = None, orders: dict | None = None, seed: int = 1,
              settings=(), agents: dict | None = None, default_agent: str = "scripted", rounds: int = 1,
              workspace: Workspace | None = None):
    """A game under `refs` from a scenario given as data; scripted players by default."""
    setup = GameSetup(refs=list(refs), seed=seed, rounds=rounds, players=dict(agents or {}),
                      default_agent=default_agent, settings=list(settings))
    text = yaml.safe_dump(scenario, sort_keys=False) if scenario is not None else None
    game = build_game(workspace or WORKSPACE, setup, scenario_text=text)
    for player, plan in (orders or {}).items():
        game.agents[player] = ScriptedAgent(player, plan)
    return game


def run_phases(game, player: str, *phases: str) -> None:
    """Run some phases of `player`'s turn as the game's turn loop does (the turn starts first
    unless it is already `player`'s)."""
    state = game.state
    if state.current_player != player or not any(e.get("kind") == "turn" for e in state.events):
        state.start_turn(player)
    for phase in phases:
        state.set_phase(phase)
        game.host.reset_budget()
        game.ctx.running = []
        run_procedure(game.ctx, phase)


def ids(game, space: str, owner: str | None = None, unit_type: str | None = None) -> list[int]:
    return [u.id for u in game.state.units if u.space == space and (owner is None or u.owner == owner)
            and (unit_type is None or u.type == unit_type)]


def count(game, space: str, owner: str | None = None, unit_type: str | None = None) -> int:
    return len(ids(game, space, owner, unit_type))


def events(game, kind: str, since: int = 0, **match) -> list[dict]:
    """The events of a kind (after index `since`) whose fields equal `match`."""
    return [e for e in game.state.events[since:] if e.get("kind") == kind
            and all(e.get(k) == v for k, v in match.items())]


def logs(game, since: int = 0) -> list[str]:
    return [e["message"] for e in game.state.events[since:] if e.get("kind") == "log" and "message" in e]


def treasury(game, player: str) -> int:
    return game.board.treasury(player)


def orders_file(tmp_path: Path, orders: dict) -> str:
    path = tmp_path / "orders.yaml"
    path.write_text(yaml.safe_dump(orders, sort_keys=False), encoding="utf-8")
    return str(path)


def scenario_file(tmp_path: Path, scenario: dict, name: str = "scenario.yaml") -> str:
    path = tmp_path / name
    path.write_text(yaml.safe_dump(scenario, sort_keys=False), encoding="utf-8")
    return str(path)


def read_log(path) -> list[dict]:
    return [json.loads(line) for line in Path(path).read_text(encoding="utf-8").splitlines() if line.strip()]


class Die(NamedTuple):
    step: str | None
    round: int
    value: int


class LoadedDice:
    """A stand-in for the host's random generator: the dice come from a list, in order; one
    roll more than the list holds is an error (so a test also checks how many dice a rule rolls)."""

    def __init__(self, values):
        self.values = list(values)
        self.used = 0

    def randint(self, low: int, high: int) -> int:
        if self.used >= len(self.values):
            raise AssertionError(f"the rules rolled more than the {len(self.values)} dice the test loaded")
        value = self.values[self.used]
        self.used += 1
        assert low <= value <= high
        return value

    @property
    def left(self) -> int:
        return len(self.values) - self.used


def load_dice(game, values) -> LoadedDice:
    """Make the game roll `values`, in order (each still recorded in `game.host.rolls`)."""
    dice = LoadedDice(values)
    game.host.rng = dice
    return dice


def tap_dice(game) -> list[Die]:
    """Record each die the game rolls with the step (or phase) rolling it and the battle round."""
    tapped: list[Die] = []
    host, roll = game.host, game.host.roll

    def tapping(sides, span=None):
        value = roll(sides, span)
        battle = getattr(game.ctx, "battle", None)
        tapped.append(Die(game.ctx.running[-1] if game.ctx.running else None,
                          battle.round if battle is not None else 0, value))
        return value
    host.roll = tapping
    return tapped


def dice_of(tapped, step: str, round: int | None = None) -> list[int]:
    """The values of the tapped dice a step rolled (in one battle round, if given)."""
    return [d.value for d in tapped if d.step == step and (round is None or d.round == round)]


def play_looked_ahead(monkeypatch, values, valuation, spare: tuple) -> None:
    """Seeds 1 and 2 of aar/house-rules@1, three rounds, every player a heuristic agent sparing
    `spare`, with the look-ahead's `Lookahead.values` and `valuation` replaced by `values` and
    `valuation` while they play (the look-ahead tests' watch on each decision's rollouts)."""
    monkeypatch.setattr(lookahead.Lookahead, "values", values)
    monkeypatch.setattr(lookahead, "valuation", valuation)
    for seed in (1, 2):
        game = make_game(["aar/house-rules@1"], seed=seed, default_agent="heuristic")
        for player in list(game.agents):
            game.agents[player] = HeuristicAgent(game.seed, player, spare=spare)
        game.run(3)
    monkeypatch.undo()


def placement_checks(monkeypatch, module=placement) -> list[str]:
    """The actions `module` (the kit's placement by default; the kit's purchase, whose
    `place_refusals` the purchase's forecast asks) asks the rules to check (its `check_action`), in order, from now on in the test:
    the list is filled as they are asked (clear it between games)."""
    asked: list[str] = []
    real = module.check_action

    def counting(ctx, action, *rest, **options):
        asked.append(action)
        return real(ctx, action, *rest, **options)
    monkeypatch.setattr(module, "check_action", counting)
    return asked


def retreat_question(attackers: dict, defenders: dict, **options):
    """(the German agent made with `options`, its answer to the retreat question of a battle for
    Karelia after its first round, `attackers` against `defenders` (type -> count), the game): the
    battle set on the game's context as the rules ask it."""
    karelia, belorussia = "Karelia S.S.R.", "Belorussia"
    game = make_game(BASE, scenario={"setup": "empty", "units": {
        karelia: {"Germans": attackers, "Russians": defenders}, belorussia: {"Germans": {"infantry": 1}}}})
    attacking = ids(game, karelia, "Germans")
    battle = Battle(game, karelia, "Germans", "Russians", amphibious=False, attacking=attacking,
                    defending=ids(game, karelia, "Russians"), came_from=dict.fromkeys(attacking, belorussia))
    battle.round = 1
    game.ctx.battle = battle
    agent = HeuristicAgent(1, "Germans", **options)
    agent.battle_odds.new_decision()
    retreat = Decision("choose", "Germans", "?", options=[True, False], mode="one", count=1, id="attacker_retreat.go")
    return agent, agent._choose(retreat, game), game


def retreat_asked(attackers: dict, defenders: dict, spare: tuple) -> tuple[bool, int, bool]:
    """(the Germans' answer to `retreat_question`'s question, the questions their agent made with
    `spare` asked of its exact odds, whether its quick estimate is reckoned: `_glanced`)."""
    agent, answer, game = retreat_question(attackers, defenders, spare=spare)
    return answer, sum(agent.battle_odds.counts.values()), agent._glanced(game)


def lookahead_counts(game) -> dict:
    """The look-aheads' counts (`Lookahead.counts`) of `game`'s heuristic agents, summed by reason."""
    counts: dict = {}
    for agent in game.agents.values():
        for reason, n in agent.lookahead.counts.items():
            counts[reason] = counts.get(reason, 0) + n
    return counts
