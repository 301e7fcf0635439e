"""What a TripleA import produced: counts, files written, and what was not translated."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

RULESET_VERSION = 1


@dataclass(frozen=True)
class ImportItem:
    """One thing of the XML the importer did not translate (or kept only as data)."""

    category: str
    name: str
    detail: str
    line: int | None = None
    column: int = 1


@dataclass
class ImportReport:
    """What an import produced: counts, output files, untranslated items and renames."""

    xml_path: Path
    game: str
    version: str
    map_name: str
    family: str
    map_path: Path | None = None
    ruleset_path: Path | None = None
    spaces: int = 0
    land: int = 0
    sea: int = 0
    connections: int = 0
    players: int = 0
    unit_types: int = 0
    phases: int = 0
    triggers: int = 0  # TripleA triggers written as hooks
    untranslated: list[ImportItem] = field(default_factory=list)
    renames: list[tuple[str, str]] = field(default_factory=list)

    def to_json(self) -> dict:
        """The report as plain data (for `--format json`)."""
        return {
            "file": str(self.xml_path), "game": self.game, "version": self.version,
            "map": self.map_name, "ruleset": f"{self.family}/base@{RULESET_VERSION}",
            "map_path": str(self.map_path) if self.map_path else None,
            "ruleset_path": str(self.ruleset_path) if self.ruleset_path else None,
            "counts": {"spaces": self.spaces, "land": self.land, "sea": self.sea,
                       "connections": self.connections, "players": self.players,
                       "unit_types": self.unit_types, "phases": self.phases},
            "untranslated": [{"category": i.category, "name": i.name, "detail": i.detail, "line": i.line}
                             for i in self.untranslated],
            "renames": [{"from": old, "to": new} for old, new in self.renames],
        }


def format_report(report: ImportReport, *, examples: int = 3) -> str:
    """The counts, the files written, and the untranslated items grouped by kind."""
    lines = [
        f"imported {report.xml_path.name}: {report.game} {report.version}".rstrip(),
        f"  map {report.map_name}: {report.spaces} spaces ({report.land} land, {report.sea} sea), "
        f"{report.connections} connections, {report.players} players",
        f"  ruleset {report.family}/base@{RULESET_VERSION}: {report.unit_types} unit types, {report.phases} phases",
    ]
    if report.map_path:
        lines.append(f"  wrote {report.map_path}")
    if report.ruleset_path:
        lines.append(f"  wrote {report.ruleset_path}")
    if not report.untranslated:
        lines.append("nothing left untranslated")
        return "\n".join(lines)
    by_category: dict[str, list[ImportItem]] = {}
    for item in report.untranslated:
        by_category.setdefault(item.category, []).append(item)
    lines.append(f"untranslated: {len(report.untranslated)} items")
    for category in sorted(by_category):
        items = by_category[category]
        names = Counter(i.name for i in items)
        lines.append(f"  {category} ({len(items)}):")
        for name, count in sorted(names.items(), key=lambda kv: (-kv[1], kv[0]))[: examples * 4]:
            first = next(i for i in items if i.name == name)
            where = f"line {first.line}: " if first.line else ""
            times = f" x{count}" if count > 1 else ""
            lines.append(f"    {name}{times} - {where}{first.detail}")
        if len(names) > examples * 4:
            lines.append(f"    ... and {len(names) - examples * 4} more kinds")
    return "\n".join(lines)
