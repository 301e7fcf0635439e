"""The look-ahead's rounds of rollouts stopped once they settle the choice (lookahead.py's
`settle`, the heuristic agent's SPARE part "rollouts", session 15): the rules themselves on
scripted rollout values, and in seeded house-rules games the same choices as with every rollout
played, from fewer rollouts."""

from __future__ import annotations

import math

from game_fixtures import make_game
from ruleslang.runtime.agents import lookahead
from ruleslang.runtime.agents.heuristic import SPARE, HeuristicAgent


def asking(game, spare: tuple = ()):
    """`game` with every player's heuristic agent sparing `spare` (by default nothing: the agent
    the seeds below were looked at with)."""
    for player in list(game.agents):
        game.agents[player] = HeuristicAgent(game.seed, player, spare=spare)
    return game


def _choice(values: list) -> int:
    """The index `Lookahead.choose` takes from `values` (the own answer first)."""
    best = max(range(len(values)), key=lambda i: (values[i], -i))
    return best if values[best] > values[0] + lookahead.MARGIN else 0


def test_the_default_agent_settles_its_rollouts_and_the_asking_one_plays_them_all():
    assert "rollouts" in SPARE
    assert HeuristicAgent(1, "Germans").lookahead.settle
    assert not HeuristicAgent(1, "Germans", spare=()).lookahead.settle
    assert not HeuristicAgent(1, "Germans", spare=("retreat", "attacks")).lookahead.settle


def test_rounds_stop_when_the_answers_are_valued_alike_or_fall_behind(monkeypatch):
    # scripted rollout values (answer, rollout) -> value, on a real decision of a house-rules game
    scripts = {
        # every answer valued as the own one in the first round: one round played
        "alike": [[5.0, 9.0, 9.0], [5.0, 1.0, 1.0], [5.0, 1.0, 1.0]],
        # answer 1 more than SETTLED[0] behind after the first round, answer 2 more than SETTLED[1]
        # behind after the second: the own answer's third rollout is not played either; a dropped
        # answer is never taken (-inf), whatever its rollouts so far came to
        "behind": [[0.0, 0.0, 0.0], [-31.0, 50.0, 50.0], [-5.0, -16.0, 0.0]],
        # answer 2 within reach after two rounds: it and the own answer play the third
        "close": [[0.0, 0.0, 0.0], [-31.0, 50.0, 50.0], [-5.0, -14.0, 20.0]],
    }
    expected = {
        "alike": ([5.0, 5.0, 5.0], 3),
        "behind": ([0.0, -math.inf, -math.inf], 5),
        "close": ([0.0, -math.inf, 1 / 3], 7),
    }
    found: dict = {}
    values = lookahead.Lookahead.values

    def scripted(name):
        def rollout(self, game, start, agent, note_dice=False, within=False):
            r = int(agent.stream.rsplit(":", 1)[1])
            found[name].append((agent.answer, r))
            return scripts[name][answers_now.index(agent.answer)][r], False
        return rollout
    answers_now: list = []

    def noted(self, game, d, answers, **kwargs):
        if not found and len(answers) == 3:
            answers_now[:] = answers
            real = lookahead.Lookahead._rollout
            for name in scripts:
                found[name] = []
                monkeypatch.setattr(lookahead.Lookahead, "_rollout", scripted(name))
                found[name, "values"] = values(self, game, d, answers, settle=True)
                found[name, "every"] = values(self, game, d, answers)
            monkeypatch.setattr(lookahead.Lookahead, "_rollout", real)
        return values(self, game, d, answers, **kwargs)
    monkeypatch.setattr(lookahead.Lookahead, "values", noted)
    asking(make_game(["aar/house-rules@1"], seed=1, default_agent="heuristic")).run(1)
    monkeypatch.undo()
    for name, (want, played) in expected.items():
        assert found[name, "values"] == want, name
        assert len(found[name]) - 3 * lookahead.ROLLOUTS == played, name  # (the second call plays every rollout)
        every = [sum(row) / lookahead.ROLLOUTS for row in scripts[name]]
        assert found[name, "every"] == every
    assert [r for _, r in found["alike"][:3]] == [0, 0, 0]  # a round at a time: each answer's first


def test_settled_rollouts_choose_as_every_rollout_played_from_fewer(monkeypatch):
    # seeded house-rules games (the asking agent's: its own play is not settled, so each decision is
    # the one it met): at every look-ahead, the settled values choose the answer every rollout
    # played chooses, from fewer rollouts; both rules stop rounds
    values, rollout = lookahead.Lookahead.values, lookahead.Lookahead._rollout
    counted = {"settled": 0, "every": 0}
    mode = ["every"]
    seen: list = []
    reasons: dict = {}

    def counting(self, *args, **kwargs):
        counted[mode[0]] += 1
        return rollout(self, *args, **kwargs)

    def noted(self, game, d, answers, **kwargs):
        mode[0] = "settled"
        settled = values(self, game, d, answers, settle=True)
        mode[0] = "every"
        every = values(self, game, d, answers)
        seen.append((d.id, settled, every))
        return every
    monkeypatch.setattr(lookahead.Lookahead, "values", noted)
    monkeypatch.setattr(lookahead.Lookahead, "_rollout", counting)
    for seed in (1, 2):
        game = asking(make_game(["aar/house-rules@1"], seed=seed, default_agent="heuristic"))
        game.run(3)
        for agent in game.agents.values():
            for reason in (lookahead.SETTLED_ALIKE, lookahead.SETTLED_BEHIND):
                reasons[reason] = reasons.get(reason, 0) + agent.lookahead.counts.get(reason, 0)
    monkeypatch.undo()
    assert len(seen) >= 4
    for _, settled, every in seen:
        assert _choice(settled) == _choice(every)
    assert counted["settled"] < counted["every"]
    assert reasons[lookahead.SETTLED_ALIKE] >= 1 and reasons[lookahead.SETTLED_BEHIND] >= 1
