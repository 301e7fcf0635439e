"""Spaces' positions: read from a TripleA map folder's centers.txt, place.txt or pu_place.txt by
the importer (a space none names placed at the mean of its neighbours), kept in the map YAML, carried
by the embedded maps, and used by the pictures instead of the derived layout (only when every space
has one)."""

from __future__ import annotations

import re
from pathlib import Path

import yaml

from ruleslang.base.yamlio import load_yaml
from ruleslang.base.source import Source
from ruleslang.board.mapdata import load_map, map_from_data
from ruleslang.board.render import canvas_size, layout, render_svg
from ruleslang.cli.app import main

GAME = Path(__file__).resolve().parent / "fixtures" / "tiny_game.xml"
REPO = Path(__file__).resolve().parents[2]
MAPS = REPO / "rulesets" / "maps"
EMBEDDED = ("aar", "aa50-1942", "g40")
# a hand-made centres file for the fixture's six spaces (the first point of a line is the centre)
CENTERS = {"Redland": (100, 400), "Marsh": (300, 420), "Peak": (500, 380), "Blueland": (700, 400),
           "1 Sea Zone": (200, 100), "2 Sea Zone": (600, 90)}


def _folder(tmp_path, centers, nested=True, file="centers.txt") -> Path:
    folder = tmp_path / "tiny_map"
    target = folder / "map" if nested else folder
    target.mkdir(parents=True, exist_ok=True)
    (target / file).write_text("".join(f"{n}  ({x},{y}) ({x + 5},{y})\n" for n, (x, y) in centers.items()))
    return folder


def _imported(tmp_path, centers, capsys, nested=True, file="centers.txt"):
    out = tmp_path / "out"
    folder = _folder(tmp_path, centers, nested, file)
    code = main(["import-triplea", str(GAME), "-o", str(out), "-q", "--map-folder", str(folder)])
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


def test_a_space_with_no_centre_is_placed_by_its_neighbours(tmp_path, capsys):
    partial = {n: p for n, p in CENTERS.items() if n != "Blueland"}
    partial["Atlantis"] = (1, 1)
    path, captured = _imported(tmp_path, partial, capsys)
    where = {s["name"]: s["position"] for s in yaml.safe_load(path.read_text())["spaces"]}
    # Blueland's neighbours are Marsh (300, 420) and 2 Sea Zone (600, 90): it sits at their mean
    assert where["Blueland"] == [450, 255]
    assert {n: tuple(p) for n, p in where.items() if n != "Blueland"} == {n: p for n, p in partial.items()
                                                                            if n != "Atlantis"}
    assert "U143" in captured.err and "1 of the 6 spaces (Blueland)" in captured.err
    assert "mean of its neighbours" in captured.err and "Atlantis" in captured.err


def test_a_space_with_its_only_neighbour_placed_stands_apart_from_it(tmp_path, capsys):
    partial = {n: p for n, p in CENTERS.items() if n != "Peak"}  # Peak's one neighbour is Marsh
    path, _ = _imported(tmp_path, partial, capsys)
    where = {s["name"]: s["position"] for s in yaml.safe_load(path.read_text())["spaces"]}
    assert where["Peak"][0] == where["Marsh"][0] and where["Peak"][1] > where["Marsh"][1]


def test_no_centre_anywhere_writes_no_positions_and_says_which(tmp_path, capsys):
    path, captured = _imported(tmp_path, {"Atlantis": (1, 1)}, capsys)
    assert not any("position" in s for s in yaml.safe_load(path.read_text())["spaces"])
    assert "U143" in captured.err and "6 of the 6 spaces" in captured.err and "no positions written" in captured.err


def test_place_txt_gives_the_mean_of_its_points(tmp_path, capsys):
    # each line has two points, (x, y) and (x + 5, y): their mean is x + 2.5, rounded to even
    path, _ = _imported(tmp_path, CENTERS, capsys, file="place.txt")
    where = {s["name"]: tuple(s["position"]) for s in yaml.safe_load(path.read_text())["spaces"]}
    assert where == {n: (round(x + 2.5), y) for n, (x, y) in CENTERS.items()}


def test_centers_txt_wins_over_pu_place_which_fills_in(tmp_path, capsys):
    land = {n: p for n, p in CENTERS.items() if "Sea" not in n}
    _folder(tmp_path, {"Redland": (110, 410)}, file="centers.txt")
    path, captured = _imported(tmp_path, land, capsys, file="pu_place.txt")
    where = {s["name"]: tuple(s["position"]) for s in yaml.safe_load(path.read_text())["spaces"]}
    assert where["Redland"] == (110, 410) and where["Peak"] == CENTERS["Peak"]
    # the sea zones, which pu_place.txt does not name, are placed by their neighbours
    assert where["1 Sea Zone"] != where["2 Sea Zone"] and "2 of the 6 spaces" in captured.err


