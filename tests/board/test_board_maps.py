"""Maps: the embedded boards, name resolution, and the consistency checks of the map format."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from ruleslang.board.mapdata import list_maps, load_map, map_from_data, name_key, natural_sorted
from ruleslang.base.diagnostics import DiagnosticError
from ruleslang.base.source import Source
from ruleslang.base.suggest import did_you_mean
from ruleslang.base.yamlio import load_yaml
from board_fixtures import aar, aar_queries, aar_state, facts, reference, roots, tiny  # noqa: F401,F811 (pytest fixtures, used by name)

FIXTURES = Path(__file__).parent / "fixtures"


def sea_zone_numbers(names):
    return sorted(int(n.split()[0]) for n in names)


def test_aar_counts(aar):
    assert len(aar.spaces) == 143
    assert len(aar.space_names("land")) == 79
    assert len(aar.space_names("sea")) == 64
    assert len(aar.connections()) == 348
    assert aar.player_names() == ("Russians", "Germans", "British", "Japanese", "Americans")
    assert aar.turn_order == aar.player_names()
    assert dict(aar.sides) == {"Allies": ("Russians", "British", "Americans"), "Axis": ("Germans", "Japanese")}


def test_aar_sea_zones_bordering_the_rule_examples(aar):
    assert sea_zone_numbers(aar.sea_neighbours("United Kingdom")) == [2, 3, 6, 7, 8]
    assert sea_zone_numbers(aar.sea_neighbours("Western Europe")) == [5, 6, 7, 13]


def test_aar_capitals_victory_cities_and_canals(aar):
    capitals = {s.attributes["capital"]: s.name for s in aar.spaces if "capital" in s.attributes}
    assert capitals == {"Germans": "Germany", "British": "United Kingdom", "Americans": "Eastern United States",
                        "Russians": "Russia", "Japanese": "Japan"}
    assert {p.name: p.capital for p in aar.players} == capitals
    assert len([s for s in aar.spaces if s.attributes.get("victory_city")]) == 12
    suez = aar.canal_named("Suez Canal")
    assert suez.sea_zones == ("15 Sea Zone", "34 Sea Zone") and suez.land == ("Anglo Egypt", "Trans-Jordan")
    assert aar.canal_named("Panama Canal").land == ("Panama",)


def test_aar_start_position(aar):
    assert dict(aar.start.treasury) == {"Japanese": {"main": 30}, "British": {"main": 30}, "Americans": {"main": 42},
                                        "Russians": {"main": 24}, "Germans": {"main": 40}}
    assert sorted(aar.start.factories) == ["Caucasus", "Eastern United States", "Germany", "Japan", "Russia",
                                           "Southern Europe", "United Kingdom", "Western United States"]
    assert aar.start.factories["Germany"].owner == "Germans"
    assert dict(aar.start.units["United Kingdom"]["British"]) == {
        "infantry": 2, "artillery": 1, "armour": 1, "aaGun": 1, "fighter": 2, "bomber": 1}
    assert "factory" not in aar.unit_types_used()
    assert len([s for s in aar.spaces if s.impassable]) == 16


@pytest.mark.parametrize("text, canonical", [
    ("UK", "United Kingdom"), ("uk", "United Kingdom"), ("W. Europe", "Western Europe"),
    ("Western Europe", "Western Europe"), ("E. Canada", "Eastern Canada"), ("Kwangtung", "Kwantung"),
    ("FIC", "French Indochina"), ("French Indo-China", "French Indochina"), ("Anglo-Egypt", "Anglo Egypt"),
    ("SZ 6", "6 Sea Zone"), ("sz6", "6 Sea Zone"), ("SZ 64", "64 Sea Zone"), ("Sea Zone 13", "13 Sea Zone"),
    ("E. US", "Eastern United States"), ("W. US", "Western United States"), ("C. US", "Central United States"),
    ("S. Europe", "Southern Europe"), ("Karelia", "Karelia S.S.R."), ("Buryatia", "Buryatia S.S.R."),
    ("Philippines", "Philipine Islands"), ("Hawaii", "Hawaiian Islands"), ("Russia", "Russia"),
])
def test_aar_space_spellings(aar, text, canonical):
    assert aar.resolve_space(text) == canonical


@pytest.mark.parametrize("text, canonical", [
    ("Russia", "Russians"), ("Germany", "Germans"), ("UK", "British"), ("US", "Americans"),
    ("Japan", "Japanese"), ("germans", "Germans"),
])
def test_aar_player_spellings(aar, text, canonical):
    assert aar.resolve_player(text) == canonical


def test_every_sea_zone_has_its_sz_alias(aar):
    for name in aar.space_names("sea"):
        number = name.split()[0]
        assert aar.resolve_space(f"SZ {number}") == name


def test_unknown_names_get_suggestions(aar):
    assert aar.resolve_space("Atlantis") is None
    assert did_you_mean("Kwangtun", aar.space_spellings()) == "did you mean 'Kwantung'?"
    assert did_you_mean("Germns", aar.player_spellings()).startswith("did you mean 'Germans'")
    with pytest.raises(KeyError):
        aar.space("UK")  # only canonical names; resolve user text first


def test_neighbours_are_in_natural_order(aar):
    assert aar.neighbours("United Kingdom") == natural_sorted(aar.neighbours("United Kingdom"))
    assert aar.sea_neighbours("United Kingdom")[0] == "2 Sea Zone"
    assert natural_sorted(["10 Sea Zone", "9 Sea Zone", "Alaska"]) == ("9 Sea Zone", "10 Sea Zone", "Alaska")


def test_aar_agrees_with_the_reference_facts(aar, facts):
    by_name = {t["name"]: t for t in facts["territories"]}
    assert sorted(by_name) == sorted(aar.space_names())
    for space in aar.spaces:
        fact = by_name[space.name]
        assert space.kind == fact["type"], space.name
        assert space.attributes.get("ipc", 0) == fact["production"], space.name
        assert space.original_owner == fact["original_owner"], space.name
        assert space.impassable == bool(fact.get("impassable")), space.name
        assert set(aar.land_neighbours(space.name)) == set(fact["neighbors_land"]), space.name
        assert set(aar.sea_neighbours(space.name)) == set(fact["neighbors_sea"]), space.name
        assert bool(space.attributes.get("victory_city")) == fact["victory_city"], space.name
        assert space.attributes.get("capital") == fact["capital_of"], space.name
        assert (space.name in aar.start.factories) == fact["factory_at_start"], space.name
    assert {tuple(sorted(c)) for c in facts["connections"]} == {tuple(sorted(c)) for c in aar.connections()}
    for space, by_player in facts["starting_units"].items():
        for player, counts in by_player.items():
            expected = {t: n for t, n in counts.items() if t != "factory"}
            assert dict(aar.start.units.get(space, {}).get(player, {})) == expected, (space, player)
    assert {p: t["main"] for p, t in aar.start.treasury.items()} == facts["starting_PUs"]
    assert list(aar.turn_order) == facts["players_turn_order"]
    for side, players in facts["alliances"].items():
        assert set(aar.sides[side]) == set(players)


def test_aar_names_of_the_rule_documents_resolve(aar, facts):
    for brief, triplea in facts["name_map_brief_to_triplea"].items():
        assert aar.resolve_space(brief) == triplea, brief


def test_list_maps_and_load_by_path(roots):
    listed = {name: (path, title) for name, path, title in list_maps(roots)}
    assert {"aar", "aa50-1942", "g40"} <= set(listed)
    assert "Revised" in listed["aar"][1]
    by_path = load_map(str(listed["aar"][0]), [])
    assert by_path is load_map("aar", roots)  # cached by resolved path


def test_embedded_maps_load(roots):
    aa50 = load_map("aa50-1942", roots)
    g40 = load_map("g40", roots)
    assert (len(aa50.spaces), len(aa50.connections())) == (162, 407)
    assert (len(g40.spaces), len(g40.connections())) == (332, 829)
    assert "UK_Pacific" in g40.turn_order and aa50.turn_order[0] == "Japanese"
    assert g40.start.factories["Germany"].kind == "factory_major"
    assert g40.resolve_space("sea zone 109") == "109 Sea Zone"


def test_unknown_map_is_located_with_a_suggestion(roots):
    with pytest.raises(DiagnosticError) as caught:
        load_map("arr", roots)
    (diagnostic,) = caught.value.diagnostics
    assert diagnostic.code == "D629" and "'arr'" in diagnostic.message
    assert diagnostic.hint == "did you mean 'aar'?"


def test_tiny_map_reads_both_adjacency_forms(tiny):
    assert tiny.neighbours("Zone 10") == ("Blueland", "Far Isle", "South Coast", "Zone 2")
    assert tiny.space("Far Isle").island and not tiny.space("Redland").island
    assert tiny.space("South Coast").original_owner == "Reds" and tiny.space("South Coast").owner == "Blues"
    assert tiny.player("Blues").economies == ("east", "west")
    assert dict(tiny.start.treasury["Blues"]) == {"east": 5, "west": 3}
    assert dict(tiny.start.counters["tokens"]) == {("Reds",): 1, ("Blues",): 2}
    assert dict(tiny.start.counters["morale"]) == {(): 3}
    assert tiny.side_of("Greys") is None and tiny.turn_order == ("Reds", "Blues", "Greens")
    assert tiny.resolve_player("R") == "Reds" and tiny.resolve_space("RL") == "Redland"


def test_a_bad_map_reports_every_problem_at_its_line():
    """Each line of bad_map.yaml marked `# bad: ... (CODE)` must get exactly that diagnostic."""
    path = FIXTURES / "bad_map.yaml"
    expected = {}
    for number, line in enumerate(path.read_text().splitlines(), start=1):
        found = re.search(r"# bad: .*\((D\d+)\)", line)
        if found:
            expected[number] = found.group(1)
    with pytest.raises(DiagnosticError) as caught:
        load_map(str(path), [])
    got = {}
    for diagnostic in caught.value.diagnostics:
        got.setdefault(diagnostic.span.line, set()).add(diagnostic.code)
    assert got.keys() == expected.keys()
    for line, code in expected.items():
        assert code in got[line], (line, got[line])


def check(text: str):
    data, positions = load_yaml(Source("m.yaml", text))
    return map_from_data(data, positions)


def problems(text: str) -> list:
    with pytest.raises(DiagnosticError) as caught:
        check(text)
    return caught.value.diagnostics


BASE = "name: m\nplayers: [{name: P}]\nspaces:\n"


def test_duplicate_connection_and_unknown_connection_names():
    found = problems(BASE + "  - {name: A, kind: land}\n  - {name: B, kind: land}\n"
                     "connections: [[A, B], [B, A], [A, C]]\n")
    assert [(d.code, d.span.line) for d in found] == [("D626", 6), ("D621", 6)]
    assert "given twice" in found[0].message and "unknown space 'C'" in found[1].message


def test_space_alias_clash_is_reported():
    found = problems(BASE + "  - {name: North, kind: land}\n  - {name: South, kind: land, aliases: [north]}\n")
    assert [d.code for d in found] == ["D620"] and "names two spaces" in found[0].message


def test_two_names_spelled_alike_are_each_found_by_their_exact_name():
    # TripleA's Civil War has New Bern and Newbern (issue 13): both load; a loose spelling of
    # either spells neither, so nothing is merged
    game_map = check(BASE + "  - {name: New Bern, kind: land}\n  - {name: Newbern, kind: land}\n"
                            "connections: [[New Bern, Newbern]]\n")
    assert game_map.resolve_space("New Bern") == "New Bern" and game_map.resolve_space("Newbern") == "Newbern"
    assert game_map.resolve_space("new bern") is None
    assert game_map.neighbours("New Bern") == ("Newbern",)


def test_name_key_ignores_case_spaces_and_punctuation():
    assert name_key("Anglo-Egypt") == name_key("anglo egypt") == "angloegypt"
    assert name_key("Karelia S.S.R.") == name_key("karelia ssr")


def test_a_map_is_not_a_list():
    with pytest.raises(DiagnosticError) as caught:
        check("- a\n- b\n")
    assert caught.value.diagnostics[0].code == "D610"


def test_an_edited_map_file_is_read_again(tmp_path):
    first = tmp_path / "one.yaml"
    first.write_text(BASE + "  - {name: A, kind: land, attributes: {ipc: 1}}\n")
    loaded = load_map(str(first), [])
    first.write_text(BASE + "  - {name: A, kind: land, attributes: {ipc: 2}}\n")

    os.utime(first, ns=(first.stat().st_atime_ns, first.stat().st_mtime_ns + 10_000_000))
    assert load_map(str(first), []).space("A").attributes["ipc"] == 2 and loaded.space("A").attributes["ipc"] == 1


@pytest.mark.parametrize("text", [
    "name: m\nplayers: x\nspaces: 5\n",
    "name: m\nplayers: [{name: 5}, 7, {name: P, side: [1]}]\nspaces: [{name: A}, {kind: land}, 3]\n",
    "name: m\nplayers: [{name: P}]\nspaces: [{name: A, kind: land, neighbours: 5, island: 3}]\n"
    "connections: [[A], 5, [A, 7]]\ncanals: [{name: C, sea_zones: x}]\nsides: 4\nturn_order: 3\n",
    "name: m\nplayers: [{name: P}]\nspaces: [{name: A, kind: land}]\n"
    "start: {units: {A: x}, factories: {A: 5}, treasury: {P: x}, counters: 4}\n",
    "name: M!\nplayers: []\nspaces: []\n",
])
def test_malformed_maps_give_diagnostics_not_tracebacks(text):
    found = problems(text)
    assert found and all(d.code.startswith("D") and d.span is not None for d in found)
