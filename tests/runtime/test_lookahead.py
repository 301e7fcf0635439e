"""The heuristic agent's look-ahead (runtime/agents/lookahead.py): a rule decision without advice
is answered by what each answer does in a copy of the game, played on with the game's own rules;
the game's dice and log are its own; and bid units go where they add most."""

from __future__ import annotations

import random
import weakref

import pytest
import yaml

from game_fixtures import make_game
from ruleslang.base.paths import packaged_root
from ruleslang.runtime.agents import phase_starts
from ruleslang.runtime.agents.heuristic import HeuristicAgent
from ruleslang.runtime.saves import GameSetup, build_game
from ruleslang.workspace.compositions import Workspace

# a decision asked after the battles of each turn (so a look-ahead replays them to reach it),
# without advice: 3 (the neutral answer: the most) gives nothing, 2 is the best
GIFT = """\
ruleset lookahead/gift@1
uses aar/base@1

hook gift after battle:
    let p = current_player()
    let n = choose one of 0..3 by p "how many?"
    change treasury(p) by (if n == 3 then 0 else 5 * n)
"""


def gift_game(tmp_path, *, seed: int = 4, rounds: int = 1, previous: bool = False, recorded=None,
              resume: bool = False, extra: str = "", spare: tuple | None = ()):
    """The GIFT game (`extra`: more of the ruleset's text; `spare`: the heuristic agents', by
    default none: the agent asking the chain of every retreat, which retreats the Russians here,
    so that a look-ahead starts within a battle)."""
    folder = tmp_path / "lookahead"
    folder.mkdir(exist_ok=True)
    (folder / "gift@1.rules").write_text(GIFT + extra)
    game = build_game(Workspace([tmp_path, packaged_root()]),
                      GameSetup(refs=["lookahead/gift@1"], seed=seed, rounds=rounds), recorded=recorded)
    for player in list(game.agents):
        if recorded is None:
            game.agents[player] = HeuristicAgent(seed, player, previous=previous, spare=spare)
        elif not resume:
            game.agents[player].after = None  # every answer from the record: no look-ahead
    return game


def asking(game):
    """`game` with every player's heuristic agent asking the chain of every attack and retreat
    (`spare=()`): the games these tests follow are those of that agent (the decisions looked ahead
    and the battles they come in)."""
    for player in list(game.agents):
        game.agents[player] = HeuristicAgent(game.seed, player, spare=())
    return game


def answers(game, decision_id: str) -> list:
    return [d["answer"] for d in game.decisions if d.get("id") == decision_id]


def test_a_decision_without_advice_takes_the_answer_that_does_best(tmp_path):
    game = gift_game(tmp_path)
    game.run(1)
    looked = sum(a.lookahead.counts.get("looked ahead", 0) for a in game.agents.values())
    # every power's decision was looked ahead, after its battles were replayed, and so was every
    # retreat's destination (no advice for it either: the agent's exact odds retreat the Russians)
    assert looked == 5 + len(answers(game, "attacker_retreat.to"))
    assert answers(game, "gift.n") == [2] * 5
    shipped = gift_game(tmp_path, previous=True)
    shipped.run(1)
    assert answers(shipped, "gift.n") == [3] * 5  # the shipped agent: the most


def test_the_look_ahead_rolls_none_of_the_games_dice_and_is_deterministic(tmp_path):
    game = gift_game(tmp_path, rounds=1)
    game.run(1)
    # the same answers given from the record, with no look-ahead: the same dice, the same log
    replay = gift_game(tmp_path, rounds=1, recorded=game.decisions)
    replay.run(1)
    assert replay.state.events == game.state.events
    again = gift_game(tmp_path, rounds=1)
    again.run(1)
    assert again.state.events == game.state.events


def test_a_resumed_game_looks_ahead_as_the_unbroken_one_did(tmp_path):
    # (the resumed game's agents are the game's own: the default, sparing, agent everywhere)
    whole = gift_game(tmp_path, rounds=2, spare=None)
    whole.run(2)
    part = gift_game(tmp_path, rounds=1, spare=None)
    part.run(1)
    # resuming: the record's answers, the heuristic asked again (it follows the replayed phases)
    resumed = gift_game(tmp_path, rounds=2, recorded=part.decisions, resume=True)
    resumed.run(2)
    assert len(answers(whole, "gift.n")) == 10
    assert resumed.decisions == whole.decisions and resumed.state.events == whole.state.events


