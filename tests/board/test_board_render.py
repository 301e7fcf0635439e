"""Board pictures: deterministic SVG coloured by controller, and a self-contained HTML page."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ElementTree  # parses only our own output

import pytest

from ruleslang.board.render import SEA_COLOR, player_colors, render_map
from board_fixtures import aar, aar_queries, aar_state, facts, reference, roots, tiny  # noqa: F401,F811 (pytest fixtures, used by name)

SVG = "{http://www.w3.org/2000/svg}"


def space_group(svg_text: str, name: str):
    root = ElementTree.fromstring(svg_text)
    for group in root.iter(f"{SVG}g"):
        title = group.find(f"{SVG}title")
        if "space" in group.get("class", "") and title is not None and title.text.split("\n")[0].startswith(name):
            return group
    raise AssertionError(f"no space {name!r} in the picture")


def fill_of(svg_text: str, name: str) -> str:
    return space_group(svg_text, name).find(f"{SVG}circle").get("fill")


def test_svg_is_deterministic_and_shows_every_space(aar, aar_state):
    first = render_map(aar_state)
    assert first == render_map(aar_state) == render_map(aar)
    for space in aar.space_names():
        space_group(first, space)
    assert first.startswith("<svg") and first.rstrip().endswith("</svg>")


def test_spaces_are_coloured_by_controller(aar, aar_state):
    colors = player_colors(aar)
    assert fill_of(render_map(aar_state), "United Kingdom") == colors["British"]
    assert fill_of(render_map(aar_state), "6 Sea Zone") == SEA_COLOR
    aar_state.set_control("United Kingdom", "Germans")
    assert fill_of(render_map(aar_state), "United Kingdom") == colors["Germans"]


def test_units_and_factories_are_listed(aar_state):
    group = space_group(render_map(aar_state), "United Kingdom")
    lines = [t.text for t in group.findall(f"{SVG}text")]
    assert "British: 1 aaGun, 1 armour, 1 artillery, 1 bomber, 2 fighter, 2 infantry" in lines
    assert group.find(f"{SVG}rect") is not None  # the factory marker
    assert space_group(render_map(aar_state), "India").find(f"{SVG}rect") is None


def test_players_without_a_colour_get_distinct_ones(tiny):
    colors = player_colors(tiny)
    assert colors["Reds"] == "#cc2222" and len(set(colors.values())) == len(colors)
    render_map(tiny)  # a small board draws too


def test_html_page_is_self_contained(aar_state):
    page = render_map(aar_state, "html")
    assert page.startswith("<!DOCTYPE html>") and "<svg" in page
    urls = set(re.findall(r"https?://[^\s\"'<>]+", page))
    assert urls == {"http://www.w3.org/2000/svg"}  # the SVG namespace, never fetched
    assert "<script" not in page and "<link" not in page
    british = re.search(r"<tr><td><span[^>]*></span>British</td><td>Allies</td><td>(\d+)</td>", page)
    assert british.group(1) == "30"  # the treasury (income is the rulesets' formula, not the map's)
    assert "<td>Trans-Jordan</td><td>land</td><td>ipc: 1</td><td>British</td>" in page


def test_unknown_format_is_refused(aar):
    with pytest.raises(ValueError, match="svg, html"):
        render_map(aar, "png")