def test_a_wrapping_map_places_a_space_across_its_edge(tmp_path, capsys):
    """On a picture 1000 wide that wraps around, a space between x 950 and x 50 sits by the edge."""
    centers = {"Redland": (950, 400), "Marsh": (960, 420), "Peak": (970, 380), "Blueland": (50, 400),
               "1 Sea Zone": (940, 100)}
    folder = _folder(tmp_path, centers)
    (folder / "map.properties").write_text("map.width=1000\nmap.scrollWrapX=true\n")
    out = tmp_path / "out"
    assert main(["import-triplea", str(GAME), "-o", str(out), "-q", "--map-folder", str(folder)]) == 0
    capsys.readouterr()
    where = {s["name"]: s["position"] for s in yaml.safe_load(next((out / "maps").glob("*.yaml")).read_text())["spaces"]}
    # 2 Sea Zone's neighbours: 1 Sea Zone (940, 100) and Blueland (50, 400), 110 apart across the edge
    assert where["2 Sea Zone"] == [995, 250]


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


def _embedded(name):
    return load_map(str(MAPS / f"{name}.yaml"), [MAPS])


def test_every_space_of_each_embedded_map_has_a_position_of_its_own():
    for name in EMBEDDED:
        game_map = _embedded(name)
        points = [s.position for s in game_map.spaces]
        assert all(p is not None for p in points), name
        assert len(set(points)) == len(points), name


def test_the_embedded_maps_keep_their_geography():
    """West of east and north of south, as the maps' pictures have it (the Americas, split by the
    pictures' edge, are left alone)."""
    facts = {
        "aar": {"west_to_east": ["Western Europe", "Germany", "West Russia", "Russia", "Japan"],
                "north_to_south": ["Norway", "Germany", "Southern Europe", "Libya", "Union of South Africa"],
                # two placed by their neighbours (pu_place.txt names neither)
                "derived": [("Spain", "west of", "Germany"), ("Sweden", "north of", "Southern Europe")]},
        "aa50-1942": {"west_to_east": ["France", "Germany", "Ukraine", "Russia", "Japan"],
                      "north_to_south": ["Norway", "Germany", "Italy", "Egypt", "Union of South Africa"]},
        "g40": {"west_to_east": ["France", "Germany", "Poland", "Russia", "Japan"],
                "north_to_south": ["Norway", "Denmark", "Germany", "Northern Italy", "Southern Italy", "Libya"]},
    }
    for name, fact in facts.items():
        where = {s.name: s.position for s in _embedded(name).spaces}
        xs = [where[n][0] for n in fact["west_to_east"]]
        ys = [where[n][1] for n in fact["north_to_south"]]
        assert xs == sorted(xs) and len(set(xs)) == len(xs), (name, xs)
        assert ys == sorted(ys) and len(set(ys)) == len(ys), (name, ys)
        for a, relation, b in fact.get("derived", []):
            axis = 0 if relation == "west of" else 1
            assert where[a][axis] < where[b][axis], (name, a, relation, b)


def test_the_embedded_maps_positions_are_the_table_gen_maps_writes():
    """tools/map_positions.yaml holds each map's centres and their source; the maps carry them."""
    table = yaml.safe_load((REPO / "tools" / "map_positions.yaml").read_text(encoding="utf-8"))
    assert sorted(table) == sorted(EMBEDDED)
    for name in EMBEDDED:
        data = yaml.safe_load((MAPS / f"{name}.yaml").read_text(encoding="utf-8"))
        where = {s["name"]: s["position"] for s in data["spaces"]}
        assert {n: where[n] for n in table[name]["centres"]} == table[name]["centres"], name
        source = data["source"]["positions"]
        assert (source["repository"], source["path"], source["commit"]) == (
            table[name]["repository"], table[name]["path"], table[name]["commit"])


def test_pictures_of_the_embedded_maps_follow_their_positions():
    game_map = _embedded("aar")
    where = layout(game_map)
    assert where["Western Europe"][0] < where["Germany"][0] < where["Russia"][0]
    svg = render_svg(game_map)
    assert f'cx="{where["Germany"][0]}" cy="{where["Germany"][1]}"' in svg
    # Eastern and Central United States lie at the picture's two edges (it wraps around): their
    # connection runs off both edges instead of across the board
    width = canvas_size(game_map)[0]
    east, central = where["Eastern United States"], where["Central United States"]
    assert east[0] < width / 4 and central[0] > 3 * width / 4
    assert f'<line x1="{east[0]}" y1="{east[1]}" x2="0"' in svg
    assert f'<line x1="{central[0]}" y1="{central[1]}" x2="{width}"' in svg
    assert f'x1="{east[0]}" y1="{east[1]}" x2="{central[0]}"' not in svg
    assert f'x1="{central[0]}" y1="{central[1]}" x2="{east[0]}"' not in svg