def test_bid_units_go_where_they_add_most_not_only_where_the_threat_is_greatest():
    # Eastern Europe faces eight tanks: one infantry more does not hold it; in the Balkans it does
    # (two Russian infantry next door); the shipped agent put it by the threat alone
    units = {"Germany": {"Germans": {"infantry": 1}}, "Eastern Europe": {"Germans": {"infantry": 1}},
             "Balkans": {"Germans": {"infantry": 2}}, "Karelia S.S.R.": {"Russians": {"armour": 8}},
             "Ukraine S.S.R.": {"Russians": {"infantry": 2}}}
    placed = {}
    for previous in (False, True):
        game = make_game(["aar/base@1"], scenario={"setup": "empty", "units": units}, default_agent="random")
        game.agents["Germans"] = HeuristicAgent(1, "Germans", previous=previous)
        game.bids = [("Germans", ("Germans",), 3)]
        game.play_bids()
        placed[previous] = [e["placed"] for e in game.state.events if e["kind"] == "place"]
    assert placed[False] == [[["Balkans", None, ["infantry"]]]]
    assert placed[True] == [[["Eastern Europe", None, ["infantry"]]]]


# a decision whose answers differ only in what the units can do next: three armour put in Japan
# (an island: no transport, nowhere to go) or in Manchuria (next to Buryatia, held by a lone
# Russian infantry); the units, income and treasury are the same either way until someone moves,
# and Japan is the neutral answer
REINFORCE = """\
ruleset lookahead/reinforce@1
uses aar/base@1

hook reinforce before combat_move for Japanese when round() == 1:
    let p = current_player()
    let s = choose one of [space("Japan"), space("Manchuria")] by p "where do the reinforcements land?"
    add 3 armour at s for p
"""


def reinforce_game(tmp_path, moves: bool = True, recorded=None):
    """The REINFORCE game: the Japanese played by the heuristic, the others by the random agent
    (they have nothing to move); `recorded`: resumed from those decisions."""
    folder = tmp_path / "lookahead"
    folder.mkdir(exist_ok=True)
    (folder / "reinforce@1.rules").write_text(REINFORCE)
    units = {"Japan": {"Japanese": {"infantry": 1}}, "Buryatia S.S.R.": {"Russians": {"infantry": 1}}}
    setup = GameSetup(refs=["lookahead/reinforce@1"], seed=1, rounds=1, default_agent="random",
                      players={"Japanese": "heuristic"})
    game = build_game(Workspace([tmp_path, packaged_root()]), setup, recorded=recorded,
                      scenario_text=yaml.safe_dump({"setup": "empty", "units": units}))
    if recorded is None:
        game.agents["Japanese"].lookahead.moves = moves
    return game


def test_an_answer_whose_worth_shows_only_through_moves_is_taken(tmp_path):
    game = reinforce_game(tmp_path, moves=True)
    game.run(1)
    assert answers(game, "reinforce.s") == ["Manchuria"]
    assert game.agents["Japanese"].lookahead.counts.get("answer changed") == 1
    # the armour then went on to take Buryatia in the game itself
    assert game.state.control["Buryatia S.S.R."] == "Japanese"
    # rollouts that move no unit value both answers alike, and the neutral answer stands
    still = reinforce_game(tmp_path, moves=False)
    still.run(1)
    assert answers(still, "reinforce.s") == ["Japan"]
    assert still.agents["Japanese"].lookahead.counts.get("answer changed") is None


def test_a_resumed_game_looks_ahead_with_moving_rollouts_as_the_unbroken_one_did(tmp_path):
    whole = reinforce_game(tmp_path)
    whole.run(1)
    asked = next(i for i, d in enumerate(whole.decisions) if d.get("id") == "reinforce.s")
    # resumed just before the decision: the heuristic follows the replayed phases and looks ahead
    resumed = reinforce_game(tmp_path, recorded=whole.decisions[:asked])
    resumed.run(1)
    assert answers(resumed, "reinforce.s") == ["Manchuria"]
    assert resumed.decisions == whole.decisions and resumed.state.events == whole.state.events


