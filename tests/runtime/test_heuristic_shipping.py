"""The heuristic agent at sea: it ferries the land units that cannot reach the fighting by land
to the friendly coast nearest it, lands them on an enemy coast when the odds are good, and buys
transports while such units wait ashore."""

from __future__ import annotations

from game_fixtures import BASE, events, ids, make_game, run_phases
from ruleslang.runtime.agents.heuristic import HeuristicAgent
from ruleslang.runtime.agents.shipping import Shipping
from ruleslang.runtime.kit.movement import MovementEngine

SZ60, SZ61 = "60 Sea Zone", "61 Sea Zone"


def japanese(units: dict, scenario: dict | None = None):
    data = {"setup": "empty", "units": {"Buryatia S.S.R.": {"Russians": {"infantry": 1}}, **units}, **(scenario or {})}
    return make_game(BASE, scenario=data, agents={"Japanese": "heuristic"})


def test_stranded_units_are_ferried_to_the_friendly_coast_nearest_the_fighting():
    game = japanese({"Japan": {"Japanese": {"infantry": 2}}, SZ61: {"Japanese": {"transport": 1}}})
    foot = ids(game, "Japan", "Japanese", "infantry")
    run_phases(game, "Japanese", "noncombat_move")
    kinds = [e["answer"]["kind"] for e in events(game, "decision", decision="move") if "path" in e["answer"]]
    assert kinds == ["load", "load", "unload", "unload"]
    assert sorted(ids(game, "Manchuria", "Japanese", "infantry")) == sorted(foot)   # beside Buryatia
    assert events(game, "refused") == []


def test_an_empty_transport_goes_where_stranded_units_wait():
    game = japanese({"Japan": {"Japanese": {"infantry": 2}}, "59 Sea Zone": {"Japanese": {"transport": 1}}})
    run_phases(game, "Japanese", "noncombat_move")
    [transport] = [u for u in game.state.units if u.type == "transport"]
    assert transport.space in (SZ60, SZ61)   # a zone bordering Japan


def test_an_amphibious_assault_when_the_odds_are_good():
    # Buryatia, beside the transport's zone, is held by no unit; Soviet Far East by three
    game = japanese({"Japan": {"Japanese": {"infantry": 2}}, SZ60: {"Japanese": {"transport": 1}},
                     "Buryatia S.S.R.": {}, "Soviet Far East": {"Russians": {"infantry": 3}}})
    run_phases(game, "Japanese", "combat_move")
    landed = [e["answer"] for e in events(game, "decision", decision="move") if e["answer"].get("kind") == "unload"]
    assert [m["path"] for m in landed] == [[SZ60, "Buryatia S.S.R."]] * 2
    assert game.kit.amphibious.get("Buryatia S.S.R.") is True
    run_phases(game, "Japanese", "battle")
    assert game.state.control["Buryatia S.S.R."] == "Japanese"


def test_no_assault_against_the_odds():
    game = japanese({"Japan": {"Japanese": {"infantry": 1}}, SZ60: {"Japanese": {"transport": 1}},
                     "Buryatia S.S.R.": {"Russians": {"infantry": 4}}, "Soviet Far East": {"Russians": {"infantry": 4}}})
    run_phases(game, "Japanese", "combat_move")
    landed = {e["answer"]["path"][1] for e in events(game, "decision", decision="move")
              if e["answer"].get("kind") == "unload"}
    assert not landed & {"Buryatia S.S.R.", "Soviet Far East"}


def test_transports_are_bought_while_units_wait_where_no_enemy_can_be_reached_by_land():
    game = make_game(BASE, agents={"Americans": "heuristic"})
    run_phases(game, "Americans", "purchase")
    assert "transport" in game.kit.purchased["Americans"]
    # the Germans can reach the fighting by land from their factories: no transport
    game = make_game(BASE, agents={"Germans": "heuristic"})
    run_phases(game, "Germans", "purchase")
    assert "transport" not in game.kit.purchased["Germans"]


def test_stranded_units_are_found_without_asking_the_cargo_cost_of_units_at_the_front(monkeypatch):
    # Japan's infantry wait on an island; the armour in Manchuria reaches Buryatia by land
    game = japanese({"Japan": {"Japanese": {"infantry": 2}}, "Manchuria": {"Japanese": {"armour": 1}},
                     SZ61: {"Japanese": {"transport": 1}}})
    asked = []
    facts = game.unit_rules()
    real = facts.transport_cost  # (the setting's own function, which the kit's facts answer through)

    def transport_cost(unit):
        asked.append(unit.type)
        return real(unit)
    monkeypatch.setattr(facts, "transport_cost", transport_cost)
    shipping = Shipping(game, "Japanese")
    assert shipping.stranded(set()) == {"Japan": ids(game, "Japan", "Japanese", "infantry")}
    assert shipping.stranded_count() == 2
    # a unit where the fighting can be reached by land is no candidate, whatever its cargo cost
    # (before: the armour's asked too)
    assert asked == ["infantry"]


def _asking(monkeypatch, refused=frozenset()) -> list:
    """The moves the heuristic agent's `_may` is asked of from now on; those moving a unit of
    `refused` are refused."""
    asked = []

    def may(self, move):
        asked.append(move)
        return not refused.intersection(move.units)
    monkeypatch.setattr(HeuristicAgent, "_may", may)
    return asked


def test_the_moves_of_the_players_own_units_are_planned_without_asking_may(monkeypatch):
    game = japanese({"Japan": {"Japanese": {"infantry": 2}}, SZ61: {"Japanese": {"transport": 1}}})
    asked = _asking(monkeypatch)
    run_phases(game, "Japanese", "noncombat_move")
    kinds = [e["answer"]["kind"] for e in events(game, "decision", decision="move") if "path" in e["answer"]]
    assert kinds == ["load", "load", "unload", "unload"]  # as when every move is asked
    # (before: asked of the transport's every path and of each load)
    assert asked == []


def test_an_allys_unit_the_player_commands_moves_only_where_may_lets_it(monkeypatch):
    game = japanese({"Japan": {"Japanese": {"infantry": 2}}, "59 Sea Zone": {"Japanese": {"transport": 1}}})
    [transport] = [u.id for u in game.state.units if u.type == "transport"]
    # the transport taken for one the player commands: `may` is asked of its moves, and refuses them
    monkeypatch.setattr(MovementEngine, "commanded_units", lambda self: [transport])
    asked = _asking(monkeypatch, refused=frozenset({transport}))
    run_phases(game, "Japanese", "noncombat_move")
    assert asked and all(move.units == (transport,) for move in asked)
    assert game.unit_or_none(transport).space == "59 Sea Zone"


def test_cargo_is_not_ferried_to_a_coast_an_enemy_unit_stands_in():
    # Manchuria, the coast nearest the fighting, has a Russian unit in it: the cargo lands elsewhere
    game = japanese({"Japan": {"Japanese": {"infantry": 2}}, SZ61: {"Japanese": {"transport": 1}},
                     "Manchuria": {"Russians": {"infantry": 1}}})
    shipping = Shipping(game, "Japanese")
    assert shipping._shore("Manchuria") is None and shipping._shore("Japan") is None  # (an island)
    assert shipping._shore("Kwantung") is not None
    run_phases(game, "Japanese", "noncombat_move")
    unloads = [e["answer"]["path"] for e in events(game, "decision", decision="move")
               if e["answer"].get("kind") == "unload"]
    assert unloads == [["59 Sea Zone", "Kwantung"]] * 2
    assert events(game, "refused") == []
