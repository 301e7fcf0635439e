"""Territory centres from a TripleA map folder, as the spaces' `position` in a map.

A TripleA map folder (the one holding `games/` and the map's pictures) gives points in pixels of
the map's picture, y downwards, one line a territory: `Name  (x,y)  (x,y) ...`. Three of its files
carry them, read in this order of preference:

- `centers.txt`: the territory's centre (the first point);
- `place.txt`: where its units are drawn, for every territory and sea zone (the mean of the points
  is a good centre);
- `pu_place.txt`: where its production value is drawn (the first point), land with a value only.

A space takes its centre from the first of these files that names it; all come from one folder,
so from one picture. A space none names is placed at the mean of its neighbours' positions
(repeated until nothing moves: the positions a rubber-band graph pinned at the known centres
takes), across the picture's edge when the map wraps around (`map.scrollWrapX` and `map.width` in
the folder's `map.properties`). Positions are written only when every space has one; a space
with no placed space in its part of the board leaves the map without positions (a picture mixing
positions and a derived layout would mislead), with a warning.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path

from ruleslang.base.diagnostics import Diagnostic, DiagnosticError, error, warning
from ruleslang.base.source import Source, span_at

CENTRE_FILES = ("centers.txt", "place.txt", "pu_place.txt")  # in order of preference
MEAN_OF_POINTS = {"place.txt"}  # files whose line lists many points, the centre being their mean
PROPERTIES_FILE = "map.properties"
CENTERS_FILE = CENTRE_FILES[0]
_NAME = re.compile(r"^(?P<name>[^(]*?)\s*\(")
_POINT = re.compile(r"\(\s*(-?\d+(?:\.\d+)?)\s*,\s*(-?\d+(?:\.\d+)?)\s*\)")
_REST = re.compile(r"^(\s*\(\s*-?\d+(?:\.\d+)?\s*,\s*-?\d+(?:\.\d+)?\s*\))*\s*$")
RELAX_ROUNDS = 2000  # enough for a board of a few hundred spaces to settle within a tenth of a pixel
SETTLED = 0.05


def _folders(folder: Path) -> tuple[Path, Path]:
    return folder, folder / "map"


def centre_files(folder: Path | str) -> list[Path]:
    """The files of a map folder (directly in it, or in its `map/`) that give centres, best first;
    U141 when there is none."""
    folder = Path(folder)
    found = [place / name for name in CENTRE_FILES for place in _folders(folder) if (place / name).is_file()]
    if not found:
        raise DiagnosticError(error("U141", f"--map-folder {folder}: none of {', '.join(CENTRE_FILES)} in it or in "
                                            "its map/ folder", file=str(folder),
                                    hint="name the TripleA map folder, the one holding games/ and the map's pictures"))
    return found


def centers_path(folder: Path | str) -> Path:
    """The best file of centres of a map folder (see `centre_files`)."""
    return centre_files(folder)[0]


def read_points(path: Path | str) -> dict[str, list[tuple[float, float]]]:
    """Territory name -> the points of its line; U141 when unreadable, U142 at a line that is not
    `Name  (x,y) ...`. The first line naming a territory counts."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as exc:
        raise DiagnosticError(error("U141", f"cannot read {path}: {getattr(exc, 'strerror', None) or exc}",
                                    file=str(path))) from None
    source = Source(str(path), text)
    points: dict[str, list[tuple[float, float]]] = {}
    problems = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        m = _NAME.match(line.strip())
        rest = line.strip()[m.end() - 1:] if m else ""
        if m is None or not m.group("name") or not _REST.match(rest):
            problems.append(error("U142", f"expected a territory name and its points, as `Name  (x,y)`; found "
                                          f"'{line.strip()[:60]}'", span_at(source, number, 1, len(line))))
            continue
        found = [(float(x), float(y)) for x, y in _POINT.findall(rest)]
        points.setdefault(m.group("name"), found)
    if problems:
        raise DiagnosticError(problems)
    return points


def read_centers(path: Path | str) -> dict[str, tuple[float, float]]:
    """Territory name -> its centre, from one file: the mean of a line's points in `place.txt`,
    the first point elsewhere."""
    path = Path(path)
    out = {}
    for name, points in read_points(path).items():
        if path.name in MEAN_OF_POINTS:
            out[name] = (sum(p[0] for p in points) / len(points), sum(p[1] for p in points) / len(points))
        else:
            out[name] = points[0]
    return out


def folder_centres(folder: Path | str) -> tuple[dict[str, tuple[float, float]], list[Path]]:
    """Every territory's centre from the map folder's files, each from the best file naming it;
    and the files read."""
    files = centre_files(folder)
    centres: dict[str, tuple[float, float]] = {}
    for path in files:
        for name, point in read_centers(path).items():
            centres.setdefault(name, point)
    return centres, files