class _Forgetful(dict):
    """A `PhaseStarts.configs` that keeps nothing: every copy builds its settings anew."""

    def __setitem__(self, key, value) -> None:
        pass


def test_settings_a_copy_built_go_to_the_next_copies_with_the_same_answers(tmp_path, monkeypatch):
    # the settings' code is generated once per program (`Procedures.settings`); what a copy's
    # settings keep for the next copies is their lasting answers (each unit kind's movement
    # rules ...): count the answers worked out, each through a watched context
    from ruleslang.runtime import config

    worked_out: list[int] = []
    watched = config.WatchedContext

    class Counted(watched):
        def __init__(self, *args, **kwargs):
            worked_out.append(1)
            super().__init__(*args, **kwargs)
    monkeypatch.setattr(config, "WatchedContext", Counted)
    # (what is counted is what the copies keep: the answers a worker's games share by the counters
    # they read, `ProcedureConfig._share_as_read`, are left out, else the second game takes them all)
    monkeypatch.setattr(config.ProcedureConfig, "_answer_as_read", lambda self, candidates: None)
    game = gift_game(tmp_path)
    game.run(1)
    kept, with_kept = game.on_phase.configs, len(worked_out)
    # the look-ahead after the first battles plays phases the game had not reached (the non-combat move)
    assert kept
    worked_out.clear()
    init = phase_starts.PhaseStarts.__init__

    def forgetful(self):
        init(self)
        self.configs = _Forgetful()
    monkeypatch.setattr(phase_starts.PhaseStarts, "__init__", forgetful)
    plain = gift_game(tmp_path)
    plain.run(1)
    assert not plain.on_phase.configs
    assert with_kept < len(worked_out)  # each copy worked out those answers again
    assert plain.decisions == game.decisions and plain.state.events == game.state.events


def _same_start(made, kept) -> None:
    """Two `PhaseStart`s hold the same game: board and kit data (their repr: values and the
    order of every dict), dice, answers, version and options."""
    import pickle
    assert repr(pickle.loads(made.board)) == repr(pickle.loads(kept.board))
    assert repr(pickle.loads(made.kit)) == repr(pickle.loads(kept.kit))
    for name in ("rng", "phase", "round", "player", "answered", "version", "quiet_changes", "options", "contested",
                 "bid_purse", "unit_class", "unit_fields", "by_init"):
        assert getattr(made, name) == getattr(kept, name), name


def _replays_compared(monkeypatch, noted) -> list:
    """Every phase start made by replay compared with the board the game had there (each phase
    start keeps one besides the game's own keeping); `noted(game, mark)` of each, listed."""
    kept: dict = {}
    call, replayed = phase_starts.PhaseStarts.__call__, phase_starts.PhaseStarts._replayed
    made: list = []

    def keep_all(self, game, phase):
        kept[id(self)] = phase_starts.PhaseStart(game, phase)
        call(self, game, phase)

    def compared(self, game, mark):
        start = replayed(self, game, mark)
        _same_start(start, kept[id(self)])
        made.append(noted(game, mark))
        return start
    monkeypatch.setattr(phase_starts.PhaseStarts, "__call__", keep_all)
    monkeypatch.setattr(phase_starts.PhaseStarts, "_replayed", compared)
    return made


def test_a_phase_start_made_by_replaying_the_turn_is_the_one_the_game_had(tmp_path, monkeypatch):
    # the board is kept at a round's first phase only; the look-ahead in a later phase has its
    # start made by replaying the phases before it: compare it with the board kept there

    made = _replays_compared(monkeypatch, lambda game, mark: mark.phase)
    _no_resume_points(monkeypatch)  # (the starts made at resume points: test further below)
    game = gift_game(tmp_path)
    game.run(1)
    assert len(made) == 5 and game.turn_sequence[0] not in made  # each power's look-ahead, after replayed phases
    assert answers(game, "gift.n") == [2] * 5


