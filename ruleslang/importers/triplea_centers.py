"""Territory centres from a TripleA map folder (`centers.txt`), as the spaces' `position` in a map.

A TripleA map folder (the one holding `games/` and the map's pictures) carries `centers.txt`:
one line a territory, its name then one or more points, `Name  (x,y)`, in pixels of the map's
picture with y downwards. The first point is the centre. Positions are written only when every
space of the game has one (a picture mixing positions and a derived layout would mislead);
otherwise a warning names the spaces without one and the map keeps none.
"""

from __future__ import annotations

import re
from pathlib import Path

from ruleslang.base.diagnostics import Diagnostic, DiagnosticError, error, warning
from ruleslang.base.source import Source, span_at

CENTERS_FILE = "centers.txt"
_LINE = re.compile(r"^(?P<name>.*?)\s*\((?P<x>-?\d+(?:\.\d+)?)\s*,\s*(?P<y>-?\d+(?:\.\d+)?)\)")


def centers_path(folder: Path | str) -> Path:
    """The `centers.txt` of a map folder (directly in it, or in its `map/`); U141 when there is none."""
    folder = Path(folder)
    for candidate in (folder / CENTERS_FILE, folder / "map" / CENTERS_FILE):
        if candidate.is_file():
            return candidate
    raise DiagnosticError(error("U141", f"--map-folder {folder}: no {CENTERS_FILE} in it or in its map/ folder",
                                file=str(folder), hint="name the TripleA map folder that holds centers.txt"))


def read_centers(path: Path | str) -> dict[str, tuple[float, float]]:
    """Territory name -> its centre; U142 at a line that is not `Name (x,y)`."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as exc:
        raise DiagnosticError(error("U141", f"cannot read {path}: {getattr(exc, 'strerror', None) or exc}",
                                    file=str(path))) from None
    source = Source(str(path), text)
    centers: dict[str, tuple[float, float]] = {}
    problems = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        m = _LINE.match(line.strip())
        if m is None or not m.group("name"):
            problems.append(error("U142", f"expected a territory name and its centre, as `Name  (x,y)`; found "
                                          f"'{line.strip()[:60]}'", span_at(source, number, 1, len(line))))
            continue
        centers.setdefault(m.group("name"), (float(m.group("x")), float(m.group("y"))))
    if problems:
        raise DiagnosticError(problems)
    return centers


def add_positions(data: dict, centers: dict[str, tuple[float, float]], where: str) -> list[Diagnostic]:
    """Give each space of the map data its centre as `position`, when every space has one; the
    warnings (U143) say which spaces have none, or which centres name no space."""
    spaces = data.get("spaces") or []
    missing = [s["name"] for s in spaces if s["name"] not in centers]
    names = {s["name"] for s in spaces}
    unknown = sorted(n for n in centers if n not in names)
    out = []
    if missing:
        shown = ", ".join(missing[:5]) + (f" and {len(missing) - 5} more" if len(missing) > 5 else "")
        out.append(warning("U143", f"{where} has no centre for {len(missing)} of the {len(spaces)} spaces ({shown}): "
                                   "no positions written, pictures lay the map out from its connections",
                           file=where))
    else:
        for space in spaces:
            x, y = centers[space["name"]]
            space["position"] = [int(x) if x.is_integer() else x, int(y) if y.is_integer() else y]
    if unknown:
        out.append(warning("U143", f"{where} has centres for {len(unknown)} names the game has no space of "
                                   f"({', '.join(unknown[:5])}{' ...' if len(unknown) > 5 else ''}); they are passed over",
                           file=where))
    return out
