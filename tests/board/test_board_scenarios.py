"""Scenarios: named starts, aliases, overrides, merging over a base, and located errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from ruleslang.board.scenario import Scenario, list_scenarios, load_scenario, scenario_from_data
from ruleslang.board.state import GameState
from ruleslang.base.diagnostics import DiagnosticError
from ruleslang.base.source import Source, span_at
from ruleslang.base.yamlio import Positions, load_yaml
from board_fixtures import aar, aar_queries, aar_state, facts, reference, roots, tiny  # noqa: F401,F811 (pytest fixtures, used by name)

FIXTURES = Path(__file__).parent / "fixtures"


def from_text(text: str, roots, **options) -> Scenario:
    data, positions = load_yaml(Source("s.yaml", text))
    return scenario_from_data(data, positions, positions.source, roots, **options)


def errors(text: str, roots, **options):
    with pytest.raises(DiagnosticError) as caught:
        from_text(text, roots, **options)
    return caught.value.diagnostics


def test_named_start_scenarios_load(roots):
    assert {"aar/start", "aa50/start-1942", "g40/start"} <= {name for name, _ in list_scenarios(roots)}
    aar = load_scenario("aar/start", roots)
    assert aar.map.name == "aar" and (aar.turn.round, aar.turn.player, aar.turn.phase) == (1, "Russians", None)
    assert load_scenario("aa50/start-1942", roots).map.name == "aa50-1942"
    assert load_scenario("g40/start", roots).turn.player == "Germans"


def test_aliases_are_accepted(roots):
    scenario = from_text("map: aar\ncontrol: {Kwangtung: UK, W. Europe: Russia}\n"
                         "units:\n  SZ 6:\n    Germany: {submarine: 2}\n", roots)
    assert dict(scenario.control) == {"Kwantung": "British", "Western Europe": "Russians"}
    assert dict(scenario.units["6 Sea Zone"]) == {"Germans": {"submarine": 2}}


def test_an_unknown_space_is_located_with_a_suggestion(roots):
    (diagnostic,) = errors("map: aar\ncontrol:\n  Atlantis: Germans\n", roots)
    assert diagnostic.code == "D631"
    assert (diagnostic.span.line, diagnostic.span.column) == (3, 3)
    assert diagnostic.message == "control.Atlantis: unknown space 'Atlantis' on the map 'aar'"
    assert diagnostic.hint is None  # no space is plausibly close (not 'Balkans')
    (typo,) = errors("map: aar\ncontrol:\n  Kwangtun: Germans\n", roots)
    assert typo.hint == "did you mean 'Kwantung'?"


def test_every_problem_is_reported_at_once(roots):
    found = errors("map: aar\nturn: {player: Germns}\ncontrol:\n  Atlantis: Germans\n  UK: Nazis\n"
                   "  SZ 7: Germans\nunits:\n  UK: {British: {infantry: -2}}\n"
                   "economy:\n  British: {treasury: {pacific: 3}}\nbogus: 1\n", roots)
    codes = sorted((d.span.line, d.code) for d in found)
    assert codes == [(2, "D632"), (4, "D631"), (5, "D632"), (6, "D638"), (8, "D611"), (10, "D633"), (11, "D611")]


def test_two_spellings_of_one_space(roots):
    (diagnostic,) = errors("map: aar\ncontrol:\n  UK: Germans\n  United Kingdom: Japanese\n", roots)
    assert diagnostic.code == "D636" and diagnostic.span.line == 4
    assert diagnostic.related[0].span.line == 3


def test_units_replace_the_start_units_of_a_space(roots):
    scenario = from_text("map: aar\nunits:\n  UK:\n    Americans: {fighter: 1}\n  Germany: null\n", roots)
    state = GameState.from_scenario(scenario)
    in_uk = [(u.owner, u.type) for u in state.units if u.space == "United Kingdom"]
    assert in_uk == [("Americans", "fighter")]
    assert not [u for u in state.units if u.space == "Germany"]
    assert len([u for u in state.units if u.space == "Western Europe"]) == 6  # untouched


def test_setup_empty_starts_with_no_units_or_factories(roots):
    state = GameState.from_scenario(from_text("map: aar\nsetup: empty\nunits: {UK: {UK: {bomber: 2}}}\n", roots))
    assert [(u.space, u.type) for u in state.units] == [("United Kingdom", "bomber")] * 2
    assert state.factories == {} and state.control["Germany"] == "Germans"


def test_factories_as_list_mapping_and_removal(roots):
    scenario = from_text("map: aar\ncontrol: {India: Japanese}\n"
                         "factories: [India, Kwangtung]\n", roots)
    assert scenario.factories["India"].owner == "Japanese"
    assert scenario.factories["Kwantung"].owner == "Japanese" and scenario.factories["India"].kind == "factory"
    scenario = from_text("map: aar\nfactories: {Germany: null, Norway: {owner: Germany, damage: 2}}\n", roots)
    state = GameState.from_scenario(scenario)
    assert "Germany" not in state.factories
    assert (state.factories["Norway"].owner, state.factories["Norway"].damage) == ("Germans", 2)
    (no_owner,) = errors("map: aar\nfactories: [Sahara]\n", roots)
    assert no_owner.code == "D634"


def test_economy_options_facts_and_counters(roots):
    scenario = from_text("map: aar\neconomy:\n  UK: {income: 30, treasury: 12}\noptions:\n  victory: major\n"
                         "facts: {raiders: [1, 2]}\ncounters: {raids: {Germans: 2}, turns: 4}\n", roots)
    economy = scenario.economy["British"]
    assert economy.income_total == 30 and dict(economy.treasury) == {"main": 12}
    option = scenario.options["victory"]
    assert option.value == "major" and (option.span.line, option.span.column) == (5, 12)
    assert scenario.facts == {"raiders": [1, 2]}
    assert dict(scenario.counters["raids"]) == {("Germans",): 2} and dict(scenario.counters["turns"]) == {(): 4}
    assert scenario.span("facts", "raiders").line == 6


def test_per_economy_figures_on_a_map_with_two_economies(tiny, roots):
    text = f"map: {FIXTURES / 'tiny_map.yaml'}\neconomy:\n  Blue: {{income: {{west: 7}}, treasury: {{east: 1}}}}\n"
    scenario = from_text(text, roots, path=FIXTURES / "s.yaml")  # a scenario file beside the map
    figures = scenario.economy["Blues"]
    assert dict(figures.income) == {"west": 7} and figures.income_total is None
    assert dict(figures.treasury) == {"east": 1}


def test_default_map_and_missing_map(roots):
    assert from_text("turn: {player: Germans}\n", roots, default_map="aar").map.name == "aar"
    (diagnostic,) = errors("turn: {player: Germans}\n", roots)
    assert diagnostic.code == "D630" and "map" in diagnostic.hint
    (unknown,) = errors("map: aarr\n", roots)
    assert unknown.code == "D629" and unknown.span.line == 1 and unknown.hint == "did you mean 'aar'?"


def test_turn_player_must_take_turns(roots):
    found = errors(f"map: {FIXTURES / 'tiny_map.yaml'}\nturn: {{player: Greys}}\n", roots, path=FIXTURES / "s.yaml")
    assert [d.code for d in found] == ["D637"]


def test_merge_over_a_base_scenario(roots):
    base = load_scenario("aar/start", roots)
    span = span_at(Source("<test>", 'scenario aar/start with {control: {"Anglo Egypt": "Germans"}}'), 1, 1, 8)
    data = {"control": {"Anglo Egypt": "Germans"}, "economy": {"British": {"income": 30}},
            "turn": {"player": "British", "phase": "collect_income"}}
    merged = scenario_from_data(data, Positions.everywhere(span), span.source, roots, base=base)
    assert merged.map is base.map and merged.control["Anglo Egypt"] == "Germans"
    assert (merged.turn.round, merged.turn.player, merged.turn.phase) == (1, "British", "collect_income")
    again = scenario_from_data({"control": {"Persia": "Japanese"}}, Positions.everywhere(span), span.source,
                               roots, base=merged)
    assert dict(again.control) == {"Anglo Egypt": "Germans", "Persia": "Japanese"}
    assert again.economy["British"].income_total == 30
    with pytest.raises(DiagnosticError) as caught:
        scenario_from_data({"control": {"Atlantis": "Germans"}}, Positions.everywhere(span), span.source,
                           roots, base=base)
    (diagnostic,) = caught.value.diagnostics
    assert diagnostic.code == "D631" and diagnostic.span is span
    with pytest.raises(DiagnosticError) as caught:
        scenario_from_data({"map": "g40"}, Positions.everywhere(span), span.source, roots, base=base)
    assert caught.value.diagnostics[0].code == "D635"


def test_unknown_named_scenario(roots):
    with pytest.raises(DiagnosticError) as caught:
        load_scenario("aar/strat", roots)
    (diagnostic,) = caught.value.diagnostics
    assert diagnostic.code == "D639" and diagnostic.hint == "did you mean 'aar/start'?"


def test_scenario_file_naming_a_map_beside_it(tmp_path, roots):
    (tmp_path / "board.yaml").write_text((FIXTURES / "tiny_map.yaml").read_text())
    (tmp_path / "s.yaml").write_text("map: board.yaml\ncontrol: {north marsh: Blues}\n")
    scenario = load_scenario(str(tmp_path / "s.yaml"), roots)
    assert scenario.map.name == "tiny" and scenario.control["North Marsh"] == "Blues"
    assert scenario.path == tmp_path / "s.yaml"


@pytest.mark.parametrize("text", [
    "- just\n- a list\n",
    "map: aar\ncontrol: [1, 2]\nunits: {UK: [1]}\neconomy: {UK: 5}\noptions: [1]\nfacts: 3\ncounters: x\n",
    "map: aar\nturn: 5\nfactories: 5\nsetup: later\nrulesets: aar/base\n",
    "map: aar\nunits: {UK: {UK: {infantry: many}}}\nfactories: {UK: {kind: big}}\n",
    "map: [aar]\n",
    "map: aar\neconomy: {UK: {income: {main: x}, treasury: [1]}}\n",
])
def test_malformed_scenarios_give_diagnostics_not_tracebacks(roots, text):
    found = errors(text, roots)
    assert found and all(d.code.startswith("D") and d.span is not None for d in found)
