"""Board pictures: a map or game state drawn as a graph, in SVG or a self-contained HTML page.

A map whose every space has a `position` (its centre on the map's picture, as TripleA map
folders give it) is drawn by those positions; a connection between the picture's two edges (a
map wrapping around) is drawn as two lines running off them. Otherwise, game files carrying no coordinates, the
spaces are laid out by networkx's force-directed (spring) layout with a fixed seed: the same
board always gives the same picture. Land is
coloured by its controller, sea zones blue-grey, impassable land dark grey; each space lists
its units, and a square marks a factory.
"""

from __future__ import annotations

import functools
import html
from collections import Counter

import networkx

from ruleslang.board.mapdata import GameMap, natural_sorted
from ruleslang.board.queries import BoardQueries
from ruleslang.board.document import as_state, units_by_space
from ruleslang.board.state import GameState

FORMATS = ("svg", "html")
WIDTH, HEIGHT, MARGIN = 1800, 1200, 60
SEA_COLOR = "#9fb3c8"
UNOWNED_COLOR = "#e4dfd3"
IMPASSABLE_COLOR = "#8d8d8d"
EDGE_COLORS = {"land": "#8a7f6a", "sea": "#7f9bb8", "coast": "#c9cfd6"}
# Used for players whose map gives no colour, in the map's player order.
PALETTE = ("#c0392b", "#2c3e50", "#d4a017", "#27ae60", "#8e44ad", "#16a085", "#d35400",
           "#2980b9", "#7f8c8d", "#a0522d", "#e67e22", "#1abc9c")
LAYOUT_SEED = 7


def player_colors(game_map: GameMap) -> dict[str, str]:
    """A colour for every player: the map's own, else one of a fixed palette."""
    colors = {}
    for index, player in enumerate(game_map.players):
        colors[player.name] = player.color or PALETTE[index % len(PALETTE)]
    return colors


def canvas_size(game_map: GameMap) -> tuple[int, int]:
    """Picture size: larger boards get a larger canvas so labels stay apart."""
    scale = max(1.0, (len(game_map.spaces) / 143) ** 0.5)
    return round(WIDTH * scale), round(HEIGHT * scale)


def _spring(graph: networkx.Graph) -> dict[str, tuple[float, float]]:
    """A seeded spring layout scaled into the unit square."""
    if len(graph) == 1:
        return {next(iter(graph)): (0.5, 0.5)}
    positions = networkx.spring_layout(graph, seed=LAYOUT_SEED, iterations=200,
                                       k=2.2 / max(1, len(graph)) ** 0.5)
    xs = [p[0] for p in positions.values()]
    ys = [p[1] for p in positions.values()]
    span_x, span_y = (max(xs) - min(xs)) or 1.0, (max(ys) - min(ys)) or 1.0
    return {n: ((x - min(xs)) / span_x, (y - min(ys)) / span_y) for n, (x, y) in positions.items()}


@functools.lru_cache(maxsize=8)
def layout(game_map: GameMap) -> dict[str, tuple[float, float]]:
    """Space name -> (x, y) in picture coordinates.

    The largest connected part of the board fills the canvas; smaller parts (a space with no
    connections at all) sit side by side in a strip along the bottom, so they do not squeeze it.
    """
    width, height = canvas_size(game_map)
    if by_position(game_map):
        return _by_position(game_map, width, height)
    graph = networkx.Graph()
    graph.add_nodes_from(natural_sorted(game_map.space_names()))
    for a, b in game_map.connections():
        # Land-land links pull harder so continents hold together.
        weight = 2.0 if game_map.space(a).kind == game_map.space(b).kind == "land" else 1.0
        graph.add_edge(a, b, weight=weight)
    parts = sorted((natural_sorted(c) for c in networkx.connected_components(graph)),
                   key=lambda names: (-len(names), names[0]))
    strip = 0.0 if len(parts) == 1 else 0.1 * height
    out: dict[str, tuple[float, float]] = {}
    boxes = [(MARGIN, MARGIN + 30, width - 2 * MARGIN, height - 2 * MARGIN - 30 - strip)]
    rest = parts[1:]
    for i in range(len(rest)):
        slot = (width - 2 * MARGIN) / len(rest)
        boxes.append((MARGIN + i * slot, height - MARGIN - strip, slot * 0.8, strip * 0.6))
    for names, (left, top, box_width, box_height) in zip(parts, boxes):
        for name, (x, y) in _spring(graph.subgraph(names)).items():
            out[name] = (round(left + x * box_width, 1), round(top + y * box_height, 1))
    return out


def by_position(game_map: GameMap) -> bool:
    """Whether the map is drawn by its spaces' positions (every space has one)."""
    return bool(game_map.spaces) and all(s.position is not None for s in game_map.spaces)


