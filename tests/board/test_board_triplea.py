"""The TripleA importer: safe XML reading, the map and base ruleset it writes, and its report."""

from __future__ import annotations

from pathlib import Path

import pytest

from ruleslang.lang.syntax.declarations import CustomProcedure, PhaseDecl, SequenceDecl, UnitDecl
from ruleslang.board.mapdata import GameMap, load_map, map_from_data
from ruleslang.importers.triplea import format_report, import_triplea, run_import, translate_game
from ruleslang.importers.triplea_names import identifier, map_name_for, snake_case
from ruleslang.base.diagnostics import DiagnosticError, Severity
from ruleslang.lang.syntax.parser import parse_module
from ruleslang.base.source import Source
from ruleslang.base.yamlio import load_yaml
from board_fixtures import aar, aar_queries, aar_state, facts, reference, roots, tiny  # noqa: F401,F811 (pytest fixtures, used by name)

FIXTURES = Path(__file__).parent / "fixtures"

# (file, spaces, connections, players, unit types) of every reference game file.
REFERENCE_GAMES = [
    ("ww2v2.xml", 143, 348, 5, 12),
    ("WW2v3-1941.xml", 162, 407, 7, 13),
    ("WW2v3-1942.xml", 162, 407, 7, 13),
    ("ww2global40_2nd_edition.xml", 332, 829, 15, 19),
    ("ww2global40_balanced.xml", 332, 829, 15, 20),
]


def parsed_map(text: str) -> GameMap:
    data, positions = load_yaml(Source("imported.yaml", text))
    return map_from_data(data, positions)


def refused(name: str):
    with pytest.raises(DiagnosticError) as caught:
        translate_game(FIXTURES / name)
    return caught.value.diagnostics


# ---------------------------------------------------------------- hand-written fixtures (always run)


@pytest.fixture(scope="module")
def tiny_import(tmp_path_factory):
    out = tmp_path_factory.mktemp("import")
    report = import_triplea(FIXTURES / "tiny_game.xml", out)
    return out, report


def test_import_writes_a_ruleset_root(tiny_import):
    out, report = tiny_import
    assert report.map_path == out / "maps" / "tiny-game.yaml"
    assert report.ruleset_path == out / "tiny-game" / "base@1.rules"
    game_map = load_map("tiny-game", [out])
    assert game_map.title == "Tiny War"
    assert (report.spaces, report.land, report.sea, report.connections, report.players, report.unit_types) == \
        (6, 4, 2, 6, 2, 4)


def test_imported_map_content(tiny_import):
    out, _ = tiny_import
    game_map = load_map("tiny-game", [out])
    redland = game_map.space("Redland")
    assert redland.owner == "Reds"
    assert dict(redland.attributes) == {"capital": "Reds", "ipc": 8, "victory_city": True}
    marsh = game_map.space("Marsh")
    assert (marsh.owner, marsh.original_owner) == ("Reds", "Blues")
    assert marsh.attributes["when_captured_by_goes_to"] == ["Reds", "Blues"]
    peak = game_map.space("Peak")
    assert peak.impassable and peak.neutral and peak.owner is None
    sea = game_map.space("2 Sea Zone")
    assert sea.owner is None and sea.attributes["owned_by"] == "Blues"
    assert game_map.resolve_space("SZ 2") == "2 Sea Zone"
    assert game_map.canal_named("Narrows").land == ("Redland",)
    assert dict(game_map.start.units["Redland"]["Reds"]) == {"foot": 3, "heavy_tank": 1}
    assert game_map.start.factories["Redland"].kind == "factory"
    assert dict(game_map.start.treasury) == {"Reds": {"main": 12}, "Blues": {"main": 9}}
    assert dict(game_map.start.counters["tech_tokens"]) == {("Blues",): 2}
    assert {p.name: (p.side, p.capital) for p in game_map.players} == {
        "Reds": ("North", "Redland"), "Blues": ("South", "Blueland")}


