"""Movement settings a revision changes, played in a game (the rule tests of
tests/rulesets/move/ check moves; this checks what the runtime does around them)."""

from __future__ import annotations

from game_fixtures import events, ids, make_game, run_phases

from conftest import FIXTURES
from ruleslang.workspace.compositions import Workspace


def test_a_blitz_past_an_aa_gun_that_does_not_stop_it_takes_the_gun_with_the_territory():
    combat = [{"from": "Russia", "type": "armour", "to": "Belorussia"}]
    game = make_game(["aar/base@2"], orders={"Russians": [{"round": 1, "combat": combat}]},
                     workspace=Workspace([FIXTURES / "move" / "stops-movement"]),
                     scenario={"setup": "empty", "control": {"West Russia": "Germans"},
                               "units": {"Russia": {"Russians": {"armour": 1}}, "West Russia": {"Germans": {"aaGun": 1}},
                                         "Belorussia": {"Germans": {"infantry": 1}}}})
    run_phases(game, "Russians", "combat_move")
    assert game.state.control["West Russia"] == "Russians"
    assert [(u.type, u.owner) for u in game.state.units if u.space == "West Russia"] == [("aaGun", "Russians")]
    assert events(game, "captured_units")[0]["by"] == "Russians"
    assert game.kit.pending_battles == ["Belorussia"]


def _move_game(scenario: dict, orders: dict, setting: str | None = None):
    """A game of aar/base@1, or of the revision that changes `setting` (tests/rulesets/move/)."""
    if setting is None:
        return make_game(["aar/base@1"], orders=orders, scenario={"setup": "empty", **scenario})
    return make_game(["aar/base@2"], orders=orders, workspace=Workspace([FIXTURES / "move" / setting]),
                     scenario={"setup": "empty", **scenario})


def _fighters(game, space: str) -> list[int]:
    return [u.id for u in game.state.units if u.space == space and u.type == "fighter"]


LATER = {"units": {"United Kingdom": {"British": {"fighter": 1}}, "8 Sea Zone": {"British": {"carrier": 1}}}}


def test_a_fighter_waiting_for_a_later_carrier_is_kept_when_the_carrier_comes():
    noncombat = [{"from": "United Kingdom", "type": "fighter", "to": "12 Sea Zone"},
                 {"from": "8 Sea Zone", "type": "carrier", "to": "12 Sea Zone"}]
    game = _move_game(LATER, {"British": [{"round": 1, "noncombat": noncombat}]})
    run_phases(game, "British", "noncombat_move")
    assert len(_fighters(game, "12 Sea Zone")) == 1
    assert not events(game, "removed", why="no place to land")


def test_a_fighter_waiting_for_a_carrier_that_does_not_come_is_lost_when_the_move_ends():
    noncombat = [{"from": "United Kingdom", "type": "fighter", "to": "12 Sea Zone"}]
    game = _move_game(LATER, {"British": [{"round": 1, "noncombat": noncombat}]})
    run_phases(game, "British", "noncombat_move")
    assert _fighters(game, "12 Sea Zone") == []
    assert events(game, "removed", why="no place to land")


def test_an_allied_fighter_rides_a_moving_carrier_without_spending_its_movement():
    game = _move_game({"units": {"8 Sea Zone": {"British": {"carrier": 1}, "Americans": {"fighter": 1}}}},
                      {"British": [{"round": 1, "noncombat": [{"from": "8 Sea Zone", "type": "carrier", "to": "12 Sea Zone"}]}]})
    fighter = _fighters(game, "8 Sea Zone")[0]
    run_phases(game, "British", "noncombat_move")
    assert _fighters(game, "12 Sea Zone") == [fighter]
    assert game.unit_or_none(fighter).moved == 0 and not game.unit_or_none(fighter).flags
    rode = [e for e in events(game, "move_units") if e["ids"] == [fighter]]
    assert [(e["steps"], e["path"]) for e in rode] == [(0, ["8 Sea Zone", "12 Sea Zone"])]


def test_units_aboard_an_allys_transport_sail_in_its_turn_and_go_ashore_in_their_owners_next_turn():
    british = [{"round": 1, "noncombat": [{"from": "United Kingdom", "type": "infantry", "to": "8 Sea Zone",
                                           "kind": "load"}]},
               {"round": 2, "combat": [{"from": "9 Sea Zone", "type": "infantry", "to": "Eastern Canada",
                                        "kind": "unload"}]}]
    americans = [{"round": 1, "noncombat": [{"from": "8 Sea Zone", "type": "transport", "to": "9 Sea Zone"}]}]
    game = _move_game({"units": {"United Kingdom": {"British": {"infantry": 1}}, "8 Sea Zone": {"Americans": {"transport": 1}}}},
                      {"British": british, "Americans": americans})
    transport = ids(game, "8 Sea Zone", "Americans", "transport")[0]
    infantry = ids(game, "United Kingdom", "British", "infantry")[0]
    # the scripted orders are read when the moves are asked: name the transport now that it has an id
    british[0]["noncombat"][0]["transport"] = british[1]["combat"][0]["transport"] = transport
    run_phases(game, "British", "noncombat_move")
    assert game.unit_or_none(transport).cargo == [infantry]
    run_phases(game, "Americans", "noncombat_move")
    assert game.unit_or_none(infantry).space == "9 Sea Zone"
    game.state.start_round(2)
    run_phases(game, "British", "combat_move")
    assert game.unit_or_none(infantry).space == "Eastern Canada" and game.unit_or_none(transport).cargo == []


def test_an_allys_units_a_transport_took_aboard_go_ashore_in_their_owners_turn():
    americans = [{"round": 1, "noncombat": [{"from": "United Kingdom", "type": "infantry", "to": "8 Sea Zone",
                                             "kind": "load"}]}]
    british = [{"round": 2, "noncombat": [{"from": "8 Sea Zone", "type": "infantry", "to": "United Kingdom",
                                           "kind": "unload"}]}]
    game = _move_game({"units": {"United Kingdom": {"British": {"infantry": 1}}, "8 Sea Zone": {"Americans": {"transport": 1}}}},
                      {"Americans": americans, "British": british}, setting="loads-allied")
    transport = ids(game, "8 Sea Zone", "Americans", "transport")[0]
    infantry = ids(game, "United Kingdom", "British", "infantry")[0]
    # the scripted orders are read when the moves are asked: name the transport now that it has an id
    americans[0]["noncombat"][0]["transport"] = british[0]["noncombat"][0]["transport"] = transport
    americans[0]["noncombat"][0]["unit"] = infantry  # an order by type names the mover's own units only
    run_phases(game, "Americans", "noncombat_move")
    assert game.unit_or_none(transport).cargo == [infantry]
    game.state.start_round(2)
    run_phases(game, "British", "noncombat_move")
    assert game.unit_or_none(infantry).space == "United Kingdom" and game.unit_or_none(transport).cargo == []
