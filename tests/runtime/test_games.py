"""Whole games: every composition finishes with random and heuristic players and gives a result;
the same rulesets, seed and agents give a byte-identical log under any PYTHONHASHSEED; and the
`ruleslang play` command line."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from game_fixtures import events, make_game, orders_file, read_log, scenario_file
from ruleslang.cli.app import main

COMPOSITIONS = {
    "base": ["aar/base@1"],
    "house-rules": ["aar/house-rules@1"],
    "raiding-1+cities-1": ["aar/base@1", "aar/commerce-raiding@1", "aar/victory-cities@1"],
    "house-turn+raiding-2": ["aar/base@1", "aar/turn-sequence@1", "aar/commerce-raiding@2"],
    "infrastructure-defense+cities-2": ["aar/base@1", "aar/infrastructure-defense@1", "aar/victory-cities@2"],
}
PLAYERS = ("Russians", "Germans", "British", "Japanese", "Americans")


def check_result(game, result: dict, rounds: int) -> None:
    assert result["rounds_played"] == len(game.summaries)
    assert 1 <= result["rounds_played"] <= rounds
    assert result["reason"]
    assert set(result["treasury"]) == set(PLAYERS) and all(v >= 0 for v in result["treasury"].values())
    if result["winner"] is None:
        assert result["rounds_played"] == rounds
    else:
        assert events(game, "win")[-1]["side"] == result["winner"]
    for summary in game.summaries:
        assert set(summary.income) == set(PLAYERS)
        assert all(0 <= summary.collected[p] for p in PLAYERS)


@pytest.mark.parametrize("name", COMPOSITIONS)
@pytest.mark.parametrize("agent", ["random", "heuristic"])
def test_full_games_finish_under_every_composition(name, agent):
    rounds = 10 if agent == "random" else 6
    game = make_game(COMPOSITIONS[name], seed=11, default_agent=agent, rounds=rounds)
    result = game.run(rounds)
    check_result(game, result, rounds)
    assert result["scores"] == game.summaries[-1].scores
    assert sum(len(s.battles) for s in game.summaries) > 0


def test_heuristic_against_random_players_on_one_board():
    agents = {"Germans": "heuristic", "Japanese": "heuristic"}
    game = make_game(["aar/house-rules@1"], seed=2, default_agent="random", agents=agents, rounds=4)
    check_result(game, game.run(4), 4)
    assert {type(a).__name__ for a in game.agents.values()} == {"HeuristicAgent", "RandomAgent"}


@pytest.mark.parametrize("refs, round", [(["aar/base@1", "aar/victory-cities@2"], 3), (["aar/house-rules@1"], 2)])
def test_a_minor_victory_ends_the_game_after_the_agreed_round(refs, round):
    game = make_game(refs, seed=5, default_agent="random", settings=["victory=minor", f"minor_victory_round={round}"],
                     rounds=8)
    result = game.run(8)
    check_result(game, result, 8)
    assert result["rounds_played"] == round and result["reason"].startswith("minor victory")
    axis, allies = result["scores"]["Axis"], result["scores"]["Allies"]
    assert result["winner"] == ("Axis" if axis > allies else "Allies")


@pytest.mark.parametrize("victory, winner", [("projection_of_power", "Axis"), ("honorable_surrender", None),
                                             ("total_victory", None)])
def test_the_base_victory_option_decides_how_many_cities_win(victory, winner):
    nine = {"Russia": "Germans", "United Kingdom": "Germans", "India": "Japanese"}
    game = make_game(["aar/base@1"], scenario={"setup": "empty", "control": nine}, default_agent="random",
                     settings=[f"victory={victory}"], rounds=2)
    result = game.run(2)
    check_result(game, result, 2)
    assert result["winner"] == winner and result["scores"] == {"Allies": 3, "Axis": 9}


# ---------------------------------------------------------------- determinism


def test_the_log_is_byte_identical_under_any_hash_seed(tmp_path):
    args = ["--ruleset", "aar/house-rules@1", "--agent", "random", "--players", "Germans=heuristic",
            "--seed", "6", "--rounds", "2", "--quiet"]
    runs = []
    for hash_seed in ("0", "1", "4242"):
        folder = tmp_path / f"run{hash_seed}"        # and a different working folder each time
        folder.mkdir()
        env = {**os.environ, "PYTHONHASHSEED": hash_seed}
        proc = subprocess.Popen([sys.executable, "-m", "ruleslang", "play", *args, "--log", str(folder / "game.jsonl")],
                                cwd=folder, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        runs.append((folder, proc))
    logs = []
    for folder, proc in runs:
        out, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err
        assert out.startswith("Result: ")
        logs.append((folder / "game.jsonl").read_bytes())
    assert logs[0] == logs[1] == logs[2]
    assert len(logs[0].splitlines()) > 1000
    # and the same game in this process gives the same events
    game = make_game(["aar/house-rules@1"], seed=6, default_agent="random", agents={"Germans": "heuristic"}, rounds=2)
    game.run(2)
    # (the log's first line describes the game, its second gives the start; then the events)
    assert read_log(runs[0][0] / "game.jsonl")[2:] == json.loads(json.dumps(game.state.events))


# ---------------------------------------------------------------- the command line


def test_play_with_no_composition_plays_the_default_game(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(["play", "--rounds", "2", "--quiet"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert len(out) == 2                      # quiet: the result only, no round summaries
    assert out[0] in ("Result: no side won within 2 rounds; Allies lead on score",
                      "Result: no side won within 2 rounds; Axis lead on score") or " win after round " in out[0]
    assert out[1].startswith("  final score: Allies ")


def test_play_prints_a_summary_per_round_and_the_result_as_json(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(["play", "--ruleset", "aar/house-rules@1", "--agent", "random", "--rounds", "2", "--seed", "4",
                 "--format", "json"]) == 0
    captured = capsys.readouterr()
    # standard output is the JSON result alone; the rounds a person reads are on standard error, after
    # a header naming the rulesets played (the versions a revision builds on left out)
    err = captured.err
    assert err.startswith("Rulesets: aar/base@1, aar/turn-sequence@1, aar/commerce-raiding@2, aar/victory-cities@2, "
                          "aar/house-rules@1\nRound 1\n  income:   Russians 24")
    assert "\nRound 2\n" in err and "  score:    Allies " in err
    result = json.loads(captured.out)
    assert result["rounds_played"] == 2 and set(result["scores"]) == {"Allies", "Axis"}


def test_play_with_scripted_orders_from_a_file(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    orders = orders_file(tmp_path, {"Germans": [{"round": 1, "purchase": {"armour": 2},
                                                 "place": [{"at": "Germany", "units": ["armour", "armour"]}]}]})
    assert main(["play", "--ruleset", "aar/base@1", "--agent", "scripted", "--orders", orders, "--rounds", "1",
                 "--quiet", "--log", "game.jsonl"]) == 0
    log = read_log(tmp_path / "game.jsonl")
    assert [e["units"] for e in log if e["kind"] == "purchase" and e["player"] == "Germans"] == [{"armour": 2}]
    assert [e["unit_type"] for e in log if e["kind"] == "add_units"] == ["armour", "armour"]


@pytest.mark.parametrize("players, message", [
    ("Germans=bogus", "'bogus' is not an agent: random, heuristic, scripted or human"),
    ("Germans", "--players takes PLAYER=AGENT pairs, found 'Germans'"),
    ("Martians=random", "--players names 'Martians', who does not play on this map"),
])
def test_bad_players_exit_2_with_a_message(capsys, players, message):
    assert main(["play", "--rounds", "1", "--players", players]) == 2
    captured = capsys.readouterr()
    assert message in captured.err and captured.out == ""


def test_an_unknown_agent_exits_2(capsys):
    with pytest.raises(SystemExit) as info:
        main(["play", "--agent", "clever"])
    assert info.value.code == 2
    assert "invalid choice: 'clever'" in capsys.readouterr().err


def test_play_help_explains_the_options(capsys):
    with pytest.raises(SystemExit) as info:
        main(["play", "--help"])
    assert info.value.code == 0
    text = " ".join(capsys.readouterr().out.split())
    for option in ("--ruleset REF", "--players P=AGENT,...", "--agent", "--orders FILE", "--seed", "--rounds",
                   "--set NAME=VALUE", "--save FILE", "--resume SAVE", "--log FILE", "--quiet"):
        assert option in text, option
    assert "random, heuristic, scripted or human" in text


def test_play_from_a_scenario_file_and_replay_it(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    scenario = scenario_file(tmp_path, {"map": "aar", "setup": "empty",
                                        "control": {"Russia": "Germans", "United Kingdom": "Germans", "India": "Japanese"}})
    assert main(["play", "--ruleset", "aar/base@1", "--scenario", scenario, "--agent", "random", "--rounds", "3",
                 "--quiet", "--save", "game.json"]) == 0
    assert capsys.readouterr().out.splitlines()[0] == "Result: Axis win after round 1: Axis hold 9 victory cities"
    Path(scenario).unlink()                    # the save carries the scenario's text
    assert main(["replay", "game.json"]) == 0
    assert capsys.readouterr().out.startswith("replay of game.json: all ")


def test_a_scenario_that_names_its_rulesets_is_played_under_them(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    scenario = scenario_file(tmp_path, {"map": "aar", "rulesets": ["aar/base@1", "aar/commerce-raiding@2"]})
    assert main(["play", "--scenario", scenario, "--agent", "random", "--rounds", "1", "--quiet",
                 "--save", "game.json"]) == 0
    assert json.loads(Path("game.json").read_text())["compose"] == ["aar/base@1", "aar/commerce-raiding@2"]
    # --ruleset still decides when given
    assert main(["play", "--scenario", scenario, "--ruleset", "aar/base@1", "--agent", "random", "--rounds", "1",
                 "--quiet", "--save", "other.json"]) == 0
    assert json.loads(Path("other.json").read_text())["compose"] == ["aar/base@1"]


def test_a_scenario_on_another_map_than_the_rulesets_is_a_located_error(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    scenario = scenario_file(tmp_path, {"map": "g40"})
    assert main(["play", "--scenario", scenario, "--ruleset", "aar/base@1", "--rounds", "1", "--quiet"]) == 1
    assert "scenario.yaml:1:6: error[G703]" in capsys.readouterr().err