def test_imported_ruleset_declares_units_and_phases(tiny_import):
    _, report = tiny_import
    module = parse_module(Source(str(report.ruleset_path), report.ruleset_path.read_text()))
    assert module.header.ref.text == "tiny-game/base@1" and module.header.map.plain == "tiny-game"
    units = {item.name.text: item for item in module.items if isinstance(item, UnitDecl)}
    assert list(units) == ["foot", "heavy_tank", "ship", "factory"]
    tank = units["heavy_tank"]
    assert tank.title == "heavy tank"
    values = {name.text: value.value for name, value in tank.attributes}
    assert values == {"cost": 5, "movement": 2, "attack": 3, "defense": 3, "hit_points": 2}
    assert [t.text for t in tank.tags] == ["land", "purchasable", "blitz"]
    # Tags the battle ruleset reads have its names: TripleA's isSub is `is_sub`.
    assert [t.text for t in units["ship"].tags] == ["purchasable", "sea", "is_sub"]
    assert [u.text for u in module.header.uses] == ["triplea/battle@1"]
    # A tag may not share a unit type's name: TripleA's isFactory becomes `is_factory` here.
    assert [t.text for t in units["factory"].tags] == ["land", "is_factory"]
    sequences = {item.name.text: [i.text for i in item.items] for item in module.items
                 if isinstance(item, SequenceDecl)}
    # TripleA's battle step is the battle phase of triplea/battle@1, which the ruleset uses
    assert sequences == {"turn": ["purchase", "combat_move", "battle", "noncombat_move", "collect_income"]}
    phases = {item.name.text: item.procedure for item in module.items if isinstance(item, PhaseDecl)}
    assert phases["purchase"].name.text == "purchase" and phases["combat_move"].name.text == "move"
    assert isinstance(phases["collect_income"], CustomProcedure)


def test_imported_ruleset_checks_clean(tiny_import):
    cli = pytest.importorskip("ruleslang.cli.app")
    out, report = tiny_import
    assert cli.main(["check", "--rulesets", str(out), str(report.ruleset_path)]) == 0


def test_imported_ruleset_computes_income_from_the_production_values(tiny_import, capsys):
    cli = pytest.importorskip("ruleslang.cli.app")
    out, report = tiny_import
    game_map = load_map("tiny-game", [out])
    expected = {p: sum(s.attributes.get("ipc", 0) for s in game_map.spaces if s.kind == "land" and s.owner == p)
                for p in ("Reds", "Blues")}
    assert expected["Reds"] >= 8
    for player, amount in expected.items():
        capsys.readouterr()
        assert cli.main(["eval", "--rulesets", str(out), "tiny-game/base@1", f"income({player})"]) == 0
        assert capsys.readouterr().out.strip() == str(amount)


def test_report_lists_what_was_not_translated(tiny_import):
    _, report = tiny_import
    kinds = {(item.category, item.name) for item in report.untranslated}
    assert ("game property", "Low Luck") not in kinds  # triplea/battle@1 plays it
    assert {("attachment", "TriggerAttachment"), ("unit option", "givesMovement"),
            ("territory option", "whenCapturedByGoesTo"), ("unit placement", "hitsTaken"),
            ("step property", "skipPosting"), ("step", "WeirdDelegate"), ("step", "InitializationDelegate"),
            ("rename", "heavy tank"), ("sea zone owner", "2 Sea Zone"),
            ("connection", "2 Sea Zone - Blueland")} <= kinds
    # the Blues' turn lacks steps of the Reds' but keeps their order: it is translated (skip hooks)
    assert ("turn", "Blues") not in kinds
    trigger = next(i for i in report.untranslated if i.category == "attachment")
    assert trigger.line == 131
    text = format_report(report)
    assert "map tiny-game: 6 spaces (4 land, 2 sea), 6 connections, 2 players" in text
    assert "ruleset tiny-game/base@1: 4 unit types, 5 phases" in text
    assert "TriggerAttachment - line 131" in text
    data = report.to_json()
    assert data["counts"]["spaces"] == 6 and data["renames"] == [{"from": "heavy tank", "to": "heavy_tank"}]
    assert {"category": "attachment", "name": "TriggerAttachment", "line": 131}.items() <= \
        next(i for i in data["untranslated"] if i["category"] == "attachment").items()


def test_run_import_returns_grouped_located_warnings(tmp_path):
    report, diagnostics = run_import(FIXTURES / "tiny_game.xml", tmp_path)
    assert report is not None
    assert all(d.severity is Severity.WARNING for d in diagnostics)
    assert {d.code for d in diagnostics} == {"D645", "D646"}
    rename = next(d for d in diagnostics if d.code == "D646")
    assert rename.span.line == 34 and "heavy_tank" in rename.message


@pytest.mark.parametrize("fixture, code, line", [
    ("xxe.xml", "D641", 3),
    ("billion_laughs.xml", "D641", 3),
    ("external_dtd.xml", "D641", 3),
    ("broken.xml", "D640", 6),
    ("not_a_game.xml", "D642", 2),
])
def test_unsafe_or_broken_files_are_refused_with_a_location(fixture, code, line):
    (diagnostic,) = refused(fixture)
    assert diagnostic.code == code and diagnostic.span.line == line


