"""The game state: built from a scenario, changed only by effects that log events."""

from __future__ import annotations

import json

import pytest

from ruleslang.board.scenario import Scenario, load_scenario
from ruleslang.board.state import BoardError, GameState
from board_fixtures import aar, aar_queries, aar_state, facts, reference, roots, tiny  # noqa: F401,F811 (pytest fixtures, used by name)


def test_state_from_the_aar_start(aar, aar_state):
    state = aar_state
    assert (state.round, state.current_player, state.phase) == (1, "Russians", None)
    assert state.control["Germany"] == "Germans" and state.control["6 Sea Zone"] is None
    assert state.control["Afghanistan"] is None
    assert state.control_at_turn_start == state.control
    assert state.treasury["British"] == {"main": 30}
    assert state.income_override == dict.fromkeys(aar.player_names())
    assert state.factories["Germany"].owner == "Germans" and state.factories["Germany"].kind == "factory"
    assert [u.id for u in state.units] == list(range(1, len(state.units) + 1))
    assert state.next_unit_id == len(state.units) + 1
    assert state.events == [] and state.version == 0


def test_unit_count_matches_the_map(aar, aar_state):
    expected = sum(n for by_player in aar.start.units.values() for by_type in by_player.values()
                   for n in by_type.values())
    assert len(aar_state.units) == expected


def test_unit_ids_are_deterministic(aar):
    first = GameState.from_scenario(Scenario.start_of(aar))
    second = GameState.from_scenario(Scenario.start_of(aar))
    assert [(u.id, u.type, u.owner, u.space) for u in first.units] == \
        [(u.id, u.type, u.owner, u.space) for u in second.units]
    # Ids follow the map's space order.
    order = {name: i for i, name in enumerate(aar.space_names())}
    assert [order[u.space] for u in first.units] == sorted(order[u.space] for u in first.units)


def test_scenario_overrides_reach_the_state(roots):
    scenario = load_scenario("aar/start", roots)
    from ruleslang.board.scenario import scenario_from_data
    from ruleslang.base.yamlio import Positions
    from ruleslang.base.source import Source, span_at
    span = span_at(Source("<t>", "x"), 1, 1)
    scenario = scenario_from_data({"economy": {"UK": {"income": 25, "treasury": 7}},
                                   "counters": {"raids": {"Germans": 1}}, "options": {"victory": "major"},
                                   "facts": {"table": [1, 2]}},
                                  Positions.everywhere(span), None, roots, base=scenario)
    state = GameState.from_scenario(scenario)
    assert state.treasury["British"] == {"main": 7} and state.income_override["British"] == 25
    assert state.counters["raids"] == {("Germans",): 1}
    assert state.options == {"victory": "major"} and state.facts == {"table": [1, 2]}


def test_effects_log_events_and_bump_the_version(aar_state):
    state = aar_state
    state.set_control("Anglo Egypt", "Germans")
    state.change_treasury("British", -5)
    made = state.add_units("Anglo Egypt", "infantry", "Germans", 2)
    state.move_units([made[0].id], "Libya", steps=1)
    state.remove_units([made[1].id])
    state.set_counter("raids", ("Germans",), 3)
    state.log("raided", amount=5)
    assert state.version == 7
    assert [e["kind"] for e in state.events] == ["control", "treasury", "add_units", "move_units",
                                                 "remove_units", "counter", "log"]
    assert state.events[0] == {"kind": "control", "space": "Anglo Egypt", "before": "British", "after": "Germans"}
    assert state.treasury["British"]["main"] == 25
    assert state.unit(made[0].id).space == "Libya" and state.unit(made[0].id).moved == 1
    with pytest.raises(BoardError):
        state.unit(made[1].id)
    assert state.counters["raids"][("Germans",)] == 3
    json.dumps(state.events)  # events are plain data, ready for a save file


def test_cargo_moves_with_its_carrier_and_leaves_when_removed(aar_state):
    state = aar_state
    ship = state.add_units("2 Sea Zone", "transport", "British")[0]
    troops = state.add_units("2 Sea Zone", "infantry", "British", 2)
    state.update_units([ship.id], cargo=[t.id for t in troops])
    state.move_units([ship.id], "7 Sea Zone")
    assert {state.unit(t.id).space for t in troops} == {"7 Sea Zone"}
    state.remove_units([troops[0].id])
    assert state.unit(ship.id).cargo == [troops[1].id]


