"""Revised's technologies in play: rockets fire before a player's battles (the hook
`rocket_launch` of `aar/base@1`), only for a player that has them; bots fire at the complex
whose owner they can cost the most; industrial technology lowers what a purchase costs."""

from __future__ import annotations

import copy

from game_fixtures import events, logs, make_game, run_phases, treasury

from ruleslang.runtime.config import ProcedureConfig
from ruleslang.runtime.kit.moves import unit_rules_of

ROCKETS = {"counters": {"developed": {"Germans": {"rockets": True}}}}


def test_rockets_fire_before_the_battles_of_a_player_that_has_them():
    game = make_game(["aar/base@1"], scenario=ROCKETS, agents={"Germans": "heuristic"})
    british, russians = treasury(game, "British"), treasury(game, "Russians")
    run_phases(game, "Germans", "battle")
    assert events(game, "hook", name="rocket_launch", when="before", target="battle")
    fired = [m for m in logs(game) if m.startswith("a rocket from Germans")]
    # three territories hold German AA guns; each of their rockets goes to a different complex
    assert len(fired) == 2
    # the United Kingdom (8) is worth more than Caucasus (4): the first rocket goes there
    assert "the complex of United Kingdom" in fired[0] and "the complex of Caucasus" in fired[1]
    lost = [int(m.split(" loses ")[1].split(" ")[0]) for m in fired]
    assert treasury(game, "British") == british - lost[0] and treasury(game, "Russians") == russians - lost[1]
    assert lost[1] <= 4


def test_no_rocket_without_the_technology():
    game = make_game(["aar/base@1"], agents={"Germans": "heuristic"})
    run_phases(game, "Germans", "battle")
    assert not events(game, "hook", name="rocket_launch")
    assert not [m for m in logs(game) if m.startswith("a rocket")]


def test_industrial_technology_lowers_the_purchase_prices_the_agents_see():
    scenario = {"counters": {"developed": {"Germans": {"industrial_technology": True}}}}
    orders = {"Germans": [{"round": 1, "purchase": {"infantry": 20}}]}
    game = make_game(["aar/base@1"], scenario=scenario, orders=orders)
    run_phases(game, "Germans", "purchase")
    assert events(game, "purchase", player="Germans")[0]["spent"] == 40
    assert treasury(game, "Germans") == 0


def _move_rules(game):
    """The unit rules of the combat move phase just run (its settings, kept across phases)."""
    config = next(c for c in game.configs.values() if c.has("movement"))
    return unit_rules_of(game.ctx, config)


def test_a_technology_developed_mid_game_changes_the_movement_the_next_move_phase_sees():
    game = make_game(["aar/base@1"])
    run_phases(game, "Germans", "combat_move")
    before = _move_rules(game)("fighter", "Germans")
    russian = _move_rules(game)("fighter", "Russians")
    assert before.movement == 4
    run_phases(game, "Germans", "combat_move")
    # nothing the setting reads changed: the answer is kept, not evaluated again
    assert _move_rules(game)("fighter", "Germans") is before
    game.state.set_counter("developed", ("Germans", "long_range_aircraft"), True)
    run_phases(game, "Germans", "combat_move")
    assert _move_rules(game)("fighter", "Germans").movement == 6
    # the Russian answer read another entry of the counter: kept
    assert _move_rules(game)("fighter", "Russians") is russian and russian.movement == 4


def test_a_move_setting_that_reads_the_board_is_evaluated_again_each_phase():
    game = make_game(["aar/base@1"])
    run_phases(game, "Germans", "combat_move")
    config = next(c for c in game.configs.values() if c.has("movement"))
    reads = []

    def reads_the_board(ctx):
        reads.append(ctx.board.controller("Germany"))
        return len(reads)

    assert isinstance(config, ProcedureConfig)
    assert config.lasting(("test",), reads_the_board) == 1
    assert config.lasting(("test",), reads_the_board) == 1   # the same phase
    config.new_phase()
    assert config.lasting(("test",), reads_the_board) == 2


