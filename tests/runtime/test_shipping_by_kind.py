"""The shipping plans find the player's transports and stranded units from the game's census of
units by kind (kit/unit_census.py) where it holds, and by a pass over the board where it does not:
the same units, in the board's order, either way."""

from __future__ import annotations

from game_fixtures import BASE, make_game, run_phases
from ruleslang.runtime.agents.shipping import Shipping, front_distances

SZ61 = "61 Sea Zone"
PLAYERS = ("Russians", "Germans", "British", "Japanese", "Americans")


def _scan(game, player: str, commanded=frozenset()) -> tuple[list[int], list[int]]:
    """(transports, stranded units) of `player` by a pass over the board's units, in its order."""
    facts, front, kind_of = game.unit_rules(), front_distances(game, player), game.board.graph.kind_of
    mine = [u for u in game.state.units if u.owner == player or u.id in commanded]
    return ([u.id for u in mine if facts.transport_capacity(u) > 0],
            [u.id for u in mine if u.space not in front and kind_of.get(u.space) == "land"
             and facts.transport_cost(u) > 0])


def _found(game, player: str, commanded=frozenset()) -> tuple[list[int], list[int]]:
    shipping = Shipping(game, player, commanded=commanded)
    return [u.id for u in shipping.transports()], [i for ids in shipping.stranded(set()).values() for i in ids]


def test_every_players_transports_and_stranded_units_at_the_start():
    game = make_game(BASE)
    found = {p: _found(game, p) for p in PLAYERS}
    assert found == {p: _scan(game, p) for p in PLAYERS}
    assert found["British"][0] and found["Americans"][1]  # (some of each: the answers are not all empty)


def test_an_allys_unit_the_player_commands_is_listed_in_the_boards_order():
    game = make_game(BASE)
    japanese = [u.id for u in game.state.units if u.owner == "Japanese" and u.type == "transport"]
    commanded = frozenset(japanese[:1])
    assert _found(game, "Germans", commanded) == _scan(game, "Germans", commanded)
    assert japanese[0] in _found(game, "Germans", commanded)[0]


def test_the_answers_follow_the_board_as_units_move():
    game = make_game(BASE, scenario={"setup": "empty", "units": {
        "Buryatia S.S.R.": {"Russians": {"infantry": 1}}, "Japan": {"Japanese": {"infantry": 2}},
        SZ61: {"Japanese": {"transport": 1}}}}, agents={"Japanese": "heuristic"})
    assert _found(game, "Japanese")[1]  # the infantry wait on Japan
    run_phases(game, "Japanese", "noncombat_move")  # ferried to Manchuria
    assert _found(game, "Japanese") == _scan(game, "Japanese")
    assert _found(game, "Japanese")[1] == []


def test_a_board_not_in_the_order_of_its_ids_is_passed_over_in_its_own_order():
    game = make_game(BASE)
    game.state.units.reverse()  # (the census keeps no such board)
    for player in PLAYERS:
        assert _found(game, player) == _scan(game, player)


def test_a_unit_given_to_a_new_owner_stands_in_the_boards_order():
    game = make_game(BASE)
    assert _found(game, "British") == _scan(game, "British")  # (the census is made)
    # the Americans' first transport, given to the British after the census was made: it joins
    # the British transports' kind last, though its id is among theirs
    given = next(u.id for u in game.state.units if u.owner == "Americans" and u.type == "transport")
    british = [u.id for u in game.state.units if u.owner == "British" and u.type == "transport"]
    game.state.change_owner([given], "British")
    assert _found(game, "British") == _scan(game, "British")
    assert british[0] < given < british[-1]  # (so that the board's order is not the kind's)
    assert given in _found(game, "British")[0]