def test_a_phase_start_made_by_replaying_into_the_next_round_is_the_one_the_game_had(tmp_path, monkeypatch):
    # no board kept but the game's first (as in a game that has made no start by replay yet): the
    # look-aheads of round 2 are replayed from the start of round 1's last look-ahead, through
    # the round's end and the next one's beginning (`_turn_of`); each start is the game's there

    made = _replays_compared(monkeypatch, lambda game, mark: (game.state.round, mark.phase))
    monkeypatch.setattr(phase_starts.PhaseStarts, "anchoring", property(lambda self: False, lambda self, value: None))
    _no_resume_points(monkeypatch)
    game = gift_game(tmp_path, rounds=2)
    game.run(2)
    assert game.on_phase.boards == 1 and len(made) == 10 and [r for r, _ in made].count(2) == 5
    assert answers(game, "gift.n") == [2] * 10


def test_keeping_the_board_at_every_phase_start_decides_the_same(tmp_path, monkeypatch):

    game = gift_game(tmp_path, seed=5)
    game.run(1)
    monkeypatch.setattr(phase_starts, "ANCHOR_EVENTS", -1)  # every phase start keeps the board
    monkeypatch.setattr(phase_starts.PhaseStarts, "anchoring", True)  # (from the first: no replay needed)
    every = gift_game(tmp_path, seed=5)
    every.run(1)
    assert not every.on_phase.marks
    assert every.decisions == game.decisions and every.state.events == game.state.events


def test_each_copy_is_freed_when_its_rollout_ends(tmp_path, monkeypatch):
    # a copy is in reference cycles: the look-ahead collects the young objects after each rollout
    # (the collector paused meanwhile), so no copy waits for the collector's own collections
    import gc
    import weakref
    from ruleslang.runtime.agents import lookahead

    copies: list = []
    alive: list[int] = []
    fork, values = phase_starts.fork, lookahead.Lookahead.values

    def watched(*args, **kwargs):
        clone = fork(*args, **kwargs)
        copies.append(weakref.ref(clone))
        return clone

    def counted(self, *args, **kwargs):
        out = values(self, *args, **kwargs)
        alive.append(sum(1 for ref in copies if ref() is not None))
        assert gc.isenabled()  # given back
        return out
    monkeypatch.setattr(phase_starts, "fork", watched)
    monkeypatch.setattr(lookahead.Lookahead, "values", counted)
    threshold = gc.get_threshold()
    gc.set_threshold(10 ** 8)  # no collection but the look-ahead's own
    try:
        game = gift_game(tmp_path)
        game.run(1)
    finally:
        gc.set_threshold(*threshold)
    # the five decisions of the gift and any retreat's destination (test above)
    assert len(alive) == 5 + len(answers(game, "attacker_retreat.to")) and len(copies) > 5 * 3
    # none but those whose settings are kept for the next copies (`PhaseStarts.configs`: a
    # setting holds its copy's context)
    assert max(alive) <= len(game.on_phase.configs) < 5


def test_a_copy_keeps_its_answers_not_their_log_entries(tmp_path, monkeypatch):
    # a look-ahead's copy answers as the game would but writes no decision entries or their
    # events (nothing reads them, session 10): the game decides as with copies that do

    fork, copies = phase_starts.fork, []

    def kept(*args, **kwargs):
        clone = fork(*args, **kwargs)
        close = clone.close

        def noted():  # what the copy kept, as the look-ahead closes it once valued
            copies.append((list(clone.answers), list(clone.decisions), list(clone.state.events)))
            close()
        clone.close = noted
        return clone
    monkeypatch.setattr(phase_starts, "fork", kept)
    game = gift_game(tmp_path)
    game.run(1)
    assert copies and any(answers for answers, _, _ in copies) and not any(decided for _, decided, _ in copies)
    # (the game's entries carry what was offered; a rule's `choose` logs its own, which stay)
    assert not any(e["kind"] == "decision" and "offered" in e for _, _, events in copies for e in events)
    logged = []

    def recording(*args, **kwargs):
        clone = fork(*args, **kwargs)
        clone.records_decisions = True
        logged.append(len(clone.decisions))
        return clone
    monkeypatch.setattr(phase_starts, "fork", recording)
    again = gift_game(tmp_path)
    again.run(1)
    assert len(logged) == len(copies)
    assert again.decisions == game.decisions and again.state.events == game.state.events


