"""A look-ahead's start at a resume point or a phase start taken from the game as it stands when
nothing changed since (lookahead.py `PhaseStarts._untouched`, session 17), not made by replaying
the turn's phases up to it: the answers are valued with the very floats of the replayed starts,
and a die thrown or an effect made since, or a runtime phase's body begun, has the start replayed."""

from __future__ import annotations

import pytest

from game_fixtures import make_game
from ruleslang.base.paths import packaged_root
from ruleslang.runtime.agents import lookahead, phase_starts
from ruleslang.runtime.agents.heuristic import HeuristicAgent
from ruleslang.runtime.saves import GameSetup, build_game
from ruleslang.workspace.compositions import Workspace

# a decision asked in a hook (after the battles of each turn, as the look-ahead tests' gift game,
# or before another phase), after a die whose value the answer's worth holds (`luck`: thrown
# before the question, since the options read it) or after an effect (`before`); the retreats in
# the battles are asked just after a point
LUCK = """\
ruleset lookahead/luck@1
uses aar/base@1

hook gift {target}:
    let p = current_player()
    let luck = {luck}
    {before}
    let n = choose one of 0..(2 + (if luck > 0 then 1 else 0)) by p "how many?"
    change treasury(p) by (if n == 3 then 0 else 5 * n) + luck
"""


def _luck_game(tmp_path, before: str = "let quiet = 0", target: str = "after battle", luck: str = "d6"):
    folder = tmp_path / "lookahead"
    folder.mkdir(exist_ok=True)
    (folder / "luck@1.rules").write_text(LUCK.format(before=before, target=target, luck=luck))
    game = build_game(Workspace([tmp_path, packaged_root()]), GameSetup(refs=["lookahead/luck@1"], seed=4, rounds=1))
    for player in list(game.agents):
        # (the agent asking the chain of every retreat: the Russians retreat, so that look-aheads start within a battle)
        game.agents[player] = HeuristicAgent(4, player, spare=())
    return game


def _house_rules_game(seed: int):
    game = make_game(["aar/house-rules@1"], seed=seed, default_agent="heuristic")
    for player in list(game.agents):
        game.agents[player] = HeuristicAgent(game.seed, player, spare=())  # (the games these tests follow)
    return game


def _valued(monkeypatch, make, rounds: int, taken: bool, ahead: int = 0) -> tuple:
    """The game `make()` gives, played `rounds` rounds, with every look-ahead's values and its phase starts' hook;
    `taken=False`: every start at a resume point made by replay (as before session 17); `ahead`:
    the game's board version stepped by so much at every phase start (as the agent's what-ifs
    step it, changing nothing), so that a start taken from the game has a version a replayed one
    has not."""
    values, call = lookahead.Lookahead.values, phase_starts.PhaseStarts.__call__
    seen: list = []

    def noted(self, game, d, answers, **kwargs):
        found = values(self, game, d, answers, **kwargs)
        seen.append((d.id, found))
        return found

    def stepped(self, game, phase):
        game.state.version += ahead
        call(self, game, phase)
    monkeypatch.setattr(lookahead.Lookahead, "values", noted)
    monkeypatch.setattr(phase_starts.PhaseStarts, "__call__", stepped)
    if not taken:
        monkeypatch.setattr(phase_starts.PhaseStarts, "_untouched", staticmethod(lambda *args: False))
    game = make()
    game.run(rounds)
    monkeypatch.undo()
    return game, seen, game.on_phase


@pytest.mark.parametrize("seed", [1, 2])
def test_starts_taken_from_the_game_value_answers_as_replayed_ones(monkeypatch, seed):
    # house-rules games: the emergency purchases (asked in a hook before a battle's start step)
    # and the retreats' destinations (asked in the retreat step after whether to retreat) come
    # just after a point, so their starts are taken from the game; every look-ahead's values must
    # be the very floats of the starts made by replay, and the games the same
    game, seen, hook = _valued(monkeypatch, lambda: _house_rules_game(seed), 3, taken=True)
    replayed, seen_replayed, hook_replayed = _valued(monkeypatch, lambda: _house_rules_game(seed), 3, taken=False)
    assert seen == seen_replayed and len(seen) >= 2
    assert hook.taken >= 2 and hook.replayed < hook_replayed.replayed and hook_replayed.taken == 0
    assert game.decisions == replayed.decisions and game.state.events == replayed.state.events
    # a start taken from a game whose version ran ahead of a replay's: the copies read no version
    # number but their own changes', so the values are the same floats
    ahead, seen_ahead, hook_ahead = _valued(monkeypatch, lambda: _house_rules_game(seed), 3, taken=True, ahead=1000)
    assert seen_ahead == seen_replayed and hook_ahead.taken == hook.taken
    assert ahead.decisions == replayed.decisions


