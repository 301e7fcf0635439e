"""What making an exact chain asks (issue 15, session 18): a chain is made for every battle an agent
asks about, so its making asks no setting it never reads (the unit facts' transport and carrier
settings), asks each unit setting once per unit type and owner (`_unit_reads`), and walks the
board's units once where one walk does; every answer as before."""

from __future__ import annotations

from conftest import record_calls
from odds_fixtures import LAND, make_game
from ruleslang.runtime.kit import turn_state
from ruleslang.runtime.odds.chain import BattleSpec, Chain

HOUSE = ("aar/house-rules@1",)
ROOM = ("transport_capacity", "transport_cost", "carrier_capacity", "carrier_cost")
# the defence taken from the board (the Russians' units in Karelia S.S.R.), as the agents ask
SPEC = BattleSpec(LAND, "Germans", {"infantry": 3, "artillery": 1, "armour": 1})


def test_a_chains_unit_facts_make_the_room_settings_only_when_asked(monkeypatch):
    game = make_game(HOUSE)
    asked = record_calls(monkeypatch, turn_state, "setting_procedure", lambda compiled, procedure, setting: setting)
    chain = Chain(game, SPEC, exact=False, board=game.state)
    assert "hit_points" in asked and "domain" in asked  # the facts were made (the set-up asks domains)
    assert not set(ROOM) & set(asked)  # (main made all eight settings at once)
    facts = chain.host.unit_rules()
    ship = next(u for u in game.state.units if game.domain(u) == "sea")
    for name in ROOM:  # made when asked, with the game's own facts' answers
        assert getattr(facts, name)(ship) == getattr(game.unit_rules(), name)(ship)
        assert name in asked
    asked.clear()
    assert [facts.transport_capacity(ship), facts.carrier_cost(ship)] == [
        game.unit_rules().transport_capacity(ship), game.unit_rules().carrier_cost(ship)]
    assert asked == []  # each made once


def test_unit_reads_ask_one_unit_of_each_type_and_owner(monkeypatch):
    game = make_game(HOUSE)
    chain = Chain(game, SPEC, exact=False, board=game.state)
    units = chain.host.state.units[len(chain._base):]  # the battle's units
    by_unit = {}
    for u in units:
        by_unit.setdefault((u.type, u.owner), set()).add((chain.host.unit_cost(u), chain.host.hit_points(u)))
    # (the facts answer through the setting's own function, their own attribute)
    calls = record_calls(monkeypatch, chain.host.unit_rules(), "hit_points", lambda unit: unit.id)
    reads = chain._unit_reads()
    assert reads == {key: tuple(sorted(values)) for key, values in by_unit.items()}
    assert len(units) > len(reads)  # (several units of one type and owner)
    assert len(calls) == len(reads)  # one unit of each asked (main asked every unit)


def test_a_chain_on_the_games_board_shares_its_units_outside_the_battle_in_their_order():
    game = make_game(HOUSE)
    shared = Chain(game, SPEC, exact=False, board=game.state)
    copied = Chain(game, SPEC, exact=False)
    outside = [u for u in game.state.units if u.space != LAND]
    assert shared._base == outside and all(a is b for a, b in zip(shared._base, outside))
    assert [u.to_json() for u in copied._base] == [u.to_json() for u in outside]
    ends = [sorted((str(end), p.hex()) for end, p in c.solve().ends.items()) for c in (shared, copied)]
    assert ends[0] == ends[1]
    # the board's own units in the battle's space are not the chain's
    assert not {id(u) for u in game.state.units if u.space == LAND} & {id(u) for u in shared.host.state.units}
