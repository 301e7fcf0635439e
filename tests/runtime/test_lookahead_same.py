"""A look-ahead's decision outside a battle whose copies all come to the same game as the
decision's phase ends (lookahead.py `_same_game`, session 23): valued there, its rollouts play
no later phase and the own answer stands, as the turn played on chooses; copies that differ
there play on from where they are held, as a rollout played whole does; what
`phase_starts.likeness` tells apart; and a quick policy that answered only rule questions the
ruleset gives no advice on is as one made anew (what `_same_game` takes of the policies)."""

from __future__ import annotations

import itertools
import random

from game_fixtures import make_game
from ruleslang.runtime.agents import lookahead, phase_starts
from ruleslang.runtime.agents.heuristic import HeuristicAgent
from ruleslang.runtime.decisions import Decision


def _commerce_looked_ahead(monkeypatch) -> list:
    """Seed 8 of aar/house-rules@1, round 1, default agents: the British collection asks a German
    fighter which sea zone it raids (`commerce_raiding.zone`, looked ahead). At each such
    decision, (values, the phases the copies were run into, the counts added) three ways: as the
    agent values it; with no two copies taken for the same game (`likeness` made unique); played
    whole, one round (no `settle`: the turn played on, as before session 23)."""
    values, run = lookahead.Lookahead.values, lookahead.run_procedure
    likeness = phase_starts.likeness
    phases: list = []
    seen: list = []
    unique = itertools.count()

    def running(ctx, name, *args, **kwargs):
        phases.append(name)
        return run(ctx, name, *args, **kwargs)

    def three(self, game, d, answers, **kwargs):
        if d.id != "commerce_raiding.zone":
            return values(self, game, d, answers, **kwargs)
        found = []
        for way in ("agent", "unlike", "whole"):
            phases.clear()
            counts = dict(self.counts)
            if way == "unlike":
                monkeypatch.setattr(phase_starts, "likeness", lambda game: str(next(unique)).encode())
            rollouts = self.rollouts
            if way == "whole":
                self.rollouts = 1
            out = values(self, game, d, answers, settle=way != "whole")
            self.rollouts = rollouts
            monkeypatch.setattr(phase_starts, "likeness", likeness)
            added = {k: v - counts.get(k, 0) for k, v in self.counts.items() if v != counts.get(k, 0)}
            found.append((out, set(phases), added))
        seen.append(found)
        return found[0][0]
    monkeypatch.setattr(lookahead.Lookahead, "values", three)
    monkeypatch.setattr(lookahead, "run_procedure", running)
    make_game(["aar/house-rules@1"], seed=8, default_agent="heuristic").run(1)
    monkeypatch.undo()
    return seen


def _choice(values: list) -> int:
    """The index `Lookahead.choose` takes from `values` (the own answer first)."""
    best = max(range(len(values)), key=lambda i: (values[i], -i))
    return best if values[best] > values[0] + lookahead.MARGIN else 0


def test_copies_that_come_to_the_same_game_end_with_the_phase_and_choose_as_the_turn_played_on(monkeypatch):
    seen = _commerce_looked_ahead(monkeypatch)
    assert seen
    for (agent, agent_phases, agent_counts), (unlike, unlike_phases, _), (whole, whole_phases, _) in seen:
        # the copies came to the same game as the collection ended: valued there, no later phase played
        assert agent_counts.get(lookahead.SETTLED_SAME) == 1
        assert agent_phases == {"collect_income"}
        assert len(set(agent)) == 1 and _choice(agent) == 0
        # played on, the turn values the answers alike too (the same choice: the own answer)
        assert "combat_move" in whole_phases and len(set(whole)) == 1 and _choice(whole) == 0
        # copies held at the phase's end and played on (none taken for the same game) come to the
        # very values of rollouts played whole
        assert unlike == whole and unlike_phases == whole_phases


def _game():
    return make_game(["aar/house-rules@1"], seed=3, default_agent="random")


def test_likeness_leaves_out_the_boards_counts_of_its_changes_alone():
    game = _game()
    base = phase_starts.likeness(game)
    state = game.state
    state.version += 5
    state.quiet_changes += 2
    state.places_kept += 1
    state.counter_writes["room"] = 3
    assert phase_starts.likeness(game) == base
    changes = {
        "a counter": lambda g: g.state.set_counter("room", ("UK",), 4),
        "a unit's hits": lambda g: setattr(g.state.units[0], "hits", 1),
        "a treasury": lambda g: g.state.treasury["British"].update({k: v + 1 for k, v in g.state.treasury["British"].items()}),
        "the dice": lambda g: g.host.rng.random(),
        "the dice kept for rolls()": lambda g: g.host.roll(6),
        "the kit's purchases": lambda g: g.kit.purchased.setdefault("British", []).append("x"),
        "the battle results": lambda g: g.battle_results.append({"space": "UK"}),
        "the contested spaces": lambda g: g.ctx.contested_spaces.append("UK"),
        "the bid purse": lambda g: setattr(g, "bid_purse", 7),
    }
    for name, change in changes.items():
        game = _game()
        before = phase_starts.likeness(game)
        assert before == base, name
        if name == "the dice kept for rolls()":
            game.host.rng = random.Random(0)  # (the draw and the kept die: the kept die alone is told here)
            before = phase_starts.likeness(game)
            state_before = game.host.rng.getstate()
            change(game)
            game.host.rng.setstate(state_before)
        else:
            change(game)
        assert phase_starts.likeness(game) != before, name


def test_a_quick_policy_keeps_nothing_of_a_rule_question_without_advice():
    game = make_game(["aar/house-rules@1"], seed=8, default_agent="heuristic")
    sims: dict = {}

    def policy():
        return HeuristicAgent(8, "Germans", previous=True, sims=sims, rollout=True)

    def differences(x, y, path: str = "", depth: int = 0) -> list[str]:
        # what the policies hold, their objects by their attributes and generators by their
        # state; not the quick estimates' generator, seeded from the policy's own before each
        # estimate (`_dice`), nor what they share with the look-ahead's other policies (`sims`)
        if type(x) is not type(y):
            return [path]
        if isinstance(x, random.Random):
            return [] if x.getstate() == y.getstate() else [path]
        if isinstance(x, dict):
            return [d for k in set(x) | set(y) if k not in ("_estimate_generator", "sims")
                    for d in differences(x.get(k), y.get(k), f"{path}.{k}", depth + 1)]
        if hasattr(x, "__dict__") and not callable(x) and depth < 6:
            return differences(vars(x), vars(y), path, depth + 1)
        return [] if x == y else [path]
    question = Decision("choose", "Germans", "which sea zone?", options=["3 Sea Zone", "6 Sea Zone"],
                        id="commerce_raiding.zone")
    assert lookahead._quiet(question, game)
    used = policy()
    for _ in range(3):
        assert used.decide(question, game) == "3 Sea Zone"
    assert differences(used, policy()) == []
    used.rng.random()  # (the check tells a policy that drew a die of its own, or planned a move)
    assert differences(used, policy()) == [".rng"]
    used = policy()
    used._plan_key = (1, "combat", "Germans")
    assert differences(used, policy()) == ["._plan_key"]
    # a question the ruleset advises on, and a move, are not such questions
    advised = Decision("choose", "Germans", "destroy?", options=[True, False], id="purchased_factory_destroyed.destroy")
    assert not lookahead._quiet(advised, game)
    assert not lookahead._quiet(Decision("move", "Germans", "move"), game)