@pytest.mark.parametrize("before", ["let quiet = 0", "change treasury(p) by 1"])
def test_a_die_thrown_or_an_effect_since_the_point_has_the_start_replayed(tmp_path, monkeypatch, before):
    # the gift is asked after the battle phase's procedure ended (a point), after a die (logged
    # as an event) and, in the second game, a change of the treasury: those starts are made by
    # replay (their copies throw the die again from the generator as it was at the point), the
    # retreats' starts in battles are taken; the values as with every start replayed
    game, seen, hook = _valued(monkeypatch, lambda: _luck_game(tmp_path, before), 1, taken=True)
    replayed, seen_replayed, hook_replayed = _valued(monkeypatch, lambda: _luck_game(tmp_path, before), 1, taken=False)
    gifts = [values for decision, values in seen if decision == "gift.n"]
    assert len(gifts) == 5 and seen == seen_replayed
    assert hook.replayed == hook_replayed.replayed - hook.taken and hook.replayed >= 5 and hook.taken >= 1
    assert game.decisions == replayed.decisions and game.state.events == replayed.state.events


@pytest.mark.parametrize("target, taken", [("before collect_income", True), ("before place", False)])
def test_a_start_at_a_phase_start_is_taken_before_a_rule_phase_not_in_a_runtime_one(tmp_path, monkeypatch, target,
                                                                                     taken):
    # the gift asked in a hook before a phase (no die: `luck` 1), at whose start the game only
    # marked it: before a rule phase (collect_income) nothing ran since the mark but the hook, so
    # the start is the game as it stands; before a runtime one (place) the kit's body may have
    # begun (nothing tells a hook before it from the body), so it is made by replay; either way
    # the values as with every start replayed
    def make():
        return _luck_game(tmp_path, target=target, luck="1")
    game, seen, hook = _valued(monkeypatch, make, 1, taken=True)
    replayed, seen_replayed, hook_replayed = _valued(monkeypatch, make, 1, taken=False)
    gifts = [values for decision, values in seen if decision == "gift.n"]
    assert len(gifts) == 5 and seen == seen_replayed
    assert hook.replayed == hook_replayed.replayed - hook.taken
    assert hook.replayed == (0 if taken else 5)  # (the retreats' starts at points are taken either way)
    assert game.decisions == replayed.decisions and game.state.events == replayed.state.events


def test_the_board_is_kept_at_a_rounds_first_phase_and_replays_cross_turns(tmp_path, monkeypatch):
    # every start made by replay (as if none could be taken): the board kept at the round's first
    # phase only (no ANCHOR_EVENTS bound here), so each power's gift after its battles is replayed from the
    # round's first phase, through the turns of the powers before it; the values are those of
    # the starts taken from the game, and the game the same
    def make():
        monkeypatch.setattr(phase_starts, "ANCHOR_EVENTS", 10 ** 9)
        return _luck_game(tmp_path)
    replayed, seen_replayed, hook_replayed = _valued(monkeypatch, make, 1, taken=False)
    game, seen, hook = _valued(monkeypatch, make, 1, taken=True)
    assert hook_replayed.boards == hook.boards == 1 and hook_replayed.replayed >= 5
    assert seen == seen_replayed and len([s for s in seen if s[0] == "gift.n"]) == 5
    assert game.decisions == replayed.decisions and game.state.events == replayed.state.events


def test_boards_after_the_first_are_kept_only_once_a_start_was_replayed(monkeypatch):
    # a house-rules game whose look-aheads' starts are all taken from the game keeps the board at
    # its first phase only: the boards kept at each round's first phase and every ANCHOR_EVENTS
    # events shorten replays, and it makes none; with every start made by replay, the game keeps
    # them again from its first replay on, and each look-ahead values its answers as with the
    # starts taken
    game, seen, hook = _valued(monkeypatch, lambda: _house_rules_game(1), 3, taken=True)
    replayed, seen_replayed, hook_replayed = _valued(monkeypatch, lambda: _house_rules_game(1), 3, taken=False)
    assert hook.replayed == 0 and hook.taken >= 2 and hook.boards == 1 and not hook.anchoring
    assert hook_replayed.replayed >= 2 and hook_replayed.anchoring and hook_replayed.boards > 3
    assert seen == seen_replayed and game.decisions == replayed.decisions


def test_a_replay_crosses_rounds_as_the_game_did(tmp_path, monkeypatch):
    # every start made by replay and no board kept but the game's first: each power's gift in
    # round 2 is replayed from the start before it, the first from the last gift's in round 1
    # (the round ended and the next begun in the copy as `Game.run` does); the values and the
    # game as with a board kept at every round's first phase
    def make(anchoring):
        monkeypatch.setattr(phase_starts.PhaseStarts, "anchoring", anchoring)
        return _luck_game(tmp_path)
    kept, seen_kept, hook_kept = _valued(monkeypatch, lambda: make(True), 2, taken=False)
    never = property(lambda self: False, lambda self, value: None)  # (never set: no board after the first)
    crossed, seen_crossed, hook_crossed = _valued(monkeypatch, lambda: make(never), 2, taken=False)
    assert hook_crossed.boards == 1 and hook_kept.boards >= 2 and hook_crossed.replayed == hook_kept.replayed
    assert [s[0] for s in seen_crossed].count("gift.n") == 10 and crossed.state.round == 2
    assert seen_crossed == seen_kept
    assert crossed.decisions == kept.decisions and crossed.state.events == kept.state.events
