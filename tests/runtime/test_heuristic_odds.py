"""The heuristic agent's battle odds: the exact chain of the rules' own battle steps
(runtime/agents/battle_odds.py), with the quick simulation as a counted fallback."""

from __future__ import annotations

import pytest

from game_fixtures import BASE, ids, make_game, run_phases
from ruleslang.runtime.agents.battle_odds import CHAIN, OVER_BUDGET, BattleOdds
from ruleslang.runtime.agents.heuristic import HeuristicAgent
from ruleslang.runtime.odds.chain import ATTACKER_WINS, BattleSpec, Chain

KARELIA, BELORUSSIA = "Karelia S.S.R.", "Belorussia"


def attacks_karelia(units: dict, odds: str) -> bool:
    """Whether the Germans' agent (with `odds`) sends units into Karelia in combat move."""
    game = make_game(BASE, scenario={"setup": "empty", "units": units}, agents={"Germans": "heuristic"})
    game.agents["Germans"] = HeuristicAgent(1, "Germans", odds=odds)
    run_phases(game, "Germans", "combat_move")
    return bool(ids(game, KARELIA, "Germans"))


def test_an_attack_the_aa_gun_and_the_casualty_order_make_unlikely_is_not_made():
    # three fighters and an infantry against two infantry and an AA gun: the quick simulation
    # (no AA fire, any survivor takes it) gives it about 99%; the infantry is the cheapest
    # casualty, so the territory is taken about a third of the time
    units = {BELORUSSIA: {"Germans": {"infantry": 1, "fighter": 3}}, KARELIA: {"Russians": {"infantry": 2, "aaGun": 1}}}
    assert attacks_karelia(units, "quick") is True
    assert attacks_karelia(units, "exact") is False


def test_the_odds_are_the_chains_and_a_battle_over_the_budget_falls_back_counted():
    units = {BELORUSSIA: {"Germans": {"infantry": 2, "artillery": 2}}, KARELIA: {"Russians": {"infantry": 3}}}
    game = make_game(BASE, scenario={"setup": "empty", "units": units})
    attack = [u for u in game.state.units if u.space == BELORUSSIA]
    exact = Chain(game, BattleSpec(KARELIA, "Germans", {"infantry": 2, "artillery": 2}), exact=False).solve()
    odds = BattleOdds()
    assert odds.chance(game, "Germans", attack, KARELIA) == pytest.approx(float(exact.outcome(ATTACKER_WINS)))
    assert odds.chance(game, "Germans", attack, KARELIA, take=True) == pytest.approx(float(exact.taken))
    assert odds.counts[CHAIN] == 1
    small = BattleOdds(query_states=(4 + 1) * (3 + 1) - 1)
    assert small.chance(game, "Germans", attack, KARELIA) is None
    assert small.counts[OVER_BUDGET] == 1
