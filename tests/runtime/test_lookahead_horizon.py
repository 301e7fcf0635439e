"""A look-ahead's rollouts played to the end of the decision's phase, not of the turn
(lookahead.py's `horizon`, the heuristic agent's SPARE part "horizon", session 15): the default
agent's rollouts end with the phase, and in seeded house-rules games the answers are valued as
far apart as when every rollout plays the rest of the turn."""

from __future__ import annotations

import pytest

from game_fixtures import play_looked_ahead
from ruleslang.runtime.agents import lookahead
from ruleslang.runtime.agents.heuristic import SPARE, HeuristicAgent


def test_the_default_agent_ends_its_rollouts_with_the_phase_and_the_asking_one_with_the_turn():
    assert "horizon" in SPARE
    assert HeuristicAgent(1, "Germans").lookahead.horizon
    assert not HeuristicAgent(1, "Germans", spare=()).lookahead.horizon
    assert not HeuristicAgent(1, "Germans", spare=("rollouts",)).lookahead.horizon


def test_rollouts_in_battles_end_with_the_phase_and_value_the_answers_as_far_apart(monkeypatch):
    # seeded house-rules games played by the asking agent (spare=(): its rollouts play the turn's
    # later phases, so each decision is the one it met), each look-ahead valued with and without
    # the horizon: a decision asked in a battle has its horizon's copies end in the decision's
    # phase (without it, in the turn's later phases), and its answers' values differ from one
    # another as they do without (the later phases add the same to every answer's rollout); a
    # decision asked outside a battle is valued as without the horizon
    values, valuation = lookahead.Lookahead.values, lookahead.valuation
    seen: list = []
    ended: list = []

    def noting(game, player):
        ended.append(game.state.phase)
        return valuation(game, player)

    def both(self, game, d, answers, **kwargs):
        found = []
        for horizon in (True, False):
            self.horizon = horizon
            ended.clear()
            found.append((values(self, game, d, answers), set(ended)))
        seen.append((game.state.phase, game.ctx.battle is not None, *found))
        return found[1][0]
    play_looked_ahead(monkeypatch, both, noting, spare=())
    in_battle = [s for s in seen if s[1]]
    assert len(in_battle) >= 4 and len(seen) > len(in_battle)
    for phase, battle, (near, near_ended), (far, far_ended) in seen:
        if not battle:
            assert near == far
            continue
        assert near_ended == {phase}
        assert far_ended - {phase}
        assert [v - near[0] for v in near] == pytest.approx([v - far[0] for v in far], abs=1e-6)
    assert any(near != far for *_, (near, _), (far, _) in in_battle)  # (the later phases do add to the values)