def _segments(a: tuple[float, float], b: tuple[float, float], width: int | None):
    """The lines drawing a connection: one, or, on a picture drawn by positions where the two ends
    lie more than half the picture apart (a map wrapping around left to right, as TripleA's world
    maps do), two running off the nearer edges so that no line crosses the whole board."""
    (x1, _), (x2, _) = a, b
    if width is None or abs(x2 - x1) <= width / 2:
        return [(a, b)]
    (lx, ly), (rx, ry) = (a, b) if x1 < x2 else (b, a)
    middle = round((ly + ry) / 2, 1)
    return [((lx, ly), (0, middle)), ((rx, ry), (width, middle))]


def _by_position(game_map: GameMap, width: int, height: int) -> dict[str, tuple[float, float]]:
    """The spaces at their own positions, scaled into the canvas (its shape kept, centred)."""
    xs = [s.position[0] for s in game_map.spaces]
    ys = [s.position[1] for s in game_map.spaces]
    span_x, span_y = (max(xs) - min(xs)) or 1.0, (max(ys) - min(ys)) or 1.0
    box_width, box_height = width - 2 * MARGIN, height - 2 * MARGIN - 30
    scale = min(box_width / span_x, box_height / span_y)
    left = MARGIN + (box_width - span_x * scale) / 2
    top = MARGIN + 30 + (box_height - span_y * scale) / 2
    return {s.name: (round(left + (s.position[0] - min(xs)) * scale, 1),
                     round(top + (s.position[1] - min(ys)) * scale, 1)) for s in game_map.spaces}


def _ink(color: str) -> str:
    """A player's colour dark enough to read as text on the light background."""
    r, g, b = (int(color[i:i + 2], 16) for i in (1, 3, 5))
    if 0.299 * r + 0.587 * g + 0.114 * b <= 140:
        return color
    return "#" + "".join(f"{int(c * 0.55):02x}" for c in (r, g, b))


def _attribute_lines(attributes) -> list[str]:
    """A space's map attributes as `name: value` lines (what they mean is the rulesets' business)."""
    return [f"{key}: {value}" for key, value in sorted(attributes.items())]


def _unit_lines(state: GameState, by_owner: dict[str, Counter]) -> list[str]:
    lines = []
    for player in state.map.player_names():
        counts = by_owner.get(player)
        if counts:
            listed = ", ".join(f"{n} {t}" for t, n in sorted(counts.items()))
            lines.append(f"{player}: {listed}")
    return lines


def _fill(state: GameState, name: str, colors: dict[str, str]) -> str:
    info = state.map.space(name)
    if info.kind == "sea":
        return SEA_COLOR
    if info.impassable:
        return IMPASSABLE_COLOR
    controller = state.control.get(name)
    return colors.get(controller, UNOWNED_COLOR) if controller else UNOWNED_COLOR


def render_svg(board: GameState | GameMap) -> str:
    """The board as an SVG document (deterministic: same board, same text)."""
    state = as_state(board)
    game_map = state.map
    where = layout(game_map)
    colors = player_colors(game_map)
    units = units_by_space(state)
    esc = html.escape
    width, height = canvas_size(game_map)
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
           f'viewBox="0 0 {width} {height}" font-family="sans-serif">',
           f"<title>{esc(game_map.title or game_map.name)}</title>",
           f'<rect width="{width}" height="{height}" fill="#f7f5ef"/>',
           '<g class="connections">']
    wraps = by_position(game_map)
    for a, b in game_map.connections():
        kinds = {game_map.space(a).kind, game_map.space(b).kind}
        edge = "coast" if len(kinds) == 2 else kinds.pop()
        for (x1, y1), (x2, y2) in _segments(where[a], where[b], width if wraps else None):
            out.append(f'<line x1="{x1}" y1="{y1}" x2="{x2}" y2="{y2}" stroke="{EDGE_COLORS[edge]}" '
                       f'stroke-width="{1.6 if edge == "land" else 1}"/>')
    out.append("</g>")
    out.append('<g class="spaces">')
    for name in natural_sorted(game_map.space_names()):
        info = game_map.space(name)
        x, y = where[name]
        fill = _fill(state, name, colors)
        lines = _unit_lines(state, units.get(name, {}))
        controller = state.control.get(name)
        tooltip = "\n".join([name, *_attribute_lines(info.attributes),
                             *([f"controlled by {controller}"] if controller else []), *lines])
        out.append(f'<g class="space {info.kind}"><title>{esc(tooltip)}</title>')
        radius = 7 if info.kind == "sea" else 11
        out.append(f'<circle cx="{x}" cy="{y}" r="{radius:.1f}" fill="{fill}" stroke="#333333" stroke-width="0.8"/>')
        factory = state.factories.get(name)
        if factory is not None:
            out.append(f'<rect x="{x + radius - 2:.1f}" y="{y - radius - 4:.1f}" width="7" height="7" '
                       f'fill="{colors.get(factory.owner, UNOWNED_COLOR)}" stroke="#000000" stroke-width="1"/>')
        out.append(f'<text x="{x}" y="{y + radius + 10:.1f}" font-size="9" text-anchor="middle" '
                   f'fill="#222222">{esc(name)}</text>')
        for i, line in enumerate(lines):
            owner = line.split(":", 1)[0]
            out.append(f'<text x="{x}" y="{y + radius + 19 + 8 * i:.1f}" font-size="7" text-anchor="middle" '
                       f'fill="{_ink(colors.get(owner, "#333333"))}">{esc(line)}</text>')
        out.append("</g>")
    out.append("</g>")
    out.extend(_legend(state, colors))
    out.append("</svg>")
    return "\n".join(out) + "\n"


