"""Import a TripleA game file: a ruleslang map plus a generated base ruleset.

The `triplea*` modules of the package are the ones that know TripleA's vocabulary (its XML
elements, attachment classes, option names and delegates): this one runs an import and reports
what no other part reads; `triplea_reader` reads the element tree (after `triplea_variables`
expands `variableList` / `foreach`), `triplea_map` translates the map, `triplea_ruleset` the
unit types and the turn, `triplea_production` the production frontiers; `triplea_names` spells
names and values, `triplea_report` holds the report. What the XML declares is translated as data:

- the map: territories, connections, production values, owners, capitals and victory cities
  (as space attributes), impassable and neutral territories, canals, starting units, factories
  and resources;
- the base ruleset: unit types with their numeric options as attributes and their boolean
  options as tags, each player's production frontier (what it may buy, at what price), and a
  player's turn as `phase` declarations over the runtime's procedures plus `sequence turn`.

Triggers and their conditions become hooks (`triplea_triggers`), victory conditions a hook at the
end of each round (`triplea_victory`). Everything else (political actions, game properties coded in
Java, trigger options with no translation, ...) is listed in the `ImportReport` as untranslated,
with its XML line. The XML is read by
`safexml` (no entity declarations, no DTD fetching: D640, D641). Codes:

    D642 not a TripleA game file             D643 the XML contradicts itself
    D645 an item not translated (warning)    D646 a name renamed to fit ruleslang (warning)
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ruleslang.base.diagnostics import Diagnostic, DiagnosticError, error, warning
from ruleslang.base.fileio import write_atomic
from ruleslang.base.safexml import read_xml
from ruleslang.base.source import Source, span_at
from ruleslang.base.yamlio import dump_yaml, load_yaml
from ruleslang.board.mapdata import map_from_data
from ruleslang.importers.triplea_centers import add_positions, folder_centres, wrap_width
from ruleslang.importers.triplea_map import MapReader
from ruleslang.importers.triplea_names import map_name_for
# format_report is imported for the callers of this module's entry points (the command line, tests).
from ruleslang.importers.triplea_report import RULESET_VERSION, ImportItem, ImportReport, format_report  # noqa: F401
from ruleslang.importers.triplea_ruleset import RulesetWriter
from ruleslang.lang.syntax.parser import parse_module

# Top-level elements read by the importer, or with nothing a ruleset could use.
_ELEMENTS_READ = {"info", "loader", "triplea", "map", "resourceList", "playerList", "unitList",
                  "gamePlay", "production", "attachmentList", "initialize", "propertyList", "variableList",
                  "diceSides"}


# ---------------------------------------------------------------- the importer


class _Importer(MapReader, RulesetWriter):
    """A whole import: the map and the ruleset of one game file, and what neither reads."""

    def other_untranslated(self) -> None:
        """Report what neither the map nor the ruleset reads: other attachments, relationships, elements."""
        handled = {"UnitAttachment", "TerritoryAttachment", "CanalAttachment", "UnitSupportAttachment"}
        translated = getattr(self, "translated_attachments", set())
        for attachment in self.section("attachmentList").all("attachment"):
            cls = attachment.attrs.get("javaClass", "").rsplit(".", 1)[-1]
            if cls in ("TriggerAttachment", "RulesAttachment") and attachment.attrs.get("name") in translated:
                continue
            if cls not in handled:
                self.untranslated("attachment", cls, f"'{attachment.attrs.get('name')}' attached to "
                                  f"'{attachment.attrs.get('attachTo')}' is not translated", attachment)
        initialize = self.section("initialize")
        for element in initialize.walk("relationship"):
            a, b, kind = (element.attrs.get(k, "") for k in ("player1", "player2", "type"))
            self.untranslated("relationship", kind, f"{a} - {b} start as '{kind}'; not translated", element)
        for child in self.root.children:
            if child.tag not in _ELEMENTS_READ:
                detail = ", ".join(f"{k}={v}" for k, v in child.attrs.items()) or f"{len(child.children)} entries"
                self.untranslated("element", child.tag, f"<{child.tag}> ({detail}) is not translated", child)


# ---------------------------------------------------------------- entry points


@dataclass
class Translation:
    """A translated game file: the map's YAML text, the base ruleset's text, and the report."""

    map_text: str
    ruleset_text: str
    report: ImportReport


def translate_game(xml_path: Path | str, *, map_name: str | None = None, family: str | None = None,
                   title: str | None = None, source: object = None, overlay=None) -> Translation:
    """Translate a TripleA game file without writing anything.

    `overlay` (a function taking and returning the map data) lets a caller add aliases or
    colours before the map is checked. The map text is checked against the map schema and
    consistency rules, and the ruleset text is parsed, before they are returned. Raises
    `DiagnosticError` when the file cannot be read, is not a game file, or contradicts itself.
    """
    xml_path = Path(xml_path)
    root, xml_source = read_xml(xml_path)
    if root.tag != "game" or root.first("map") is None or root.first("playerList") is None:
        raise DiagnosticError(error("D642", f"not a TripleA game file: expected <game> with <map> and "
                                    f"<playerList>, found <{root.tag}>",
                                    span_at(xml_source, root.line, root.column, len(root.tag) + 1)))
    info = root.first("info")
    game = info.attrs.get("name", xml_path.stem) if info is not None else xml_path.stem
    version = info.attrs.get("version", "") if info is not None else ""
    map_name = map_name or map_name_for(xml_path)
    family = family or map_name
    report = ImportReport(xml_path, game, version, map_name, family)
    importer = _Importer(root, xml_source, report)
    if source is None:
        source = f"imported by ruleslang import-triplea from {xml_path.name} (TripleA game '{game}' version {version})"
    data = importer.map_data(map_name, title or game, source)
    if overlay is not None:
        data = overlay(data)
    ruleset = importer.ruleset_text(family, map_name, game, version, xml_path.name)
    importer.other_untranslated()
    if importer.problems:
        raise DiagnosticError(importer.problems)
    map_text = dump_yaml(data, header=f"ruleslang map '{map_name}', generated by ruleslang's TripleA importer "
                                      f"from {xml_path.name}")
    # Check the map exactly as written, so a file that fails its own checks is never produced.
    loaded, positions = load_yaml(Source(f"{map_name}.yaml", map_text))
    game_map = map_from_data(loaded, positions)
    parse_module(Source(f"{family}/base@{RULESET_VERSION}.rules", ruleset))
    report.spaces = len(game_map.spaces)
    report.land = len(game_map.space_names("land"))
    report.sea = len(game_map.space_names("sea"))
    report.connections = len(game_map.connections())
    report.players = len(game_map.players)
    return Translation(map_text, ruleset, report)


def import_triplea(xml_path: Path | str, out_dir: Path | str, **options) -> ImportReport:
    """Translate a game file into `out_dir/maps/<map>.yaml` and `out_dir/<family>/base@1.rules`.

    `out_dir` is laid out as a ruleset root, so `--rulesets out_dir` finds both files.
    Options are those of `translate_game`.
    """
    out_dir = Path(out_dir)
    translation = translate_game(xml_path, **options)
    report = translation.report
    report.map_path = out_dir / "maps" / f"{report.map_name}.yaml"
    report.ruleset_path = out_dir / report.family / f"base@{RULESET_VERSION}.rules"
    for path, text in ((report.map_path, translation.map_text), (report.ruleset_path, translation.ruleset_text)):
        path.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(path, text)  # never a half-written map or ruleset
    return report


def run_import(xml_path: Path | str, out_dir: Path | str,
               map_folder: Path | str | None = None) -> tuple[ImportReport | None, list[Diagnostic]]:
    """Import for the command line: (report or None, diagnostics), never raising for user errors.

    Untranslated items come back as D645 warnings, one per kind of item, located at its first
    occurrence in the XML. With `map_folder` (a TripleA map folder), its centers.txt, place.txt or
    pu_place.txt give each space its `position` (importers/triplea_centers.py; U143 warnings say
    which were placed by their neighbours).
    """
    diagnostics: list[Diagnostic] = []
    try:
        options = {}
        if map_folder is not None:
            centers, files = folder_centres(map_folder)
            where = " and ".join(str(path) for path in files)
            wrap = wrap_width(map_folder)

            def with_positions(data: dict) -> dict:
                diagnostics.extend(add_positions(data, centers, where, wrap))
                return data
            options["overlay"] = with_positions
        report = import_triplea(xml_path, out_dir, **options)
    except DiagnosticError as exc:
        return None, exc.diagnostics
    source = Source(str(xml_path), Path(xml_path).read_text(encoding="utf-8", errors="replace"))
    groups: dict[tuple[str, str], list[ImportItem]] = {}
    for item in report.untranslated:
        groups.setdefault((item.category, item.name), []).append(item)
    for (category, name), items in groups.items():
        first = items[0]
        code = "D646" if category == "rename" else "D645"
        count = f" ({len(items)} times)" if len(items) > 1 else ""
        span = span_at(source, first.line, first.column) if first.line else None
        message = (f"unit type '{name}' {first.detail}" if category == "rename"
                   else f"{category} '{name}' not translated{count}: {first.detail}")
        diagnostics.append(warning(code, message, span, file=None if span else str(xml_path)))
    return report, diagnostics
