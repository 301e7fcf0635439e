"""Pictures of a recorded game: `replay --html` (a page over the rounds) and `map show --save`.

One short game of the house rules is played once for the module (two rounds, random agents: it
has battles, a raid and house rules' messages); the page is checked against its log. The page in
a real browser is tests/test_reports_browser.py's business.
"""

from __future__ import annotations

import json
import re

import pytest

from ruleslang.cli.app import main

ROUNDS = 2


@pytest.fixture(scope="module")
def game(tmp_path_factory):
    folder = tmp_path_factory.mktemp("game")
    log = folder / "game.jsonl"
    save = folder / "game.json"
    assert main(["play", "--ruleset", "aar/house-rules@1", "--seed", "5", "--rounds", str(ROUNDS), "--agent",
                 "random", "--log", str(log), "--save", str(save)]) == 0
    page = folder / "game.html"
    assert main(["replay", str(log), "--html", str(page)]) == 0
    events = [json.loads(line) for line in log.read_text().splitlines()[2:]]
    return {"log": log, "save": save, "page": page.read_text(encoding="utf-8"), "events": events,
            "folder": folder}


def _rounds_of(events):
    """The events of each round (index 0: before the first round)."""
    out = [[]]
    for event in events:
        if event["kind"] == "round":
            out.append([])
        out[-1].append(event)
    return out


def _frames(page):
    return re.findall(r'<div class="frame" id="frame-(\d+)" data-label="([^"]*)"( hidden)?>(.*?)</aside></div>',
                      page, re.S)


def test_the_page_has_the_start_and_every_round_and_shows_the_last(game):
    frames = _frames(game["page"])
    assert [label for _, label, _, _ in frames] == ["start"] + [f"round {n}" for n in range(1, ROUNDS + 1)]
    assert [bool(hidden) for _, _, hidden, _ in frames] == [True] * ROUNDS + [False]
    assert f'max="{ROUNDS}"' in game["page"] and f'value="{ROUNDS}"' in game["page"]
    for _, _, _, body in frames:
        assert body.count("<svg") == 1
    # the embedded map carries its spaces' positions, and the page says it is drawn by them
    assert "laid out by the spaces&#x27; positions on the map" in game["page"]


def test_each_round_shows_its_battles_raids_control_and_rule_messages(game):
    frames = _frames(game["page"])
    rounds = _rounds_of(game["events"])
    assert any(e["kind"] == "raid" for e in game["events"]), "the seed was chosen for a game with a raid"
    for number in range(1, ROUNDS + 1):
        aside = frames[number][3].split("<aside>", 1)[1]
        for event in rounds[number]:
            if event["kind"] == "battle":
                assert f"{event['space']}: {event['attacker']} against {event['defender']}" in aside
            if event["kind"] == "raid":
                assert f"{event['space']}: {event['attacker']} against {event['defender']}" in aside
            if event["kind"] == "control":
                assert f"{event['space']}: {event['before'] or 'nobody'} \u2192 {event['after']}" in aside
            if event["kind"] == "log":
                assert f"What {event['by']} did" in aside
                assert json.dumps(event["message"])[1:-1].replace("&", "&amp;") in aside


def test_the_board_of_each_round_is_coloured_by_its_control(game):
    """A space whose control changed in a round is drawn in its new controller's colour after it."""
    changes = [e for e in game["events"] if e["kind"] == "control"]
    assert changes
    colors = {p["name"]: p["color"] for p in _map_players()}
    frames = _frames(game["page"])
    last = frames[-1][3]
    final = {}
    for change in changes:
        final[change["space"]] = change["after"]
    for space, owner in final.items():
        drawn = re.search(r"<title>" + re.escape(space) + r"\n.*?</title>\s*<circle [^>]*fill=\"([^\"]+)\"", last, re.S)
        assert drawn and drawn.group(1) == colors[owner], space


def _map_players():
    import yaml
    from ruleslang.base.paths import packaged_root
    return yaml.safe_load((packaged_root() / "maps" / "aar.yaml").read_text())["players"]


def test_the_page_needs_no_network(game):
    page = game["page"]
    assert not re.search(r"<(script|link|img)[^>]+(src|href)=", page)
    assert "@import" not in page and "url(" not in page


def test_map_show_save_draws_the_board_the_page_ends_with(game, capsys):
    out = game["folder"] / "end.svg"
    assert main(["map", "show", "--save", str(game["save"]), "-o", str(out)]) == 0
    last = _frames(game["page"])[-1][3]
    assert out.read_text(encoding="utf-8").strip() in last


def test_map_show_takes_a_map_or_a_save_not_both_nor_neither(game, capsys):
    assert main(["map", "show"]) == 2  # a usage error
    assert "U140" in capsys.readouterr().err
    assert main(["map", "show", "aar", "--save", str(game["save"])]) == 2
    assert "U140" in capsys.readouterr().err


def test_a_record_that_replays_otherwise_writes_no_page(game, capsys):
    lines = game["log"].read_text().splitlines()
    rolls = [i for i, line in enumerate(lines) if '"kind": "roll"' in line or '"kind":"roll"' in line]
    assert rolls
    event = json.loads(lines[rolls[0]])
    event["value"] = 7 if event.get("value") != 7 else 8
    lines[rolls[0]] = json.dumps(event)
    changed = game["folder"] / "changed.jsonl"
    changed.write_text("\n".join(lines) + "\n")
    page = game["folder"] / "changed.html"
    assert main(["replay", str(changed), "--html", str(page)]) == 1
    assert not page.exists()
    assert "not written" in capsys.readouterr().err
    assert main(["map", "show", "--save", str(changed)]) == 1
    assert "G710" in capsys.readouterr().err
