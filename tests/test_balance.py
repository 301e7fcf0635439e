"""`ruleslang balance`: the bracketing search of the bid, and bids reaching the games played."""

import json

from ruleslang.compare.balance import Trial, best, search
from ruleslang.compare.runner import GamePlayer, GameTask, LoadedOnce, game_seed

from test_cli import run_cli


def _linear(tried):
    """A side whose chance is bid / 40, in 20 games a bid."""
    def play(bid):
        tried.append(bid)
        return Trial(bid, 20, round(20 * min(1.0, bid / 40)))
    return play


def test_the_bid_doubles_then_the_bracket_is_halved():
    tried = []
    trials = search(_linear(tried), step=6, max_bid=96)
    assert tried == [0, 6, 12, 24, 18]  # 24 reaches one half (0.6), 18 does not (0.45)
    assert best(trials).bid == 18


def test_the_search_stops_at_the_largest_bid():
    tried = []
    search(lambda bid: (tried.append(bid), Trial(bid, 10, 0))[1], step=6, max_bid=20)
    assert tried == [0, 6, 12, 20]


def test_a_side_already_at_one_half_bids_nothing():
    trials = search(lambda bid: Trial(bid, 10, 6), step=6, max_bid=96)
    assert [t.bid for t in trials] == [0] and best(trials).bid == 0


def test_a_bid_reaches_the_game():
    player = GamePlayer(LoadedOnce([]))
    task = GameTask(0, 0, ("aar/base@1",), None, None, game_seed(1, 0), 1, (), "random")
    bid = GameTask(0, 0, ("aar/base@1",), None, None, game_seed(1, 0), 1, (), "random", (("Allies", 30),))
    assert player.play(task) != player.play(bid)


def test_the_command_prints_every_bid_tried_as_json():
    code, out = run_cli(["balance", "aar/base@1", "--games", "2", "--rounds", "1", "--agent", "random",
                         "--step", "6", "--max-bid", "12", "--jobs", "1", "--format", "json"])
    assert code == 0, out
    found = json.loads(out)
    assert [t["bid"] for t in found["trials"]][:1] == [0] and found["side"] in ("Allies", "Axis")
    assert found["best"]["bid"] in [t["bid"] for t in found["trials"]]
    assert all(0 <= t["low"] <= t["rate"] <= t["high"] <= 1 for t in found["trials"])
    code, out = run_cli(["balance", "aar/base@1", "--side", "Martians", "--games", "1", "--rounds", "1"])
    assert code == 2 and "U127" in out
