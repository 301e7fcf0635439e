"""Spaces' positions: read from a TripleA map folder's centers.txt by the importer, kept in the
map YAML, and used by the pictures instead of the derived layout (only when every space has one)."""

from __future__ import annotations

import re
from pathlib import Path

import yaml

from ruleslang.base.yamlio import load_yaml
from ruleslang.base.source import Source
from ruleslang.board.mapdata import map_from_data
from ruleslang.board.render import layout, render_svg
from ruleslang.cli.app import main

GAME = Path(__file__).resolve().parent / "fixtures" / "tiny_game.xml"
# a hand-made centres file for the fixture's six spaces (the first point of a line is the centre)
CENTERS = {"Redland": (100, 400), "Marsh": (300, 420), "Peak": (500, 380), "Blueland": (700, 400),
           "1 Sea Zone": (200, 100), "2 Sea Zone": (600, 90)}


def _folder(tmp_path, centers, nested=True) -> Path:
    folder = tmp_path / "tiny_map"
    target = folder / "map" if nested else folder
    target.mkdir(parents=True)
    (target / "centers.txt").write_text("".join(f"{n}  ({x},{y}) ({x + 5},{y})\n" for n, (x, y) in centers.items()))
    return folder


def _imported(tmp_path, centers, capsys, nested=True):
    out = tmp_path / "out"
    code = main(["import-triplea", str(GAME), "-o", str(out), "-q", "--map-folder", str(_folder(tmp_path, centers, nested))])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    path = next((out / "maps").glob("*.yaml"))
    return path, captured


def test_the_importer_writes_each_spaces_centre_and_pictures_follow_it(tmp_path, capsys):
    path, _ = _imported(tmp_path, CENTERS, capsys)
    data = yaml.safe_load(path.read_text())
    assert {s["name"]: tuple(s["position"]) for s in data["spaces"]} == CENTERS
    game_map = map_from_data(*load_yaml(Source(str(path), path.read_text())))
    where = layout(game_map)
    # the picture keeps the map's geography: left to right and top to bottom as the centres say
    by_x = sorted(CENTERS, key=lambda n: CENTERS[n][0])
    assert sorted(where, key=lambda n: where[n][0]) == by_x
    assert where["1 Sea Zone"][1] < where["Redland"][1] and where["2 Sea Zone"][1] < where["Peak"][1]
    # one scale for both axes: the distances keep their proportions
    ratio = (where["Blueland"][0] - where["Redland"][0]) / (CENTERS["Blueland"][0] - CENTERS["Redland"][0])
    assert abs((where["Redland"][1] - where["1 Sea Zone"][1]) - ratio * 300) < 1
    assert f'cx="{where["Marsh"][0]}" cy="{where["Marsh"][1]}"' in render_svg(game_map)


def test_centres_in_the_folder_itself_are_found_too(tmp_path, capsys):
    path, _ = _imported(tmp_path, CENTERS, capsys, nested=False)
    assert all("position" in s for s in yaml.safe_load(path.read_text())["spaces"])


def test_a_missing_centre_writes_no_positions_and_says_which(tmp_path, capsys):
    partial = {n: p for n, p in CENTERS.items() if n != "Peak"}
    partial["Atlantis"] = (1, 1)
    path, captured = _imported(tmp_path, partial, capsys)
    assert not any("position" in s for s in yaml.safe_load(path.read_text())["spaces"])
    assert "U143" in captured.err and "1 of the 6 spaces (Peak)" in captured.err
    assert "Atlantis" in captured.err


def test_a_malformed_centres_line_is_located(tmp_path, capsys):
    folder = _folder(tmp_path, CENTERS)
    centers = folder / "map" / "centers.txt"
    centers.write_text(centers.read_text() + "Nowhere at all\n")
    assert main(["import-triplea", str(GAME), "-o", str(tmp_path / "out"), "--map-folder", str(folder)]) == 2  # U codes exit 2
    err = capsys.readouterr().err
    assert re.search(r"centers\.txt:7:1: error\[U142\]", err), err
    assert main(["import-triplea", str(GAME), "-o", str(tmp_path / "out"), "--map-folder", str(tmp_path)]) == 2
    assert "U141" in capsys.readouterr().err


def test_a_position_of_the_wrong_shape_is_refused_by_the_map_schema(tmp_path, capsys):
    path, _ = _imported(tmp_path, CENTERS, capsys)
    path.write_text(path.read_text().replace("position: [100, 400]", "position: [100]", 1))
    assert main(["map", "show", str(path)]) == 1
    assert "position" in capsys.readouterr().err
