"""A battle's question of where its units go answered without a look-ahead (lookahead.py's
`whither`, the heuristic agent's SPARE part "whither", session 25): the default agent has the
part; in a seeded house-rules game a retreat's destination with more than one option is not
looked ahead and the own answer stands, as the look-ahead's rollouts (which end with the battle)
valued every destination alike, while the other decisions are looked ahead as before."""

from __future__ import annotations

from game_fixtures import lookahead_counts, make_game
from ruleslang.runtime.agents import lookahead
from ruleslang.runtime.agents.heuristic import SPARE, HeuristicAgent

WITHOUT = tuple(p for p in SPARE if p != "whither")


def test_the_default_agent_answers_a_battles_destination_itself():
    assert "whither" in SPARE
    assert HeuristicAgent(1, "Germans").lookahead.whither
    assert not HeuristicAgent(1, "Germans", spare=()).lookahead.whither
    assert not HeuristicAgent(1, "Germans", spare=WITHOUT).lookahead.whither


def _first_round(monkeypatch, spare: tuple) -> tuple[list, list, list, dict]:
    """Seed 1 of aar/house-rules@1, its first round, every player a heuristic agent sparing
    `spare`: the decisions looked ahead (id, whether in a battle, their values), the game's
    decisions (id, player, answer) and the look-aheads' counts, summed."""
    looked: list = []
    values = lookahead.Lookahead.values

    def noting(self, game, d, answers, **kwargs):
        found = values(self, game, d, answers, **kwargs)
        looked.append((d.id, game.ctx.battle is not None, found))
        return found
    monkeypatch.setattr(lookahead.Lookahead, "values", noting)
    game = make_game(["aar/house-rules@1"], seed=1, default_agent="heuristic")
    for player in list(game.agents):
        game.agents[player] = HeuristicAgent(game.seed, player, spare=spare)
    game.run(1)
    monkeypatch.undo()
    # (by their text: each game's program has enumeration members of its own)
    answers = [(e.get("id"), e["player"], repr(a)) for e, a in zip(game.decisions, game.answers)]
    return looked, answers, lookahead_counts(game)


def test_a_battles_destination_is_not_looked_ahead_and_the_game_plays_as_before(monkeypatch):
    looked, answers, counts = _first_round(monkeypatch, WITHOUT)
    looked_w, answers_w, counts_w = _first_round(monkeypatch, SPARE)
    # without the part a retreat's destination is looked ahead, in its battle, and its rollouts
    # value every destination alike
    destinations = [values for d_id, in_battle, values in looked if d_id == "attacker_retreat.to" and in_battle]
    assert destinations and all(len(set(values)) == 1 for values in destinations)
    assert lookahead.WHITHER not in counts
    # with it, none is, each counted, and every decision of the game has the same answer
    assert all(d_id != "attacker_retreat.to" for d_id, _, _ in looked_w)
    assert counts_w[lookahead.WHITHER] == len(destinations)
    assert answers_w == answers
    # the other decisions are still looked ahead
    assert [entry for entry in looked if entry[0] != "attacker_retreat.to"] == looked_w