def _no_resume_points(monkeypatch) -> None:
    """The game's resume points counted but never noted: every look-ahead's rollouts play the
    phase from its start (as before session 11)."""

    point = phase_starts.PhaseStarts.resume_point

    def counted(self, game):
        point(self, game)
        self.at = None
    monkeypatch.setattr(phase_starts.PhaseStarts, "resume_point", counted)


def _looked_ahead(tmp_path, monkeypatch, points: bool, extra: str = "") -> tuple:
    """The gift game with each look-ahead's values and the resume point its rollouts went on
    from (None: the phase's start); `points=False`: the game notes no resume point, so every
    rollout plays the phase from its start (as before session 11)."""
    from ruleslang.runtime.agents import lookahead

    values, start_of = lookahead.Lookahead.values, phase_starts.PhaseStarts.start_of
    seen: list = []
    starts: list = []

    def noted(self, game, d, answers, **kwargs):
        out = values(self, game, d, answers, **kwargs)
        seen.append((d.id, out))
        return out

    def started(self, game):
        start = start_of(self, game)
        starts.append(getattr(start, "point", None))
        return start

    monkeypatch.setattr(lookahead.Lookahead, "values", noted)
    monkeypatch.setattr(phase_starts.PhaseStarts, "start_of", started)
    if not points:
        _no_resume_points(monkeypatch)
    game = gift_game(tmp_path, extra=extra)
    game.run(1)
    return game, seen, starts


def test_rollouts_from_a_resume_point_value_answers_as_rollouts_from_the_phase_start(tmp_path, monkeypatch):
    # session 11: a look-ahead in the battle phase replays it up to the last resume point once
    # (before the battle's step or before the battle) and its rollouts go on from there; each
    # answer's value must be the very float the rollouts from the phase's start gave
    game, seen, starts = _looked_ahead(tmp_path, monkeypatch, points=True)
    monkeypatch.undo()
    whole, seen_whole, starts_whole = _looked_ahead(tmp_path, monkeypatch, points=False)
    assert seen == seen_whole and len(seen) >= 5
    assert all(p is None for p in starts_whole)
    # the gift (after the battles) and the retreats: every one from a point
    assert len([p for p in starts if p is not None]) == len(seen)
    assert game.decisions == whole.decisions and game.state.events == whole.state.events


def test_a_side_that_won_before_the_point_has_won_in_the_rollouts_from_it(tmp_path, monkeypatch):
    # the rules may declare a winner within a phase that goes on (the game stops after it): the
    # copies made at a later point must know it, as copies replaying the phase from its start did
    won = "\nhook won before battle:\n    win Allies \"a test\"\n"
    game, seen, starts = _looked_ahead(tmp_path, monkeypatch, points=True, extra=won)
    monkeypatch.undo()
    whole, seen_whole, _ = _looked_ahead(tmp_path, monkeypatch, points=False, extra=won)
    assert game.ctx.winner is not None and answers(game, "gift.n")
    assert any(p is not None for p in starts)
    assert seen == seen_whole


@pytest.mark.parametrize("taken", [True, False])
def test_a_start_made_at_a_resume_point_is_the_game_there(tmp_path, monkeypatch, taken):
    # the start at a resume point, replayed up to it from the last board kept or (`taken`) taken
    # from the game as it stands when nothing changed since (`PhaseStarts._untouched`), is the
    # game as it was there: its board (but for the version, which is the one a copy from the
    # phase's start had when replayed: see `_Points`), the kit's state (the battles left, the
    # battle and its step, whether a procedure ended), dice, results, options
    import pickle

    kept: dict = {}
    point, start_of = phase_starts.PhaseStarts.resume_point, phase_starts.PhaseStarts.start_of
    made: list = []
    hooks: list = []

    def keep_all(self, game):
        number = self.point
        point(self, game)
        kept[number] = phase_starts.PhaseStart(game, game.state.phase, point=number)

    def compared(self, game):
        start = start_of(self, game)
        hooks.append(self)
        if start is not None and start.point is not None:
            there = kept[start.point]
            for name in ("rng", "phase", "round", "player", "options", "contested", "point", "winner"):
                assert getattr(start, name) == getattr(there, name), name
            assert start.answered == there.answered and start.events == there.events
            assert pickle.loads(start.results) == pickle.loads(there.results)
            assert repr(pickle.loads(start.kit)) == repr(pickle.loads(there.kit))
            board, board_there = pickle.loads(start.board), pickle.loads(there.board)
            for data in (board, board_there):
                del data["version"], data["quiet_changes"]
            assert repr(board) == repr(board_there)
            made.append(pickle.loads(start.kit))
        return start
    monkeypatch.setattr(phase_starts.PhaseStarts, "resume_point", keep_all)
    monkeypatch.setattr(phase_starts.PhaseStarts, "start_of", compared)
    if not taken:
        monkeypatch.setattr(phase_starts.PhaseStarts, "_untouched", staticmethod(lambda *args: False))
    game = gift_game(tmp_path)
    game.run(1)
    assert len(made) >= 5
    hook = hooks[0]
    assert (hook.taken >= 5 and hook.replayed == 0) if taken else (hook.taken == 0 and hook.replayed >= 5)
    # within a battle (a retreat's: before its step) and as the battle phase's procedure ended
    # (the gift, asked after it)
    assert any(kit["battle_at"] is not None for kit in made)
    assert len([kit for kit in made if kit["ended"]]) == 5
    assert answers(game, "gift.n") == [2] * 5