def _legend(state: GameState, colors: dict[str, str]) -> list[str]:
    out = ['<g class="legend" font-size="12">']
    y = 20
    header = state.map.title or state.map.name
    turn = f"round {state.round}" + (f", {state.current_player}" if state.current_player else "") + (
        f", {state.phase}" if state.phase else "")
    out.append(f'<text x="14" y="{y}" font-size="14" font-weight="bold">{html.escape(header)} - {html.escape(turn)}</text>')
    for player in state.map.player_names():
        y += 16
        out.append(f'<rect x="14" y="{y - 10}" width="12" height="12" fill="{colors[player]}" stroke="#333333"/>')
        out.append(f'<text x="32" y="{y}">{html.escape(player)}</text>')
    y += 16
    out.append(f'<rect x="14" y="{y - 10}" width="12" height="12" fill="{SEA_COLOR}" stroke="#333333"/>')
    out.append(f'<text x="32" y="{y}">sea zone</text>')
    out.append("</g>")
    return out


def render_html(board: GameState | GameMap) -> str:
    """A self-contained page: the SVG, a table of players and a table of spaces."""
    state = as_state(board)
    queries = BoardQueries(state)
    colors = player_colors(state.map)
    units = units_by_space(state)
    esc = html.escape
    title = esc(state.map.title or state.map.name)
    rows = []
    for player in state.map.player_names():
        side = state.map.side_of(player) or ""
        rows.append(f'<tr><td><span class="swatch" style="background:{colors[player]}"></span>{esc(player)}</td>'
                    f"<td>{esc(side)}</td><td>{queries.treasury(player)}</td>"
                    f"<td>{len(queries.units(owner=player))}</td></tr>")
    spaces = []
    for name in natural_sorted(state.map.space_names()):
        info = state.map.space(name)
        factory = state.factories.get(name)
        spaces.append(
            f"<tr><td>{esc(name)}</td><td>{info.kind}</td><td>{esc('; '.join(_attribute_lines(info.attributes)))}</td>"
            f"<td>{esc(state.control.get(name) or '')}</td>"
            f"<td>{esc(factory.owner + (' ' + factory.kind if factory.kind else '')) if factory else ''}</td>"
            f"<td>{esc('; '.join(_unit_lines(state, units.get(name, {}))))}</td></tr>")
    return "\n".join([
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        f"<title>{title}</title>",
        "<style>body{font-family:sans-serif;margin:1em;background:#fbfaf6}"
        "table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #ccc;padding:2px 6px;font-size:13px}"
        "th{background:#eee}.swatch{display:inline-block;width:12px;height:12px;margin-right:6px;"
        "border:1px solid #333;vertical-align:middle}svg{max-width:100%;height:auto;border:1px solid #ccc}</style>",
        "</head><body>",
        f"<h1>{title}</h1>",
        f"<p>map <code>{esc(state.map.name)}</code>, round {state.round}"
        + (f", {esc(state.current_player)} to play" if state.current_player else "")
        + (f", phase {esc(state.phase)}" if state.phase else "") + "</p>",
        render_svg(state),
        "<h2>Players</h2>",
        "<table><tr><th>player</th><th>side</th><th>treasury</th><th>units</th></tr>",
        *rows,
        "</table>",
        "<h2>Spaces</h2>",
        "<table><tr><th>space</th><th>kind</th><th>attributes</th><th>controller</th><th>factory</th><th>units</th></tr>",
        *spaces,
        "</table>",
        "</body></html>",
    ]) + "\n"


def render_map(board: GameState | GameMap, fmt: str = "svg") -> str:
    """The board as `svg` or `html` text. A map alone is drawn at its starting position."""
    if fmt == "svg":
        return render_svg(board)
    if fmt == "html":
        return render_html(board)
    raise ValueError(f"a picture format is one of {', '.join(FORMATS)}, not '{fmt}'")
