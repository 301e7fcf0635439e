"""Bids (`ruleslang play --bid SIDE=IPCS`): before round 1 a side's powers (or a power) buy extra
units with the bid and place them under the ruleset's bid rule (`aar/base@1`'s `bid_space` and
`bid_units_per_space`); saves and logs record the bids, `--resume` and `replay` reproduce the
game; bad input is a coded diagnostic."""

from __future__ import annotations

import pytest

from game_fixtures import WORKSPACE, events, make_game, orders_file, read_log, run_phases, treasury
from ruleslang.base.diagnostics import DiagnosticError
from ruleslang.base.errors import EvalError
from ruleslang.cli.app import main
from ruleslang.runtime import saves
from test_cli import run_cli

BID_GAME = ["play", "--ruleset", "aar/base@1", "--seed", "2", "--quiet", "--bid", "Allies=12", "--bid", "Germans=7"]


@pytest.fixture
def here(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    return tmp_path


def bid_space(game, player: str, space: str) -> bool:
    """The ruleset's own rule, as the game evaluates it."""
    fn = game.compiled.callable("bid_space")
    return fn(game.ctx, game.ctx.player_values[player], game.ctx.space_values[space]) is True


def test_a_bid_is_bought_and_placed_before_round_1_and_recorded(here):
    assert main([*BID_GAME, "--rounds", "1", "--log", "game.jsonl", "--save", "game.json"]) == 0
    log = read_log(here / "game.jsonl")
    assert log[0]["bids"] == {"Allies": 12, "Germans": 7}
    assert saves.read_save("game.json")["bids"] == {"Allies": 12, "Germans": 7}
    assert log[1]["kind"] == "start"  # the state before the bids: line 2 of a log
    stage = log[2:log.index({"kind": "round", "round": 1})]
    assert stage[0] == {"kind": "round", "round": 0}
    bought = [e for e in stage if e["kind"] == "bid_purchase"]
    # the side's powers share its bid in turn order; each spends at most what it has
    assert [e["player"] for e in bought][:2] == ["Russians", "Germans"]
    allies = [e for e in bought if e["player"] != "Germans"]
    assert sum(e["spent"] for e in allies) <= 12 and allies[0]["spent"] > 0
    assert next(e for e in bought if e["player"] == "Germans")["spent"] <= 7
    placed = [e for e in stage if e["kind"] == "place"]
    assert {e["player"] for e in placed} >= {"Russians", "Germans"}
    for e in placed:
        assert all(len(types) == 1 for _, _, types in e["placed"])  # one bid unit a space
        assert len({space for space, _, _ in e["placed"]}) == len(e["placed"])


def test_bid_units_go_where_the_rule_allows():
    game = saves.build_game(WORKSPACE,
                            saves.GameSetup(refs=["aar/base@1"], seed=3, rounds=1, default_agent="random",
                                            bids={"Axis": 30, "British": 20}))
    start = {(p, s): bid_space(game, p, s) for p in ("Germans", "Japanese", "British")
             for s in game.board.spaces()}
    game.play_bids()
    for e in events(game, "place"):
        for space, _, types in e["placed"]:
            assert start[(e["player"], space)], f"{e['player']} placed a bid unit in {space}"
            assert len(types) == 1


def test_the_bid_rule_of_the_ruleset():
    game = make_game(["aar/base@1"])
    assert bid_space(game, "Germans", "Germany")                 # its own, with its units
    assert not bid_space(game, "Germans", "United Kingdom")      # an enemy's
    # its own territories without its units take no bid
    empty = [s for s in game.board.spaces("land") if game.state.control.get(s) == "British"
             and not any(u.owner == "British" for u in game.board.units(s))]
    assert "Gibraltar" in empty and not any(bid_space(game, "British", s) for s in empty)
    assert bid_space(game, "British", "8 Sea Zone") == any(
        u.owner == "British" for u in game.board.units("8 Sea Zone"))


def test_a_side_shares_its_bid_and_the_last_power_keeps_the_rest(tmp_path):
    # the Russians buy an infantry with the Allies' 10 IPCs; the British and Americans buy nothing
    # and the Americans, the last of the side, keep what is left
    orders = {"Russians": [{"round": 0, "purchase": {"infantry": 1}, "place": [{"at": "Russia", "units": ["infantry"]}]}]}
    game = saves.build_game(WORKSPACE,
                            saves.GameSetup(refs=["aar/base@1"], rounds=1, default_agent="scripted",
                                            orders=orders_file(tmp_path, orders), bids={"Allies": 10}))
    before = treasury(game, "Americans")
    infantry = len([u for u in game.state.units if u.space == "Russia" and u.type == "infantry"])
    game.play_bids()
    assert [(e["player"], e["money"]) for e in events(game, "bid")] == \
        [("Russians", 10), ("British", 7), ("Americans", 7)]
    assert len([u for u in game.state.units if u.space == "Russia" and u.type == "infantry"]) == infantry + 1
    assert treasury(game, "Americans") == before + 7
    assert treasury(game, "British") == 30


def test_a_placement_against_the_bid_rule_is_refused_with_its_reason(tmp_path):
    orders = {"Germans": [{"round": 0, "purchase": {"infantry": 2},
                           "place": [{"at": "Germany", "units": ["infantry", "infantry"]}]}]}
    game = saves.build_game(WORKSPACE,
                            saves.GameSetup(refs=["aar/base@1"], rounds=1, default_agent="scripted",
                                            orders=orders_file(tmp_path, orders), bids={"Germans": 6}))
    game.play_bids()
    refused = events(game, "refused", decision="place", player="Germans")
    assert refused and "at most 1 bid unit(s) a space, not 2 in Germany" in refused[0]["reasons"]
    # the fallback places what the rule allows: one unit in each of two spaces
    placed = events(game, "place", player="Germans")[0]["placed"]
    assert len(placed) == 2 and all(len(types) == 1 for _, _, types in placed)


def test_resume_and_replay_reproduce_a_game_with_bids(here, capsys):
    assert main([*BID_GAME, "--rounds", "2", "--save", "whole.json", "--log", "whole.jsonl"]) == 0
    whole = capsys.readouterr().out
    assert main([*BID_GAME, "--rounds", "1", "--save", "part.json"]) == 0
    capsys.readouterr()
    assert main(["play", "--resume", "part.json", "--rounds", "2", "--quiet", "--save", "part.json"]) == 0
    assert capsys.readouterr().out == whole
    a, b = saves.read_save("whole.json"), saves.read_save("part.json")
    assert saves.first_divergence(a["events"], b["events"]) is None and b["bids"] == a["bids"]
    for record in ("whole.json", "whole.jsonl"):
        assert main(["replay", record]) == 0
        assert "events match" in capsys.readouterr().out


@pytest.mark.parametrize("bid, code, says", [
    ("X=abc", "U112", "a bid is a whole number of IPCs"),
    ("Allies=-3", "U112", "a bid is a whole number of IPCs"),
    ("Allies", "U112", "--bid takes SIDE=IPCS"),
    ("Alies=5", "U113", "did you mean 'Allies'"),
    ("Martians=5", "U113", "neither a side nor a power"),
])
def test_bad_bids_are_coded_diagnostics(bid, code, says):
    status, output = run_cli(["play", "--ruleset", "aar/base@1", "--rounds", "1", "--quiet", "--bid", bid])
    assert status == 2 and f"error[{code}]" in output and says in output and "Traceback" not in output


def test_a_power_given_two_bids_is_refused():
    status, output = run_cli(["play", "--ruleset", "aar/base@1", "--rounds", "1", "--quiet",
                              "--bid", "Allies=5", "--bid", "British=3"])
    assert status == 2 and "error[U113]" in output and "British two bids" in output


def test_a_bid_on_rules_without_a_bid_rule_is_refused():
    status, output = run_cli(["play", "--ruleset", "aa50/base@1", "--rounds", "1", "--quiet", "--bid", "Axis=5"])
    assert status == 1 and "error[G704]" in output and "no bid rule" in output


def test_a_bid_in_a_game_that_does_not_start_at_round_1_is_refused():
    with pytest.raises(DiagnosticError) as caught:
        saves.build_game(WORKSPACE,
                         saves.GameSetup(refs=["aar/base@1"], rounds=3, bids={"Axis": 5}),
                         scenario_text="map: aar\nturn: {round: 2, player: Germans}\n")
    assert caught.value.diagnostics[0].code == "G705"


def test_resume_refuses_a_new_bid(here, capsys):
    assert main([*BID_GAME, "--rounds", "1", "--save", "part.json"]) == 0
    assert main(["play", "--resume", "part.json", "--bid", "Axis=3"]) == 2
    assert "drop --bid" in capsys.readouterr().err


def test_no_bid_stage_without_bids():
    game = make_game(["aar/base@1"])
    game.play_bids()
    assert not events(game, "bid") and not events(game, "round")


def test_the_bid_procedure_is_refused_inside_a_turn():
    game = make_game(["aar/base@1"])
    with pytest.raises(EvalError) as caught:
        run_phases(game, "Germans", "bid")
    assert caught.value.code == "E545"


def test_the_printed_game_says_what_each_bid_bought_and_where():
    status, output = run_cli(["play", "--ruleset", "aar/base@1", "--seed", "2", "--rounds", "1", "--bid", "Russians=9"])
    assert status == 0
    lines = output.splitlines()
    assert lines[0] == "Rulesets: aar/base@1"
    assert lines[1] == "Bids" and lines[2].startswith("  Russians: ") and " of 9 IPCs) at " in lines[2]
    assert lines[3] == "Round 1"
