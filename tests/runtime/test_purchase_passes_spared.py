"""Passes over the board's units that a purchase and a placement spare where their answer does not
read them: the placement's check looks for room on carriers already at sea only for an answer
that puts air units onto carriers, and the heuristic agent's transports look over the stranded
units and the room at sea only where those can change how many it buys."""

from __future__ import annotations

from game_fixtures import BASE, count, make_game, run_phases
from ruleslang.runtime.agents.heuristic import HeuristicAgent
from ruleslang.runtime.agents.shipping import Shipping
from ruleslang.runtime.kit import placement

HOUSE40 = ["g40/house-rules@1"]


def _counting(monkeypatch, owner, name: str) -> list:
    """The calls of `owner.name` from now on (each still answered by the real one)."""
    calls = []
    real = getattr(owner, name)

    def counted(*args, **kwargs):
        calls.append(args)
        return real(*args, **kwargs)
    monkeypatch.setattr(owner, name, counted)
    return calls


def test_a_placement_without_carried_air_units_is_checked_without_the_room_at_sea(monkeypatch):
    rooms = _counting(monkeypatch, placement, "_carrier_room")
    orders = {"Americans": [{"round": 1, "purchase": {"infantry": 2, "carrier": 1},
                             "place": [{"at": "Western United States", "sea_zone": "10 Sea Zone",
                                        "units": ["infantry", "infantry", "carrier"]}]}]}
    game = make_game(HOUSE40, orders=orders)
    carriers = count(game, "10 Sea Zone", "Americans", "carrier")
    run_phases(game, "Americans", "purchase", "place")
    assert rooms == []
    assert count(game, "10 Sea Zone", "Americans", "carrier") == carriers + 1


def test_air_units_placed_onto_carriers_are_checked_against_the_room_at_sea(monkeypatch):
    rooms = _counting(monkeypatch, placement, "_carrier_room")
    units = {"10 Sea Zone": {"Americans": {"carrier": 1, "fighter": 2}}}     # the carrier is full
    orders = {"Americans": [{"round": 1, "purchase": {"fighter": 1},
                             "place": [{"at": "Western United States", "sea_zone": "10 Sea Zone", "units": [],
                                        "carried": ["fighter"]}]}]}
    game = make_game(HOUSE40, scenario={"units": units}, orders=orders)
    run_phases(game, "Americans", "purchase", "place")
    assert len(rooms) >= 1
    assert count(game, "10 Sea Zone", "Americans", "fighter") == 2      # refused: no room, placed elsewhere or lost


def test_no_room_at_sea_is_looked_over_when_no_unit_waits_ashore(monkeypatch):
    # the Germans reach the fighting by land from every factory: no transport, whatever their room at sea
    rooms = _counting(monkeypatch, Shipping, "room_at_sea")
    strands = _counting(monkeypatch, Shipping, "stranded_count")
    game = make_game(BASE, agents={"Germans": "heuristic"})
    run_phases(game, "Germans", "purchase")
    assert "transport" not in game.kit.purchased["Germans"]
    assert len(strands) == 1 and rooms == []


def test_the_stranded_units_and_the_room_at_sea_decide_where_they_may(monkeypatch):
    rooms = _counting(monkeypatch, Shipping, "room_at_sea")
    game = make_game(BASE, agents={"Americans": "heuristic"})
    run_phases(game, "Americans", "purchase")
    assert "transport" in game.kit.purchased["Americans"]
    assert len(rooms) == 1


def test_no_unit_ashore_is_looked_over_when_not_one_transport_fits_half_the_money(monkeypatch):
    strands = _counting(monkeypatch, Shipping, "stranded_count")
    game = make_game(BASE, agents={"Americans": "heuristic"})
    agent = game.agents["Americans"]
    assert isinstance(agent, HeuristicAgent)
    costs = {"infantry": 3, "transport": 7}
    assert agent._transports_to_buy(game, costs, 13, {}) == {}
    assert strands == []
    assert agent._transports_to_buy(game, costs, 40, {}) == {"transport": 2}
    assert len(strands) == 1