def test_battle_estimates_kept_across_decisions_value_answers_as_a_memo_of_each_decisions_own(monkeypatch):
    # session 12: the quick policies' battle estimates (`Lookahead.sims`) are kept from one
    # decision's rollouts to the next decisions' (each is simulated with dice of its own, seeded by
    # the battle); every look-ahead's values must be the very floats of a memo made anew for each
    # decision, as before
    from ruleslang.runtime.agents import heuristic, lookahead

    simulate, values = heuristic.simulate, lookahead.Lookahead.values

    def played(kept: bool) -> tuple[list, int, int]:
        seen, found = [], {"made": 0, "kept": 0}

        def noted(self, game, d, answers, **kwargs):
            known = set(self.sims)
            if not kept:
                self.sims.clear()  # a memo of this decision's own
            asked = []
            monkeypatch.setattr(heuristic, "simulate",
                                lambda a, d_, rng, **how: (asked.append((a, d_)), simulate(a, d_, rng, **how))[1])
            out = values(self, game, d, answers, **kwargs)
            monkeypatch.setattr(heuristic, "simulate", simulate)
            found["made"] += len(asked)
            found["kept"] += len([key for key in self.sims if key in known])
            seen.append((d.id, d.player, out))
            return out
        monkeypatch.setattr(lookahead.Lookahead, "values", noted)
        game = asking(make_game(["aar/house-rules@1"], seed=2, default_agent="heuristic"))
        game.run(1)
        monkeypatch.undo()
        return seen, found["made"], found["kept"]
    seen, made, kept = played(True)
    fresh, made_fresh, _ = played(False)
    assert seen == fresh and len(seen) >= 3
    # later decisions had earlier decisions' estimates at hand, and simulated no more than anew
    assert kept > 0 and made <= made_fresh


def test_copies_given_the_games_cached_settings_value_answers_as_copies_that_work_them_out(monkeypatch):
    # session 12: a copy's settings start with the answers the game's have cached (a setting of a
    # unit kind is asked once for a phase, a battle's for the game): every look-ahead's values
    # must be the very floats of copies whose settings work every answer out again, and the
    # look-ahead must ask the rules fewer settings
    from ruleslang.runtime import config as settings
    from ruleslang.runtime.agents import lookahead

    for_context, env = settings.ProcedureConfig.for_context, settings.ProcedureConfig._env

    def played(cached: bool) -> tuple[list, int]:
        seen, asked, inside = [], [0], [False]

        def copied(self, ctx, like=None, cached=False, keep=cached):
            return for_context(self, ctx, like, cached and keep)

        def evaluated(self):  # a setting's evaluation (`unit_fn`'s, `type_fn`'s, `value`'s)
            asked[0] += inside[0]
            return env(self)
        values = lookahead.Lookahead.values

        def noted(self, game, d, answers, **kwargs):
            inside[0] = True
            out = values(self, game, d, answers, **kwargs)
            inside[0] = False
            seen.append((d.id, d.player, out))
            return out
        monkeypatch.setattr(settings.ProcedureConfig, "for_context", copied)
        monkeypatch.setattr(settings.ProcedureConfig, "_env", evaluated)
        monkeypatch.setattr(lookahead.Lookahead, "values", noted)
        game = asking(make_game(["aar/house-rules@1"], seed=2, default_agent="heuristic"))
        game.run(1)
        monkeypatch.undo()
        return seen, asked[0]
    seen, asked = played(True)
    again, asked_again = played(False)
    assert seen == again and len(seen) >= 3
    assert 0 < asked < asked_again


