"""The part "stock" of the heuristic agent's SPARE: the purchase's forecast plans the placement as
the placement would (the most threatened territory first), and the turn's placement takes that plan
as it stands where it places exactly the units bought and the rules accept each of its lists on the
board as it stands, one question a territory (purchasing.py `_placeable`, `_stocked`)."""

from __future__ import annotations

from game_fixtures import make_game, placement_checks
from ruleslang.runtime.agents import heuristic
from ruleslang.runtime.agents.heuristic import SPARE, HeuristicAgent
from ruleslang.runtime.decisions import Decision

HOUSE = ["aar/house-rules@1"]
PLAN = [("Germany", None, ["armour", "infantry"]), ("W. Europe", None, ["infantry"])]


def test_seeded_placements_ask_the_rules_a_fraction_of_the_questions(monkeypatch):
    """Seeds 4 and 5, two rounds: with the part, the placements ask the rules under a third of
    the questions the agent without it asks, and place every unit bought."""
    asked = placement_checks(monkeypatch)
    counts = {}
    for spare in (SPARE, tuple(part for part in SPARE if part != "stock")):
        asked.clear()
        monkeypatch.setattr(heuristic, "SPARE", spare)  # (the agents' default parts)
        for seed in (4, 5):
            game = make_game(HOUSE, seed=seed, default_agent="heuristic")
            game.run(2)
            assert not [e for e in game.state.events if e["kind"] == "lost"]
        counts[spare] = asked.count("place")
    with_part, without = counts.values()
    assert "stock" in SPARE
    assert 0 < with_part < without / 3, counts


def _placement(units, candidates=("Germany", "W. Europe", "Norway"), refused=(), refusals=()) -> Decision:
    """A placement decision of the Germans whose rules refuse the lists at the territories
    `refused` names (each question noted in its `asked`)."""
    asked = []

    def allowed(territory, types):
        asked.append((territory, tuple(types)))
        return ["no"] if territory in refused else []
    d = Decision("place", "Germans", "the Germans place",
                 context={"units": list(units), "candidates": list(candidates), "allowed": allowed,
                          "at_sea": lambda t: t == "transport"})
    d.refusals = list(refusals)
    d.asked = asked
    return d


def _stocked_agent(game, spare=SPARE) -> HeuristicAgent:
    agent = HeuristicAgent(1, "Germans", spare=spare)
    agent._stock = (game.state, game.state.round, PLAN, {"armour": False, "infantry": False})
    return agent


def test_the_stock_plan_is_taken_where_it_places_the_units_and_the_rules_accept_it():
    game = make_game(HOUSE)
    d = _placement(["infantry", "armour", "infantry"])
    assert _stocked_agent(game)._place(d, game) == PLAN
    assert d.asked == [("Germany", ("armour", "infantry")), ("W. Europe", ("infantry",))]


def test_the_placement_is_planned_again_otherwise():
    game = make_game(HOUSE)
    # other units than the plan's; a list the rules refuse now; a territory the placement does not offer
    for d in (_placement(["infantry", "armour"]), _placement(["infantry", "armour", "infantry"], refused=("W. Europe",)),
              _placement(["infantry", "armour", "infantry"], candidates=("Germany",))):
        assert _stocked_agent(game)._stocked(d, game) is None
    # a type the placement puts at sea where the plan did not; an answer refused; another round
    d = _placement(["infantry", "armour", "infantry"])
    d.context["at_sea"] = lambda t: t == "armour"
    assert _stocked_agent(game)._stocked(d, game) is None
    assert _stocked_agent(game)._stocked(_placement(["infantry", "armour", "infantry"], refusals=["no"]), game) is None
    agent = _stocked_agent(game)
    game.state.round += 1
    assert agent._stocked(_placement(["infantry", "armour", "infantry"]), game) is None
    game.state.round -= 1
    # an agent without the part; and a plan is taken once
    without = _stocked_agent(game, spare=tuple(part for part in SPARE if part != "stock"))
    assert without._stocked(_placement(["infantry", "armour", "infantry"]), game) is None
    agent = _stocked_agent(game)
    assert agent._stocked(_placement(["infantry", "armour", "infantry"]), game) == PLAN
    assert agent._stocked(_placement(["infantry", "armour", "infantry"]), game) is None