def test_deep_nesting_is_refused(tmp_path):
    deep = tmp_path / "deep.xml"
    deep.write_text("<game>\n" + "<a>" * 5000 + "</a>" * 5000 + "\n</game>\n")
    with pytest.raises(DiagnosticError) as caught:
        translate_game(deep)
    (diagnostic,) = caught.value.diagnostics
    assert diagnostic.code == "D640" and "nest deeper" in diagnostic.message and diagnostic.span.line == 2


def test_entity_refusal_names_the_entity():
    (diagnostic,) = refused("xxe.xml")
    assert "'secret'" in diagnostic.message and "/etc/passwd" in diagnostic.message


def test_every_contradiction_is_reported():
    found = refused("dangling.xml")
    assert [(d.code, d.span.line) for d in found] == [("D643", 8), ("D643", 15)]


def test_run_import_never_raises(tmp_path):
    report, diagnostics = run_import(FIXTURES / "xxe.xml", tmp_path)
    assert report is None and diagnostics[0].code == "D641"
    report, diagnostics = run_import(tmp_path / "missing.xml", tmp_path)
    assert report is None and diagnostics[0].code == "D640"
    assert not list(tmp_path.iterdir())  # nothing written


@pytest.mark.parametrize("name, expected", [
    ("russianNonCombatMove", "russian_non_combat_move"), ("UK_PacificPurchase", "uk_pacific_purchase"),
    ("isAAforCombatOnly", "is_aa_for_combat_only"), ("maxAAattacks", "max_aa_attacks"),
    ("NoPUEndTurnDelegate", "no_pu_end_turn_delegate"), ("SuicideAttackTokens", "suicide_attack_tokens"),
])
def test_snake_case(name, expected):
    assert snake_case(name) == expected


def test_quoted_text_survives_the_parser():
    from ruleslang.importers.triplea_names import quote as _quote

    tricky = 'a "quoted" {braced} back\\slash\nline'
    module = parse_module(Source("q.rules", f"ruleset q/q@1\ntitle {_quote(tricky)}\n"))
    assert module.header.title == tricky


def test_identifiers_and_map_names():
    assert identifier("heavy tank") == "heavy_tank" and identifier("2nd-army") == "_2nd_army"
    assert map_name_for(Path("WW2v3-1942.xml")) == "ww2v3-1942"
    assert map_name_for(Path("ww2global40_2nd_edition.xml")) == "ww2global40-2nd-edition"


# ---------------------------------------------------------------- the reference game files


@pytest.fixture(scope="module")
def reference_imports(reference):
    """Every reference file translated once for this module (the Global 1940 files are large)."""
    return {name: translate_game(reference / "triplea" / name) for name, *_ in REFERENCE_GAMES}


@pytest.mark.parametrize("name, spaces, connections, players, units", REFERENCE_GAMES)
def test_every_reference_file_imports(reference_imports, name, spaces, connections, players, units):
    translation = reference_imports[name]
    report = translation.report
    assert (report.spaces, report.connections, report.players, report.unit_types) == \
        (spaces, connections, players, units)
    assert report.phases > 0 and report.untranslated
    module = parse_module(Source(name, translation.ruleset_text))
    assert len([i for i in module.items if isinstance(i, UnitDecl)]) == units
    assert len(parsed_map(translation.map_text).spaces) == spaces


@pytest.mark.parametrize("name", [game for game, *_ in REFERENCE_GAMES])
def test_every_reference_ruleset_checks_clean(reference_imports, tmp_path, name):
    cli = pytest.importorskip("ruleslang.cli.app")
    translation = reference_imports[name]
    report = translation.report
    (tmp_path / "maps").mkdir()
    (tmp_path / "maps" / f"{report.map_name}.yaml").write_text(translation.map_text)
    ruleset = tmp_path / report.family / "base@1.rules"
    ruleset.parent.mkdir()
    ruleset.write_text(translation.ruleset_text)
    assert cli.main(["check", "--rulesets", str(tmp_path), str(ruleset)]) == 0


def test_global_files_report_their_triggers_and_conditions(reference_imports):
    for name in ("ww2global40_2nd_edition.xml", "ww2global40_balanced.xml"):
        report = reference_imports[name].report
        classes = {i.name for i in report.untranslated if i.category == "attachment"}
        assert {"TriggerAttachment", "RulesAttachment", "PoliticalActionAttachment"} <= classes
        assert any(i.category == "relationship" for i in report.untranslated)
    balanced = reference_imports["ww2global40_balanced.xml"].report
    second = reference_imports["ww2global40_2nd_edition.xml"].report
    assert len(balanced.untranslated) > len(second.untranslated)


