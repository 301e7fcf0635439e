"""Global 1940's friendly neutrals taken over by a move (TripleA's Friendly_Neutral: land units with
an attack value entering it in the non-combat move take it and its units; never attacked, passed
or flown over): the move setting `taken_over` (kit/takeover.py) under g40/base@1's reading
(rulesets/g40/README.md, "Readings")."""

from __future__ import annotations

from game_fixtures import events, ids, make_game, run_phases


def _eire(combat=(), noncombat=(), units=None):
    units = units or {"Scotland": {"British": {"infantry": 2, "aaGun": 1}},
                      "Eire": {"Neutral_Allies": {"infantry": 3}}}
    orders = {"British": [{"round": 1, "combat": list(combat), "noncombat": list(noncombat)}]}
    game = make_game(["g40/base@1"], scenario={"units": units}, orders=orders)
    return game


def _refusals(game) -> list[str]:
    return [r for e in events(game, "refused") for r in e["reasons"]]


def test_a_land_unit_entering_a_friendly_neutral_in_the_noncombat_move_takes_it_and_its_units():
    game = _eire(noncombat=[{"from": "Scotland", "type": "infantry", "to": "Eire"}])
    neutrals = ids(game, "Eire", "Neutral_Allies")
    run_phases(game, "British", "noncombat_move")
    assert game.state.control["Eire"] == "British"
    assert events(game, "owner") == [{"kind": "owner", "ids": neutrals, "owner": "British"}]
    assert len(ids(game, "Eire", "British", "infantry")) == 4 and ids(game, "Eire", "Neutral_Allies") == []


def test_no_attack_on_a_friendly_neutral_nor_an_entry_by_a_unit_without_attack():
    game = _eire(combat=[{"from": "Scotland", "type": "infantry", "to": "Eire"}],
                 noncombat=[{"from": "Scotland", "type": "aaGun", "to": "Eire"}])
    run_phases(game, "British", "combat_move")
    run_phases(game, "British", "noncombat_move")
    assert game.state.control["Eire"] == "Neutral_Allies" and ids(game, "Eire", "British") == []
    message = "a neutral friendly to British: only land units with an attack value enter it, ending a non-combat move there"
    assert len([r for r in _refusals(game) if message in r]) == 2


def test_a_friendly_neutral_is_not_passed_through():
    # Venezuela's strict neutrals are friendly to the Allies once the Axis declared war on them
    units = {"British Guiana": {"British": {"armour": 2}}, "Venezuela": {"Neutral_True": {"infantry": 1}}}
    orders = {"British": [{"round": 1, "noncombat": [{"from": "British Guiana", "type": "armour", "to": "Colombia"},
                                                     {"from": "British Guiana", "type": "armour", "to": "Venezuela"}]}]}
    counters = {"war_declared": {"Germans": {"Neutral_True": True}}}
    game = make_game(["g40/base@1"], scenario={"units": units, "counters": counters}, orders=orders)
    run_phases(game, "British", "noncombat_move")
    # no path to Colombia through Venezuela is offered (the scripted player falls back to one step)
    assert "Colombia is not next to British Guiana" in _refusals(game)
    assert game.state.control["Colombia"] == "Neutral_True"
    assert game.state.control["Venezuela"] == "British"   # entered as the end of the move, it is taken
    assert len(ids(game, "Venezuela", "British")) == 2