def test_a_settings_copy_for_the_same_counters_takes_the_last_copys_answers_and_a_write_checks_again(monkeypatch):
    # `ProcedureConfig.for_context` for a state holding the game's very counters (as every battle
    # chain an agent asks about does) reuses the last copy's check of the lasting answers; a
    # counter written since makes it check again, and drop what the write made stale
    from types import SimpleNamespace  # start-up time: only this test makes a stand-in context
    game = make_game(["aar/base@1"], scenario=ROCKETS)  # the counter exists: a write changes it in place
    run_phases(game, "Germans", "combat_move")
    _move_rules(game)("fighter", "Germans"), _move_rules(game)("fighter", "Russians")
    config = next(c for c in game.configs.values() if c.has("movement"))
    germans, russians = ("unit_rules", "fighter", "Germans"), ("unit_rules", "fighter", "Russians")
    assert config.reads_counters() and config.is_lasting(germans) and config.is_lasting(russians)
    checks = []
    real = ProcedureConfig._forget_stale
    monkeypatch.setattr(ProcedureConfig, "_forget_stale", lambda self: (checks.append(self), real(self))[1])

    def copy():
        return config.for_context(SimpleNamespace(state=game.state.copy_sharing(set(), {"counters"})))
    first, second = copy(), copy()
    assert len(checks) == 1  # the second copy took the first one's answers
    assert second._lasting == first._lasting and second._lasting is not first._lasting
    assert second.is_lasting(germans) and second.is_lasting(russians)
    bomber = ("unit_rules", "bomber", "Russians")  # a Russian bomber: none was asked about
    assert not second.is_lasting(bomber)
    _move_rules(game)("bomber", "Russians")  # an answer comes: the next copy holds it
    assert len(checks) == 1 and copy().is_lasting(bomber) and len(checks) == 2
    game.state.set_counter("developed", ("Germans", "long_range_aircraft"), True)
    third = copy()
    assert len(checks) == 3 and not third.is_lasting(germans) and third.is_lasting(russians)
    config._made_for = None  # the same copy made without the last one's
    assert copy()._lasting == third._lasting


def test_settings_copies_for_states_like_one_another_take_the_first_copys_check(monkeypatch):
    # a look-ahead's copies made from one kept phase start hold equal counters in dicts of their
    # own; `for_context(ctx, like)` checks the lasting answers against the first and gives the
    # next copies what that check left: each the copy made afresh for its state (answers, the
    # counters the check looked at, what came and went); another `like`, or an answer come
    # since, checks again
    from types import SimpleNamespace  # start-up time: only these tests make a stand-in context
    game = make_game(["aar/base@1"], scenario=ROCKETS)
    run_phases(game, "Germans", "combat_move")
    _move_rules(game)("fighter", "Germans"), _move_rules(game)("fighter", "Russians")
    config = next(c for c in game.configs.values() if c.has("movement"))
    checks = []
    real = ProcedureConfig._forget_stale
    monkeypatch.setattr(ProcedureConfig, "_forget_stale", lambda self: (checks.append(self), real(self))[1])

    def state_like(counters):
        state = game.state.copy_sharing(set())  # counters of its own, equal to these
        state.counters = copy.deepcopy(counters)
        return state

    def made(like, state):
        return config.for_context(SimpleNamespace(state=state), like)

    def afresh(state):
        config._made_for = None
        return config.for_context(SimpleNamespace(state=state))

    def same(a, b) -> None:
        assert a._lasting == b._lasting and a._lasting is not b._lasting
        assert (a._read_names, a._changes) == (b._read_names, b._changes)
        assert (a._checked is None) == (b._checked is None)
        if a._checked is not None:  # the very counters of its own state, as the check looked at them
            assert a._checked[0] is a.ctx.state.counters and b._checked[0] is b.ctx.state.counters
            assert [(n, w) for n, _, w in a._checked[1]] == [(n, w) for n, _, w in b._checked[1]]
            assert all(c is a.ctx.state.counters.get(n) for n, c, _ in a._checked[1])

    # a counter the German fighter's answer read differs from the game's: the check drops it
    developed = copy.deepcopy(game.state.counters)
    start = object()
    lost = state_like(game.state.counters)
    lost.set_counter("developed", ("Germans", "long_range_aircraft"), True)
    first = made(start, lost)
    assert len(checks) == 1 and not first.is_lasting(("unit_rules", "fighter", "Germans"))
    assert first.is_lasting(("unit_rules", "fighter", "Russians"))
    for _ in range(2):
        state = state_like(lost.counters)
        state.counter_writes = dict(lost.counter_writes)
        before = len(checks)
        second = made(start, state)
        assert len(checks) == before  # no check: the first copy's answers
        same(second, afresh(state))
    other = object()
    state = state_like(developed)
    checks.clear()
    made(other, state)
    assert len(checks) == 1  # another phase start: checked again
    _move_rules(game)("bomber", "Russians")  # an answer comes: checked again, the new answer kept
    newer = made(other, state_like(developed))
    assert len(checks) == 2 and newer.is_lasting(("unit_rules", "bomber", "Russians"))
