"""A look-ahead's rollouts of a decision asked in a battle played to the end of that battle, not
of the phase (lookahead.py's `fought`, the heuristic agent's SPARE part "fought", session 22):
the default agent's rollouts end with the battle, and in seeded house-rules games each copy of
such a decision fights its decision's battle and no other, while a decision outside a battle is
valued as before."""

from __future__ import annotations

from game_fixtures import play_looked_ahead
from ruleslang.runtime.agents import lookahead
from ruleslang.runtime.agents.heuristic import SPARE, HeuristicAgent


def test_the_default_agent_ends_a_battle_decisions_rollouts_with_the_battle():
    assert "fought" in SPARE
    assert HeuristicAgent(1, "Germans").lookahead.fought
    assert not HeuristicAgent(1, "Germans", spare=()).lookahead.fought
    assert not HeuristicAgent(1, "Germans", spare=("rollouts", "horizon")).lookahead.fought


def test_a_battle_decisions_copies_fight_its_battle_alone(monkeypatch):
    # seeded house-rules games played by an agent whose rollouts end with the phase ("horizon"
    # without "fought"), each look-ahead valued with and without `fought`: with it, every copy of
    # a decision asked in a battle fights that battle to its end and no other battle after it
    # (without it, some copies fight the phase's later battles too); a decision asked outside a
    # battle is valued exactly as without
    values, valuation = lookahead.Lookahead.values, lookahead.valuation
    seen: list = []
    fought: list = []

    def noting(game, player):
        results = game.battle_results
        fought.append((len(results), results[-1]["space"] if results else None))
        return valuation(game, player)

    def both(self, game, d, answers, **kwargs):
        found = []
        battle = game.ctx.battle
        before = len(game.battle_results)
        for ends in (True, False):
            self.fought = ends
            fought.clear()
            found.append((values(self, game, d, answers, **kwargs),
                          [(n - before, space) for n, space in fought]))
        seen.append((battle.space if battle is not None else None, *found))
        return found[1][0]
    play_looked_ahead(monkeypatch, both, noting, spare=("horizon",))
    in_battle = [s for s in seen if s[0] is not None]
    assert len(in_battle) >= 4 and len(seen) > len(in_battle)
    for space, (near, near_fought), (far, far_fought) in seen:
        if space is None:
            assert near == far and near_fought == far_fought
            continue
        assert near_fought and all(copy == (1, space) for copy in near_fought)
        assert all(n >= 1 for n, _ in far_fought)
    # (without the part, copies fight the phase's later battles, which change the values)
    assert any(n > 1 for *_, (_, far_fought) in in_battle for n, _ in far_fought)
    assert any(near != far for _, (near, _), (far, _) in in_battle)