def assert_same_board(embedded: GameMap, imported: GameMap) -> None:
    """Space for space, the same board: names, kinds, values, owners, adjacency, start."""
    assert embedded.space_names() == imported.space_names()
    for mine in embedded.spaces:
        theirs = imported.space(mine.name)
        assert (mine.kind, mine.owner, mine.original_owner, mine.impassable, mine.neutral,
                mine.island, dict(mine.attributes)) == \
            (theirs.kind, theirs.owner, theirs.original_owner, theirs.impassable, theirs.neutral,
             theirs.island, dict(theirs.attributes)), mine.name
        assert embedded.neighbours(mine.name) == imported.neighbours(mine.name), mine.name
    assert [(p.name, p.side, p.capital) for p in embedded.players] == \
        [(p.name, p.side, p.capital) for p in imported.players]
    assert embedded.turn_order == imported.turn_order
    assert embedded.canals == imported.canals
    assert embedded.start == imported.start


@pytest.mark.parametrize("map_name, game", [
    ("aar", "ww2v2.xml"), ("aa50-1942", "WW2v3-1942.xml"), ("g40", "ww2global40_2nd_edition.xml")])
def test_embedded_maps_agree_with_their_import(roots, reference_imports, map_name, game):
    assert_same_board(load_map(map_name, roots), parsed_map(reference_imports[game].map_text))


def test_embedded_maps_record_their_source(roots):
    for name, repository in (("aar", "world_war_ii_revised"), ("aa50-1942", "world_war_ii_v3"),
                             ("g40", "world_war_ii_global")):
        game_map = load_map(name, roots)
        assert f"repository: triplea-maps/{repository}" in game_map.source and "commit: " in game_map.source


# ---------------------------------------------------------------- units without an owner (issue 13)


def _tiny_with(tmp_path, replace: dict[str, str]) -> Path:
    text = (FIXTURES / "tiny_game.xml").read_text(encoding="utf-8")
    for old, new in replace.items():
        assert old in text
        text = text.replace(old, new)
    game = tmp_path / "tiny_game.xml"
    game.write_text(text, encoding="utf-8")
    return game


OWNERLESS = {'<unitPlacement unitType="foot" territory="Redland" quantity="3" owner="Reds"/>':
             '<unitPlacement unitType="foot" territory="Redland" quantity="3" owner="Reds"/>\n'
             '      <unitPlacement unitType="foot" territory="Peak" quantity="2"/>'}


def test_units_placed_without_an_owner_belong_to_the_neutral_player(tmp_path):
    import_triplea(_tiny_with(tmp_path, OWNERLESS), tmp_path / "out")
    game_map = load_map("tiny-game", [tmp_path / "out"])
    assert "Neutral" in [p.name for p in game_map.players] and "Neutral" not in game_map.turn_order
    assert dict(game_map.start.units["Peak"]) == {"Neutral": {"foot": 2}}


def test_the_neutral_player_gets_a_name_no_player_has(tmp_path):
    named = {**OWNERLESS, '<player name="Blues"': '<player name="Neutral"'}
    text = (FIXTURES / "tiny_game.xml").read_text(encoding="utf-8")
    named.update({old: old.replace('"Blues"', '"Neutral"') for old in set(
        line.strip() for line in text.splitlines() if '"Blues"' in line and '<player name="Blues"' not in line)})
    import_triplea(_tiny_with(tmp_path, named), tmp_path / "out")
    game_map = load_map("tiny-game", [tmp_path / "out"])
    assert dict(game_map.start.units["Peak"]) == {"Neutral 2": {"foot": 2}}


@pytest.mark.parametrize("old, new", [('quantity="3" owner="Reds"', 'quantity="-2.75" owner="Reds"'),
                                      ('quantity="3" owner="Reds"', 'quantity="' + "9" * 5000 + '" owner="Reds"')])
def test_a_quantity_that_is_not_a_whole_number_is_located(tmp_path, old, new):
    game = _tiny_with(tmp_path, {old: new})
    with pytest.raises(DiagnosticError) as caught:
        import_triplea(game, tmp_path / "out")
    (found,) = [d for d in caught.value.diagnostics if d.code == "D643"]
    assert "is not a whole number" in found.message and found.span.line == 143


def test_an_option_value_of_thousands_of_digits_is_kept_as_text(tmp_path):
    text = (FIXTURES / "tiny_game.xml").read_text(encoding="utf-8")
    option = next(line for line in text.splitlines() if '<option name="attack" value="' in line)
    value = option.split('value="')[1].split('"')[0]
    game = _tiny_with(tmp_path, {option: option.replace(f'value="{value}"', 'value="' + "9" * 5000 + '"')})
    try:
        import_triplea(game, tmp_path / "out")
    except DiagnosticError as exc:  # refused whole is fine; an internal error is not
        assert all(d.code.startswith("D") for d in exc.diagnostics)
