"""A rule decision asked in a battle before its first round answered without a look-ahead
(lookahead.py's `muster`, the heuristic agent's SPARE part "muster", session 24): the default
agent has the part; in a seeded house-rules game the emergency purchase before a battle is not
looked ahead and takes the agent's own answer, where without the part its rollouts chose another,
while decisions asked later in a battle or outside one are still looked ahead."""

from __future__ import annotations

from game_fixtures import lookahead_counts, make_game
from ruleslang.runtime.agents import lookahead
from ruleslang.runtime.agents.heuristic import SPARE, HeuristicAgent


def test_the_default_agent_answers_a_decision_before_a_battles_first_round_itself():
    assert "muster" in SPARE
    assert HeuristicAgent(1, "Germans").lookahead.muster
    assert not HeuristicAgent(1, "Germans", spare=()).lookahead.muster
    assert not HeuristicAgent(1, "Germans", spare=tuple(p for p in SPARE if p != "muster")).lookahead.muster


def _first_round(monkeypatch, spare: tuple, seed: int = 3) -> tuple[list, list, dict]:
    """`seed` of aar/house-rules@1, its first round, every player a heuristic agent sparing
    `spare`: the decisions looked ahead (id, the battle's round or None), the emergency purchases
    asked before their battles (id, player, answer) and the look-aheads' counts, summed."""
    looked: list = []
    values = lookahead.Lookahead.values

    def noting(self, game, d, answers, **kwargs):
        battle = game.ctx.battle
        looked.append((d.id, battle.round if battle is not None else None))
        return values(self, game, d, answers, **kwargs)
    monkeypatch.setattr(lookahead.Lookahead, "values", noting)
    game = make_game(["aar/house-rules@1"], seed=seed, default_agent="heuristic")
    for player in list(game.agents):
        game.agents[player] = HeuristicAgent(game.seed, player, spare=spare)
    game.run(1)
    monkeypatch.undo()
    answers = [(e["id"], e["player"], a) for e, a in zip(game.decisions, game.answers)
               if e.get("id") == "emergency_infantry.bought"]
    return looked, answers, lookahead_counts(game)


def test_a_decision_before_a_battles_first_round_is_not_looked_ahead(monkeypatch):
    without = tuple(p for p in SPARE if p != "muster")
    looked, answers, counts = _first_round(monkeypatch, without)
    looked_m, answers_m, counts_m = _first_round(monkeypatch, SPARE)
    # without the part the emergency purchases are looked ahead, before their battle's first round
    assert ("emergency_infantry.bought", 0) in looked
    assert lookahead.MUSTERED not in counts
    # with it, no decision asked before a battle's first round is, and each is counted
    assert all(r != 0 for _, r in looked_m)
    assert counts_m[lookahead.MUSTERED] == len(answers_m) >= 2
    # the own answer stands (the most of a number: 2 infantry at each city), where the Germans'
    # rollouts chose none at the Ukraine
    assert answers_m == [("emergency_infantry.bought", "Germans", 2), ("emergency_infantry.bought", "Americans", 2)]
    assert answers == [("emergency_infantry.bought", "Germans", 0), ("emergency_infantry.bought", "Americans", 2)]


def test_a_decision_outside_a_battle_is_still_looked_ahead(monkeypatch):
    # seed 8's first round asks a commerce raid's zone outside a battle (session 23's test)
    looked, _, counts = _first_round(monkeypatch, SPARE, seed=8)
    assert any(r is None for _, r in looked) and counts[lookahead.LOOKED] >= 1