def wrap_width(folder: Path | str) -> float | None:
    """The picture's width when the map wraps around left to right (TripleA's `map.scrollWrapX`
    with `map.width` in `map.properties`), else None."""
    for place in _folders(Path(folder)):
        path = place / PROPERTIES_FILE
        if path.is_file():
            values = {}
            for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
                key, sep, value = line.partition("=")
                if sep:
                    values[key.strip()] = value.strip()
            try:
                width = float(values.get("map.width", ""))
            except ValueError:
                return None
            return width if values.get("map.scrollWrapX", "").lower() == "true" and width > 0 else None
    return None


def _neighbours(data: dict) -> dict[str, list[str]]:
    """Each space's neighbours in the map data (its `neighbours` and `connections`), sorted."""
    out: dict[str, set[str]] = {s["name"]: set() for s in data.get("spaces") or []}
    pairs = [(s["name"], n) for s in data.get("spaces") or [] for n in s.get("neighbours") or []]
    pairs += [tuple(c[:2]) for c in data.get("connections") or [] if isinstance(c, list) and len(c) >= 2]
    for a, b in pairs:
        if a in out and b in out and a != b:
            out[a].add(b)
            out[b].add(a)
    return {name: sorted(others) for name, others in out.items()}


def _mean(reference: tuple[float, float], points: list[tuple[float, float]], wrap: float | None):
    """The mean of `points`, each x taken as near `reference` as the wrap allows."""
    dx = dy = 0.0
    for x, y in points:
        d = x - reference[0]
        if wrap:
            d = (d + wrap / 2) % wrap - wrap / 2
        dx += d
        dy += y - reference[1]
    x = reference[0] + dx / len(points)
    return (x % wrap if wrap else x), reference[1] + dy / len(points)


def derive_positions(neighbours: Mapping[str, list[str]], known: Mapping[str, tuple[float, float]],
                     wrap: float | None = None) -> dict[str, tuple[float, float]]:
    """Positions for the spaces `known` lacks, each the mean of its neighbours' (repeated until they
    settle), in the order a search outwards from the known spaces reaches them. Spaces no known
    space reaches are left out. A derived space that would sit on another one (an island whose
    only neighbour is its sea zone) is moved down until it stands apart."""
    placed = dict(known)
    order: list[str] = []
    frontier = sorted(known)
    while frontier:
        nxt = sorted({n for name in frontier for n in neighbours.get(name, ()) if n not in placed})
        reached = set(nxt)
        for name in nxt:
            anchors = [placed[n] for n in neighbours[name] if n in placed and n not in reached]
            placed[name] = _mean(anchors[0], anchors, wrap)
        order.extend(nxt)
        frontier = nxt
    for _ in range(RELAX_ROUNDS):
        moved = 0.0
        for name in order:
            old = placed[name]
            placed[name] = _mean(old, [placed[n] for n in neighbours[name]], wrap)
            moved = max(moved, abs(placed[name][0] - old[0]), abs(placed[name][1] - old[1]))
        if moved < SETTLED:
            break
    xs = [p[0] for p in placed.values()]
    ys = [p[1] for p in placed.values()]
    gap = 0.015 * max(max(xs) - min(xs), max(ys) - min(ys), 1.0)
    taken = [placed[n] for n in known]
    out = {}
    for name in order:
        x, y = placed[name]
        while any(abs(x - a) < gap and abs(y - b) < gap for a, b in taken):
            y += gap
        taken.append((x, y))
        out[name] = (x, y)
    return out


def _number(value: float) -> int:
    return int(round(value))


def add_positions(data: dict, centers: Mapping[str, tuple[float, float]], where: str,
                  wrap: float | None = None) -> list[Diagnostic]:
    """Give each space of the map data its centre as `position`, placing the spaces without one at
    the mean of their neighbours; the warnings (U143) say how many were placed so, which spaces
    could not be placed (then no positions are written), and which centres name no space."""
    spaces = data.get("spaces") or []
    names = {s["name"] for s in spaces}
    known = {n: p for n, p in centers.items() if n in names}
    unknown = sorted(n for n in centers if n not in names)
    derived = derive_positions(_neighbours(data), known, wrap) if known else {}
    missing = [s["name"] for s in spaces if s["name"] not in known and s["name"] not in derived]
    out = []

    def listed(items: list[str]) -> str:
        return ", ".join(items[:5]) + (f" and {len(items) - 5} more" if len(items) > 5 else "")

    if missing:
        out.append(warning("U143", f"{where} has no centre for {len(missing)} of the {len(spaces)} spaces "
                                   f"({listed(missing)}), and no neighbour to place them by: no positions written, "
                                   "pictures lay the map out from its connections", file=where))
    else:
        if derived:
            out.append(warning("U143", f"{where} has no centre for {len(derived)} of the {len(spaces)} spaces "
                                       f"({listed(sorted(derived))}): each placed at the mean of its neighbours' "
                                       "positions", file=where))
        for space in spaces:
            x, y = known.get(space["name"]) or derived[space["name"]]
            space["position"] = [_number(x), _number(y)]
    if unknown:
        out.append(warning("U143", f"{where} has centres for {len(unknown)} names the game has no space of "
                                   f"({', '.join(unknown[:5])}{' ...' if len(unknown) > 5 else ''}); they are passed over",
                           file=where))
    return out
