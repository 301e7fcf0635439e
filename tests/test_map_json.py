"""`ruleslang map show --format json`: the board as data."""

from __future__ import annotations

import json

from test_cli import run_cli


def test_map_show_json_describes_the_start():
    code, out = run_cli(["map", "show", "aar", "--format", "json"])
    assert code == 0
    doc = json.loads(out)
    assert doc["map"] == "aar" and doc["round"] == 1
    spaces = {s["name"]: s for s in doc["spaces"]}
    players = [p["name"] for p in doc["players"]]
    assert set(doc["turn_order"]) <= set(players)
    for space in doc["spaces"]:
        assert space["kind"] in ("land", "sea")
        assert all(n in spaces for n in space["neighbours"])
        assert all(owner in players for owner in space["units"])
        assert space["controller"] is None or space["controller"] in players
    # adjacency is symmetric and every unit count is positive
    for name, space in spaces.items():
        assert all(name in spaces[n]["neighbours"] for n in space["neighbours"])
        assert all(n > 0 for counts in space["units"].values() for n in counts.values())
    assert any(s["factory"] is not None for s in doc["spaces"])
    assert sum(n for s in doc["spaces"] for c in s["units"].values() for n in c.values()) > 100


def test_map_show_json_of_a_scenario_and_to_a_file(tmp_path):
    scenario = tmp_path / "s.yaml"
    scenario.write_text("map: aar\ncontrol: {Germany: Russians}\n", encoding="utf-8")
    out_file = tmp_path / "board.json"
    code, out = run_cli(["map", "show", "aar", "--scenario", str(scenario), "--format", "json", "-o", str(out_file)])
    assert code == 0, out
    doc = json.loads(out_file.read_text(encoding="utf-8"))
    assert {s["name"]: s for s in doc["spaces"]}["Germany"]["controller"] == "Russians"


def test_map_show_json_to_a_picture_file_is_u108(tmp_path):
    code, out = run_cli(["map", "show", "aar", "--format", "json", "-o", str(tmp_path / "x.svg")])
    assert code == 2 and "U108" in out