def test_move_events_name_each_unit_once_and_own_their_lists(aar_state):
    state = aar_state
    ship = state.add_units("2 Sea Zone", "transport", "British")[0]
    troops = state.add_units("2 Sea Zone", "infantry", "British", 2)
    state.update_units([ship.id], cargo=[troops[0].id])
    lone = state.add_units("Anglo Egypt", "infantry", "British")[0]
    path = ["Anglo Egypt", "Libya"]
    flags = {"combat_moved": True}
    state.move_units([lone.id], "Libya", 1, path=path, flags=flags, trail="passed_combat")
    one = state.events[-1]
    assert one == {"kind": "move_units", "ids": [lone.id], "origins": ["Anglo Egypt"], "to": "Libya", "steps": 1,
                   "path": ["Anglo Egypt", "Libya"], "flags": {"combat_moved": True}}
    path.append("Egypt")  # the caller's lists are not the event's
    flags["bombing"] = True
    assert one["path"] == ["Anglo Egypt", "Libya"] and one["flags"] == {"combat_moved": True}
    assert lone.flags["passed_combat"] == ["Libya"]
    # a ship with its cargo, named together with the cargo: each unit once in the event
    state.move_units([ship.id, troops[0].id, troops[1].id], "7 Sea Zone", 1, path=("2 Sea Zone", "7 Sea Zone"))
    event = state.events[-1]
    assert event["ids"] == [ship.id, troops[0].id, troops[1].id] and event["origins"] == ["2 Sea Zone"]
    assert event["path"] == ["2 Sea Zone", "7 Sea Zone"]
    assert [state.unit(u.id).moved for u in (ship, *troops)] == [1, 1, 1]


def test_start_turn_notes_control_and_resets_moves(aar_state):
    state = aar_state
    unit = next(u for u in state.units if u.owner == "Germans")
    state.update_units([unit.id], moved=2, hits=1, disrupted=True)
    state.set_control("Karelia S.S.R.", "Germans")
    assert state.control_at_turn_start["Karelia S.S.R."] == "Russians"
    state.start_turn("Germans")
    assert state.current_player == "Germans" and state.control_at_turn_start["Karelia S.S.R."] == "Germans"
    assert state.unit(unit.id).moved == 0 and state.unit(unit.id).hits == 1
    assert state.unit(unit.id).flags == {"disrupted": True}


def test_start_turn_clears_only_the_turn_flags_and_keeps_the_others_in_order(aar_state):
    state = aar_state
    german, other = [u for u in state.units if u.owner == "Germans"][:2]
    russian = next(u for u in state.units if u.owner == "Russians")
    state.update_units([german.id], original=True, combat_moved=True, disrupted=1, passed_combat=["Poland"],
                       in_battle=True, airborne_lift=2)
    state.update_units([other.id], disrupted=2)  # (no turn flag: left as it is)
    state.update_units([russian.id], combat_moved=True)  # (not the player whose turn begins)
    state.start_turn("Germans")
    assert list(state.unit(german.id).flags.items()) == [("original", True), ("disrupted", 1)]
    assert state.unit(other.id).flags == {"disrupted": 2}
    assert state.unit(russian.id).flags == {"combat_moved": True}


def test_unit_or_none_follows_the_units_that_come_and_go(aar_state):
    state = aar_state
    first = state.units[0]
    assert state.unit_or_none(first.id) is first and state.unit_or_none(10**6) is None
    made = state.add_units("Germany", "infantry", "Germans", 2)
    assert [state.unit_or_none(u.id) for u in made] == made
    state.remove_units([first.id, made[0].id])
    assert state.unit_or_none(first.id) is None and state.unit_or_none(made[0].id) is None
    assert state.unit_or_none(made[1].id) is made[1]
    state.units = list(state.units)  # a new list (as a copy or the exact chain gives): its own index
    assert state.unit_or_none(made[1].id) is made[1] and state.unit_or_none(first.id) is None


def test_factories_and_income_figures(aar_state):
    state = aar_state
    state.set_factory("India", "British")
    assert state.factories["India"].owner == "British"
    state.set_factory("Germany", "Russians")  # captured: keeps its kind
    assert state.factories["Germany"].kind == "factory"
    state.set_factory("India", None)
    assert "India" not in state.factories
    state.set_income("British", 25)
    assert state.income_override["British"] == 25


def test_copy_is_independent(aar_state):
    state = aar_state
    clone = state.copy()
    clone.set_control("Germany", "Russians")
    clone.units[0].space = "Germany"
    clone.treasury["British"]["main"] = 0
    assert state.control["Germany"] == "Germans" and state.units[0].space != "Germany"
    assert state.treasury["British"]["main"] == 30 and state.version == 0 and clone.version == 1
    assert clone.map is state.map


def test_a_copy_without_the_event_log(aar_state):
    state = aar_state
    state.set_control("Germany", "Russians")
    clone = state.copy(events=False)
    assert clone.events == [] and len(state.events) == 1
    assert clone.control["Germany"] == "Russians" and clone.version == state.version
    clone.set_control("Germany", "Germans")
    assert len(state.events) == 1 and state.control["Germany"] == "Russians"


@pytest.mark.parametrize("effect, message", [
    (lambda s: s.set_control("Atlantis", "Germans"), "unknown space 'Atlantis'"),
    (lambda s: s.set_control("6 Sea Zone", "Germans"), "'6 Sea Zone' is a sea zone"),
    (lambda s: s.change_treasury("Martians", 1), "unknown player 'Martians'"),
    (lambda s: s.change_treasury("British", 1, "pacific"), "'British' has no economy 'pacific'"),
    (lambda s: s.remove_units([99999]), "no unit with id 99999"),
    (lambda s: s.add_units("Germany", "infantry", "Germans", -1), "cannot add -1 units"),
])
def test_bad_effects_raise_board_errors(aar_state, effect, message):
    with pytest.raises(BoardError, match=message):
        effect(aar_state)
    assert aar_state.version == 0 and aar_state.events == []
