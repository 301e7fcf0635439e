"""The part "sonar" of the heuristic agent's SPARE (battle_odds.py's `_RECALLED`, chain.py's
`first_state`, `answer_reads`, `reads_hold`; issue 15, session 23): the chain's answer for a
battle of the same first state asked again at the same space (in a later decision or game), on a
board that answers what the first chain read the same, is taken again without solving, to the
same floats; another space or a board that answers otherwise asks the chain. A battle's first
round is kept too (session 24): its start step's read of the units at the space (an AA gun's
`units(...)`) is noted by the units there outside the battle."""

from __future__ import annotations

from weakref import WeakKeyDictionary

import pytest

from making_fixtures import house_rules_game
from ruleslang.runtime.agents import battle_odds
from ruleslang.runtime.agents.battle_odds import CHAIN, RECALLED_ANSWER, BattleOdds
from ruleslang.runtime.agents.heuristic import SPARE, HeuristicAgent
from ruleslang.runtime.odds.chain import Chain
from ruleslang.runtime.odds.results import BattleSpec
from ruleslang.runtime.odds.shared import BoardReads
from ruleslang.runtime.odds.watch import EVERYTHING, RecordingWatch

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


def _asked_again(ask, game, space: str) -> None:
    """`ask` (`_in_progress`, `_first_round`) of one agent's odds, then of another's (as in a later
    game: an agent keeps its own battle's chain for its later rounds, `KeptBattle`): the first runs
    the chain, the second recalls its answer without one, to the floats of a chain alone there."""
    odds, later = BattleOdds(recall=True), BattleOdds(recall=True)
    first = ask(odds, game, space)
    again = ask(later, game, space)
    assert (odds.counts[CHAIN], later.counts[CHAIN], later.counts[RECALLED_ANSWER]) == (1, 0, 1)
    alone = BattleOdds()
    assert repr(ask(alone, game, space)) == repr(again) == repr(first)
    assert alone.counts[CHAIN] == 1 and alone.counts[RECALLED_ANSWER] == 0


def test_a_battle_in_progress_asked_again_takes_the_answer_kept_with_the_same_floats(game):
    _asked_again(_in_progress, game, KARELIA)


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


def _first_round(odds: BattleOdds, game, space: str) -> float:
    """The Germans' chance with a bomber and two armour against the defence of `space` as the board
    stands, from the first round: its start step's AA fire asks the units at the space."""
    scratch = game.state.copy()
    attack = scratch.add_units(space, "bomber", "Germans", 1) + scratch.add_units(space, "armour", "Germans", 2)
    odds.new_decision()
    return odds.chance(game, "Germans", attack, space)


def test_a_first_round_asked_again_takes_the_answer_kept_with_the_same_floats(game):
    # (session 24) the start step's `units(battle_space(), tag: aa)` is noted by the units there
    # outside the battle (none at Archangel), not as a read of everything: the answer is kept
    _asked_again(_first_round, game, ARCHANGEL)


def test_a_first_round_at_a_space_whose_units_outside_the_battle_changed_asks_the_chain(game):
    # an AA gun (which does not fight: a unit outside the battle) comes to the space after the first
    # answer: the units read there answer otherwise, and the chain's answer differs
    odds, later = BattleOdds(recall=True), BattleOdds(recall=True)
    first = _first_round(odds, game, ARCHANGEL)
    game.state.add_units(ARCHANGEL, "aaGun", "Russians", 1)
    game.state.version += 1
    again = _first_round(later, game, ARCHANGEL)
    assert (later.counts[CHAIN], later.counts[RECALLED_ANSWER]) == (1, 0)
    assert again < first
    alone = BattleOdds()
    assert repr(_first_round(alone, game, ARCHANGEL)) == repr(again)


def test_a_read_of_the_units_in_a_space_notes_those_outside_the_battle_and_of_the_board_everything(game):
    # Russia holds an AA gun, which does not fight, and units that do (the battle's: not noted)
    chain = Chain(game, BattleSpec("Russia", "Germans", {"armour": 2}), exact=False, board=game.state)
    try:
        noted = BoardReads({}, {})
        watch = RecordingWatch(chain.ctx, chain.battle, False, None, False, noted)
        here = watch.board.units_in("Russia")
        assert EVERYTHING not in watch.reads
        (gun,) = noted.answers[("units in", "Russia")]
        assert gun[1:3] == ("aaGun", "Russians") and len(here) > 1
        watch.board.units  # (the whole board's units: a read nothing notes)
        assert EVERYTHING in watch.reads
    finally:
        chain.close()


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
