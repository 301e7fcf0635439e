"""The part "sonar" of the heuristic agent's SPARE (battle_odds.py's `_RECALLED`, chain.py's
`first_state`, `answer_reads`, `reads_hold`; issue 15, session 23): the chain's answer for a
battle of the same first state asked again at the same space (in a later decision or game), on a
board that answers what the first chain read the same, is taken again without solving, to the
same floats; another space, a board that answers otherwise, or a chain whose start step read the
board's units (an AA gun's `units(...)`) asks the chain."""

from __future__ import annotations

from weakref import WeakKeyDictionary

import pytest

from making_fixtures import house_rules_game
from ruleslang.runtime.agents import battle_odds
from ruleslang.runtime.agents.battle_odds import CHAIN, RECALLED_ANSWER, BattleOdds
from ruleslang.runtime.agents.heuristic import SPARE, HeuristicAgent
from ruleslang.runtime.odds.chain import Chain
from ruleslang.runtime.odds.results import BattleSpec

KARELIA, ARCHANGEL = "Karelia S.S.R.", "Archangel"


@pytest.fixture()
def game(monkeypatch):
    """A house-rules game whose agents' chains keep no answer yet."""
    monkeypatch.setattr(battle_odds, "_RECALLED", WeakKeyDictionary())
    return house_rules_game()


def _in_progress(odds: BattleOdds, game, space: str) -> float:
    """The Germans' chance, from the second round, with a bomber and an armour against two Russian
    infantry at `space` (a retreat question's battle: no start step, no first round)."""
    scratch = game.state.copy()  # (the units are made off the game's board: the odds read their types)
    attack = scratch.add_units(space, "bomber", "Germans", 1) + scratch.add_units(space, "armour", "Germans", 1)
    defence = scratch.add_units(space, "infantry", "Russians", 2)
    odds.new_decision()
    return odds.chance(game, "Germans", attack, space, defence=defence, round_number=2)


def test_a_battle_in_progress_asked_again_takes_the_answer_kept_with_the_same_floats(game):
    # (another agent's odds, as in a later game: an agent keeps its own battle's chain for its
    # later rounds, `KeptBattle`)
    odds, later = BattleOdds(recall=True), BattleOdds(recall=True)
    first = _in_progress(odds, game, KARELIA)
    again = _in_progress(later, game, KARELIA)
    assert (odds.counts[CHAIN], later.counts[CHAIN], later.counts[RECALLED_ANSWER]) == (1, 0, 1)
    alone = BattleOdds()
    assert repr(_in_progress(alone, game, KARELIA)) == repr(again) == repr(first)
    assert alone.counts[CHAIN] == 1 and alone.counts[RECALLED_ANSWER] == 0


def test_the_same_battle_at_another_space_asks_the_chain(game):
    # (a step may read the battle's space: its site is in the key)
    odds, later = BattleOdds(recall=True), BattleOdds(recall=True)
    _in_progress(odds, game, KARELIA)
    _in_progress(later, game, ARCHANGEL)
    assert (later.counts[CHAIN], later.counts[RECALLED_ANSWER]) == (1, 0)


def test_odds_without_recall_ask_the_chain_each_time(game):
    odds, later = BattleOdds(), BattleOdds()
    _in_progress(odds, game, KARELIA)
    _in_progress(later, game, KARELIA)
    assert (later.counts[CHAIN], later.counts[RECALLED_ANSWER]) == (1, 0)


def test_a_board_that_answers_a_read_otherwise_asks_the_chain(game):
    odds, later = BattleOdds(recall=True), BattleOdds(recall=True)
    _in_progress(odds, game, KARELIA)
    # the first chain read the technologies developed (a bomber attacks): one more developed
    counters = game.state.counters
    saved = counters.get("developed")
    counters["developed"] = {**(saved or {}), ("Americans", "rockets"): True}
    try:
        _in_progress(later, game, KARELIA)
    finally:
        if saved is None:
            del counters["developed"]
        else:
            counters["developed"] = saved
    assert (later.counts[CHAIN], later.counts[RECALLED_ANSWER]) == (1, 0)


def test_a_first_round_whose_start_step_reads_the_boards_units_keeps_no_answer(game):
    # a battle from its first round runs the start step, whose AA fire asks the units at the space
    # (a read of the board's units, which no read notes): its answer is not kept
    asked = [BattleOdds(recall=True), BattleOdds(recall=True)]
    for odds in asked:
        scratch = game.state.copy()
        attack = scratch.add_units(KARELIA, "armour", "Germans", 3)
        odds.new_decision()
        assert odds.chance(game, "Germans", attack, KARELIA) is not None
    assert [(odds.counts[CHAIN], odds.counts[RECALLED_ANSWER]) for odds in asked] == [(1, 0), (1, 0)]
    assert not any(battle_odds._RECALLED.values())


def test_the_agent_recalls_answers_with_the_part_sonar():
    assert "sonar" in SPARE
    agent = HeuristicAgent(1, "Germans")
    assert agent.battle_odds.recall and agent.fleet_odds.recall
    without = HeuristicAgent(1, "Germans", spare=tuple(part for part in SPARE if part != "sonar"))
    assert not without.battle_odds.recall and not without.fleet_odds.recall


def test_a_battle_in_progress_under_a_round_limit_is_keyed_by_its_round(game):
    # without a limit every round after the first plays alike (the same answer from round 2 or 5);
    # with one, the rounds left differ: the key holds the round
    def key(round_number: int, limit: int | None) -> tuple:
        spec = BattleSpec(KARELIA, "Germans", {"armour": 2}, {"infantry": 2}, "Russians", round=round_number)
        chain = Chain(game, spec, exact=False, board=game.state, round_limit=limit)
        try:
            return chain.first_state()
        finally:
            chain.close()
    assert key(2, None) == key(5, None)
    assert key(2, 6) != key(5, 6)
