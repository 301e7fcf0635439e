"""The part "ledger" of the heuristic agent's SPARE: the rules' answers to a purchase's forecast of
its placement (the purchase's `place_refusals`) kept from turn to turn by (territory, list), taken
again while the territory stands as it did when the rules answered (who holds it, who held it at
the turn's start, its factory and who held that at the turn's start) (place_ledger.py)."""

from __future__ import annotations

from game_fixtures import make_game, placement_checks
from ruleslang.runtime.agents import heuristic
from ruleslang.runtime.agents.heuristic import SPARE
from ruleslang.runtime.agents.place_ledger import PlaceLedger
from ruleslang.runtime.kit import purchase

HOUSE = ["aar/house-rules@1"]


def test_seeded_forecasts_ask_the_rules_fewer_questions(monkeypatch):
    """Seeds 4 and 5, three rounds: with the part, the purchases' forecasts ask the rules under
    three quarters of the questions the agent without it asks (the first round's are all new),
    and the games are the same."""
    asked = placement_checks(monkeypatch, purchase)
    counts, events = {}, {}
    for spare in (SPARE, tuple(part for part in SPARE if part != "ledger")):
        asked.clear()
        monkeypatch.setattr(heuristic, "SPARE", spare)  # (the agents' default parts)
        events[spare] = []
        for seed in (4, 5):
            game = make_game(HOUSE, seed=seed, default_agent="heuristic")
            game.run(3)
            events[spare].append(game.state.events)
        counts[spare] = asked.count("place")
    with_part, without = counts.values()
    assert "ledger" in SPARE
    assert 0 < with_part < 0.75 * without, counts
    first, second = events.values()
    assert first == second


def _ledger_of(game):
    """A ledger over a rules' stand-in that refuses everything but at Germany, noting each question."""
    asked = []

    def refusals(territory, types):
        asked.append((territory, tuple(types)))
        return [] if territory == "Germany" else ["no factory"]
    return PlaceLedger().asking(game, refusals), asked


def test_an_answer_is_taken_again_while_the_territory_stands_as_it_did():
    game = make_game(HOUSE)
    ask, asked = _ledger_of(game)
    assert ask("Germany", ["infantry"]) == [] and ask("Norway", ["infantry"]) == ["no factory"]
    assert ask("Germany", ["infantry"]) == [] and ask("Norway", ["infantry"]) == ["no factory"]
    assert asked == [("Germany", ("infantry",)), ("Norway", ("infantry",))]
    ask("Germany", ["infantry", "armour"])  # another list
    assert asked[-1] == ("Germany", ("infantry", "armour"))


def test_the_rules_are_asked_again_where_the_territory_changed():
    game = make_game(HOUSE)
    ledger, asked = PlaceLedger(), []

    def refusals(territory, types):
        asked.append((territory, tuple(types)))
        return [] if territory == "Germany" else ["no factory"]
    # (a forecast asks through the ledger on the board as it stands: each forecast asks anew)
    ask = ledger.asking(game, refusals)
    for territory in ("Germany", "Norway", "Western Europe"):
        ask(territory, ["infantry"])
    game.state.set_control("Norway", "British")  # held by another
    game.state.set_factory("Western Europe", "Germans")  # a factory built
    asked.clear()
    ask = ledger.asking(game, refusals)
    for territory in ("Germany", "Norway", "Western Europe"):
        ask(territory, ["infantry"])
    assert asked == [("Norway", ("infantry",)), ("Western Europe", ("infantry",))]
    game.state.set_factory("Germany", "Germans", damage=2)  # a factory damaged
    game.state.control_at_turn_start["Western Europe"] = "British"  # held by another at the turn's start
    asked.clear()
    ask = ledger.asking(game, refusals)
    for territory in ("Germany", "Norway", "Western Europe"):
        ask(territory, ["infantry"])
    assert asked == [("Germany", ("infantry",)), ("Western Europe", ("infantry",))]


def test_one_forecast_finds_a_territory_stand_once():
    """Within one forecast (the board as it stands while it packs) a territory's stand is read at
    its first question: a change made meanwhile is seen by the next forecast."""
    game = make_game(HOUSE)
    ledger, asked = PlaceLedger(), []

    def refusals(territory, types):
        asked.append((territory, tuple(types)))
        return ["no factory"]
    ask = ledger.asking(game, refusals)
    ask("Norway", ["infantry"])
    game.state.set_control("Norway", "British")
    assert ask("Norway", ["infantry"]) == ["no factory"] and len(asked) == 1
    ledger.asking(game, refusals)("Norway", ["infantry"])
    assert len(asked) == 2


def test_another_game_state_starts_a_new_ledger():
    game = make_game(HOUSE)
    ledger = PlaceLedger()
    asked = []

    def refusals(territory, types):
        asked.append(territory)
        return []
    ledger.asking(game, refusals)("Germany", ["infantry"])
    game.state = game.state.copy()
    ledger.asking(game, refusals)("Germany", ["infantry"])
    assert asked == ["Germany", "Germany"]
    assert (ledger.asked, ledger.taken) == (2, 0)
