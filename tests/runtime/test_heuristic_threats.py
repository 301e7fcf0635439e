"""The heuristic agent's threats (purchasing.py `_danger`, `_threat`): the enemy attack strength
next to a territory, each kind's fire asked once for a decision's threats where the decision's
fires go by kind (`_fire_total`), the sums as before."""

from __future__ import annotations

from game_fixtures import BASE, make_game
from ruleslang.runtime.agents.heuristic import HeuristicAgent

KARELIA, BELORUSSIA, UKRAINE = "Karelia S.S.R.", "Belorussia", "Ukraine S.S.R."


def test_a_kinds_fire_is_asked_once_for_the_threats_of_a_decision():
    units = {BELORUSSIA: {"Germans": {"infantry": 4, "armour": 2}}, UKRAINE: {"Germans": {"infantry": 3}},
             KARELIA: {"Russians": {"infantry": 1}}}
    game = make_game(BASE, scenario={"setup": "empty", "units": units})
    agent = HeuristicAgent(1, "Russians")
    asked = []
    fire = agent._fire

    def counted(game, unit, side):
        asked.append((unit.type, side))
        return fire(game, unit, side)
    agent._fire = counted
    agent._threats = None  # (a decision's start)
    expected = 7 * fire(game, _unit(game, "infantry"), "attacker") + 2 * fire(game, _unit(game, "armour"), "attacker")
    asked.clear()
    assert agent._threat(game, BELORUSSIA) + agent._threat(game, UKRAINE) == expected
    assert sorted(asked) == [("armour", "attacker"), ("infantry", "attacker")]
    assert agent._danger(game, "West Russia") == agent._threat(game, BELORUSSIA) + agent._threat(game, UKRAINE)


def _unit(game, type_name: str):
    return next(u for u in game.state.units if u.type == type_name and u.owner == "Germans")


def test_the_held_territories_are_ranked_as_by_their_value_without_a_what_if(monkeypatch):
    """The non-combat plan's ranking of the territories the player holds (`_most_threatened`):
    the order the enemy strength and `_value` give, with no what-if of taking a territory the
    player holds (the score rolls no dice: it would answer 0)."""
    units = {BELORUSSIA: {"Germans": {"infantry": 4, "armour": 2}}, UKRAINE: {"Germans": {"infantry": 3}},
             KARELIA: {"Russians": {"infantry": 1}}}
    game = make_game(BASE, scenario={"units": units})
    agent = HeuristicAgent(1, "Russians")
    own = [t for t in game.board.spaces("land") if game.state.control.get(t) == "Russians"]
    expected = sorted(own, key=lambda t: (-agent._danger(game, t) - 3 * agent._value(game, t), game.space_order(t)))
    asked = []
    monkeypatch.setattr(HeuristicAgent, "_what_if_taken", lambda self, game, space: asked.append(space) or 0.0)
    agent._threats, agent._deltas = None, {}  # (a new decision and plan)
    ranked = agent._most_threatened(game, own)
    assert ranked == expected and asked == []
    assert agent._danger(game, ranked[0]) > 0  # (the first is next to enemy units)
