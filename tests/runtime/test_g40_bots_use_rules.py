"""The heuristic bot uses Global 1940's kamikaze tokens on their merits (g40/kamikaze@1's advice):
two strikes for each enemy surface warship in reach, spread over the ships, as far as the tokens go."""

from __future__ import annotations

from game_fixtures import make_game, run_phases

HOUSE = ["g40/house-rules@1"]
AT_WAR = {"war_declared": {"Japanese": {"Americans": True}}}


def _kamikaze(game) -> list[dict]:
    return [e for e in game.state.events if e.get("kind") == "decision" and str(e.get("id", "")).startswith("kamikaze")]


def test_the_heuristic_bot_strikes_twice_at_each_warship_in_reach():
    units = {"6 Sea Zone": {"Americans": {"battleship": 1, "destroyer": 1, "transport": 1}, "Japanese": {"destroyer": 1}}}
    game = make_game(HOUSE, scenario={"units": units, "counters": AT_WAR}, agents={"Japanese": "heuristic"},
                     orders={"Americans": [{"round": 1}]})
    run_phases(game, "Americans", "combat_move", "battle")
    decisions = _kamikaze(game)
    assert decisions[0]["id"] == "kamikaze_strikes.n" and decisions[0]["answer"] == 4   # 2 warships, 6 tokens
    struck = [d["answer"]["type"] for d in decisions[1:]]
    assert sorted(struck) == ["battleship", "battleship", "destroyer", "destroyer"]      # never the transport
    spent = [e for e in game.state.events if e.get("kind") == "counter" and e.get("name") == "suicide_attack_tokens"]
    assert [(e["before"], e["after"]) for e in spent] == [(6, 2)]


def test_no_strike_where_no_warship_is_in_reach():
    units = {"6 Sea Zone": {"Americans": {"submarine": 1, "transport": 1}, "Japanese": {"destroyer": 1}}}
    game = make_game(HOUSE, scenario={"units": units, "counters": AT_WAR}, agents={"Japanese": "heuristic"},
                     orders={"Americans": [{"round": 1}]})
    run_phases(game, "Americans", "combat_move", "battle")
    assert _kamikaze(game) == []        # the step offers nothing without a target; no token spent
