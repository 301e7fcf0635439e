"""The part "forecast" of the heuristic agent's SPARE: a list of units the purchase's forecast of a turn
found refused at a territory is taken as refused by the turn's placement, without asking the rules
again (purchasing.py `_forecasting`, `_place_allowed`)."""

from __future__ import annotations

from game_fixtures import make_game, placement_checks
from ruleslang.runtime.agents import heuristic
from ruleslang.runtime.agents.heuristic import SPARE, HeuristicAgent
from ruleslang.runtime.decisions import Decision

HOUSE = ["aar/house-rules@1"]


def test_seeded_games_place_as_before_with_fewer_questions(monkeypatch):
    """Seeds 4 and 5, two rounds: the placements ask the rules about half as many questions, and
    the games are those of the agent without the part, event for event (both without the part
    "stock", whose placements take the forecast's plan and ask few questions either way)."""
    asked = placement_checks(monkeypatch)
    counts = []
    for seed in (4, 5):
        played = []
        base = tuple(part for part in SPARE if part != "stock")
        for spare in (base, tuple(part for part in base if part != "forecast")):
            asked.clear()
            monkeypatch.setattr(heuristic, "SPARE", spare)  # (the agents' default parts)
            game = make_game(HOUSE, seed=seed, default_agent="heuristic")
            game.run(2)
            played.append(game.state.events)
            counts.append(asked.count("place"))
        assert played[0] == played[1]
    assert "forecast" in SPARE
    assert counts[0] + counts[2] < 0.7 * (counts[1] + counts[3]), counts


def _placement(game, refusals=()) -> Decision:
    """A placement decision whose rules refuse nothing (each question noted in its `asked`)."""
    asked = []

    def allowed(territory, types):
        asked.append((territory, tuple(types)))
        return []
    d = Decision("place", "Germans", "the Germans place", context={"allowed": allowed})
    d.refusals = list(refusals)
    d.asked = asked
    return d


def test_a_list_the_forecast_refused_is_refused_without_asking_the_rules():
    game = make_game(HOUSE)
    agent = HeuristicAgent(1, "Germans")
    refused = []
    forecast = agent._forecasting(game, lambda territory, types: refused)
    refused.append("no room")
    assert forecast("Germany", ["armour"]) == ["no room"]
    refused.clear()
    assert forecast("Germany", ["infantry"]) == []
    d = _placement(game)
    allowed = agent._place_allowed(d, game)
    assert allowed("Germany", ["armour"])        # refused by the forecast: the rules not asked
    assert not allowed("Germany", ["infantry"])  # accepted by the forecast: the rules asked again
    assert not allowed("Germany", ["armour", "infantry"])  # a list the forecast did not ask
    assert d.asked == [("Germany", ("infantry",)), ("Germany", ("armour", "infantry"))]


def test_the_rules_are_asked_everything_once_they_refused_an_answer_or_in_another_turn():
    game = make_game(HOUSE)
    agent = HeuristicAgent(1, "Germans")
    agent._forecasting(game, lambda territory, types: ["no room"])("Germany", ["armour"])
    # an answer the rules refused: every list is asked of them
    d = _placement(game, refusals=["armour may not be placed in Germany"])
    assert agent._place_allowed(d, game) is d.context["allowed"]
    # another round's placement
    game.state.round += 1
    d = _placement(game)
    assert agent._place_allowed(d, game) is d.context["allowed"]
    # an agent without the part
    game.state.round -= 1
    without = HeuristicAgent(1, "Germans", spare=tuple(part for part in SPARE if part != "forecast"))
    without._forecast = agent._forecast
    assert without._place_allowed(d, game) is d.context["allowed"]
    assert agent._place_allowed(d, game) is not d.context["allowed"]