def test_an_answer_whose_first_rollout_throws_no_die_after_it_values_as_all_its_rollouts(tmp_path, monkeypatch):
    # session 13: an answer whose first rollout throws no die after it (the decisions after the
    # turn's last battle) has its other rollouts not played: they would play as the first did
    # (`_Rollout.drew_no_die`). Every look-ahead's values must be the very floats of every
    # rollout played, with fewer rollouts played
    from ruleslang.runtime.agents import lookahead

    values, rollout = lookahead.Lookahead.values, lookahead.Lookahead._rollout

    def played(make, shortcut: bool) -> tuple[list, int, int]:
        seen, rollouts = [], [0]

        def noted(self, game, d, answers, **kwargs):
            out = values(self, game, d, answers, **kwargs)
            seen.append((d.id, d.player, out))
            return out

        def counted(self, *args, **kwargs):
            rollouts[0] += 1
            return rollout(self, *args, **kwargs)
        monkeypatch.setattr(lookahead.Lookahead, "values", noted)
        monkeypatch.setattr(lookahead.Lookahead, "_rollout", counted)
        if not shortcut:
            monkeypatch.setattr(lookahead._Rollout, "drew_no_die", staticmethod(lambda *args: False))
        game = make()
        game.run(1)
        alike = sum(a.lookahead.counts.get(lookahead.DICELESS, 0) for a in game.agents.values())
        monkeypatch.undo()
        return seen, rollouts[0], alike

    def gift():
        return gift_game(tmp_path)
    seen, rollouts, alike = played(gift, True)
    every, all_rollouts, none = played(gift, False)
    assert seen == every and len(seen) >= 5
    # the gift's answers throw no die after them (only moves, placement and income follow)
    assert alike >= 5 and none == 0
    assert rollouts == all_rollouts - alike * (lookahead.ROLLOUTS - 1)

    # a decision in the battles (house rules' emergency infantry): its rollouts throw dice and
    # come to different values, so each is played
    def house_rules():
        return asking(make_game(["aar/house-rules@1"], seed=1, default_agent="heuristic"))
    seen, rollouts, alike = played(house_rules, True)
    every, all_rollouts, _ = played(house_rules, False)
    assert seen == every and len(seen) >= 1 and rollouts == all_rollouts


def test_a_rollout_that_throws_a_die_after_the_answer_is_not_taken_for_its_others(tmp_path):
    # the check itself: a copy whose own generator gave a die, or was replaced, is not diceless
    from ruleslang.runtime.agents import lookahead

    game = gift_game(tmp_path)
    agent = lookahead._Rollout([], [], None, None, "look-ahead:4:0:0", None, {})
    assert not agent.drew_no_die(game)  # the answer was never given: no generator of its own
    game.host.rng = agent.dice = random.Random(agent.stream)
    assert agent.drew_no_die(game)
    game.host.rng.getrandbits(3)
    assert not agent.drew_no_die(game)
    game.host.rng = random.Random(agent.stream)
    assert not agent.drew_no_die(game)  # another generator, even as fresh


def test_a_copy_is_freed_once_valued_without_the_collector(tmp_path, monkeypatch, collector_paused):
    # each copy is closed as its rollout ends (`Game.close`): freed by reference counting, it
    # leaves the collector nothing, where a collection after each rollout freed it before

    fork, copies = phase_starts.fork, []

    def kept(*args, **kwargs):
        clone = fork(*args, **kwargs)
        # (its context may live on, emptied: the settings it built are kept as templates)
        copies.append((weakref.ref(clone), weakref.ref(clone.state), weakref.ref(clone.board)))
        return clone
    monkeypatch.setattr(phase_starts, "fork", kept)
    game = gift_game(tmp_path)
    game.run(1)
    assert copies and all(ref() is None for refs in copies for ref in refs)
