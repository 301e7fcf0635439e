"""The movement engine's per-phase work kept across phases (issue 15): each unit kind's move rules
are kept while the counters their settings read are unchanged (`ProcedureConfig.kept`), and the
search for the nearest landing space is kept per map and set of landing spaces
(`MoveBoard.nearest`). Each is compared with the full computation."""

from __future__ import annotations

from collections import deque

from game_fixtures import make_game
from ruleslang.base.paths import packaged_root
from ruleslang.compare.runner import LoadedOnce
from ruleslang.runtime.config import ProcedureConfig, procedure_config, runtime_procedures
from ruleslang.runtime.kit import moves
from ruleslang.runtime.kit.movement_rules import move_board

HOUSE = ["aar/house-rules@1"]


def test_kept_unit_rules_are_those_worked_out_anew(monkeypatch):
    real = moves.unit_rules_of
    phases = []

    def compared(ctx, config, same=None):
        rules = real(ctx, config, same)
        alone = ProcedureConfig(ctx, config.proc)  # nothing kept, nothing lasting,
        alone._options = None  # nothing shared with other games
        fresh = real(ctx, alone)
        kinds = {(u.type, u.owner) for u in ctx.state.units}
        phases.append(len(config.kept("unit_rules")))
        for kind in sorted(kinds):
            assert rules(*kind) == fresh(*kind), kind
        return rules
    monkeypatch.setattr(moves, "unit_rules_of", compared)
    workspace = LoadedOnce([packaged_root()])
    for seed in (2, 3):  # the second game shares the first's program
        phases.clear()
        game = make_game(HOUSE, seed=seed, rounds=2, default_agent="random", workspace=workspace)
        game.run(2)
        assert len(phases) >= 20
        assert max(phases) > 0  # kinds were kept from earlier phases


def test_answers_that_read_nothing_a_game_changes_are_shared_by_games_with_the_same_options(monkeypatch):
    def config_of(game):
        _, proc = runtime_procedures(game.compiled, "move")[0]
        return procedure_config(game.ctx, proc)
    workspace = LoadedOnce([packaged_root()])
    first = make_game(HOUSE, seed=1, rounds=1, default_agent="random", workspace=workspace)
    second = make_game(HOUSE, seed=2, rounds=1, default_agent="random", workspace=workspace)
    other = make_game(HOUSE, seed=1, rounds=1, default_agent="random", settings=["minor_victory_round=7"],
                      workspace=workspace)
    assert first.compiled is second.compiled is other.compiled
    key = ("unit_rules", "infantry", "Germans")
    assert config_of(first)._shared_key(key) == config_of(second)._shared_key(key)
    assert config_of(first)._shared_key(key) != config_of(other)._shared_key(key)
    computed = []
    real = ProcedureConfig.lasting

    def counted(self, key, compute):
        return real(self, key, lambda reader: computed.append(key) or compute(reader))
    monkeypatch.setattr(ProcedureConfig, "lasting", counted)
    rules = moves.unit_rules_of(first.ctx, config_of(first))("infantry", "Germans")
    assert computed == [key]  # the program's first game computes it
    computed.clear()
    assert moves.unit_rules_of(second.ctx, config_of(second))("infantry", "Germans") is rules
    assert computed == []
    assert moves.unit_rules_of(other.ctx, config_of(other))("infantry", "Germans") == rules
    assert computed == [key]


def test_answers_that_read_counters_are_shared_by_games_whose_counters_hold_them_alike(monkeypatch):
    """An answer that read counters (an air unit's move rules read whether its owner developed
    long range aircraft) is kept for the program's other games with the entries it read: a game
    whose counters hold them alike takes it without working it out, one whose counters differ
    works it out, and what it took still watches the entries it read."""
    def config_of(game):
        _, proc = runtime_procedures(game.compiled, "move")[0]
        return procedure_config(game.ctx, proc)

    def develop(game):
        ctx = game.ctx
        ctx.set_counter("developed", (ctx.player_values["Germans"],
                                      ctx.enums["technology"].by_name["long_range_aircraft"]), True)
    workspace = LoadedOnce([packaged_root()])
    first, second, third = (make_game(HOUSE, seed=seed, rounds=1, default_agent="random", workspace=workspace)
                            for seed in (1, 2, 3))
    computed = []
    real = ProcedureConfig.lasting

    def counted(self, key, compute):
        return real(self, key, lambda reader: computed.append(key) or compute(reader))
    monkeypatch.setattr(ProcedureConfig, "lasting", counted)
    key = ("unit_rules", "fighter", "Germans")
    before = moves.unit_rules_of(first.ctx, config_of(first))("fighter", "Germans")
    assert computed == [key]
    computed.clear()
    config = config_of(second)
    config.new_phase()
    assert moves.unit_rules_of(second.ctx, config)("fighter", "Germans") is before
    assert computed == [] and config.is_lasting(key)
    develop(second)  # the entry the shared answer read changes: it is dropped and worked out anew
    config.new_phase()
    assert not config.is_lasting(key)
    after = moves.unit_rules_of(second.ctx, config)("fighter", "Germans")
    assert computed == [key] and after.movement == before.movement + 2
    computed.clear()
    develop(third)  # a game whose counters hold the developed entry as the second's did
    assert moves.unit_rules_of(third.ctx, config_of(third))("fighter", "Germans") is after
    assert computed == []
    fresh = ProcedureConfig(third.ctx, config_of(third).proc)  # nothing kept, nothing shared
    fresh._options = None
    assert moves.unit_rules_of(third.ctx, fresh)("fighter", "Germans") == after
    assert computed == [key]


def test_a_counter_the_rules_read_empties_what_is_kept():
    game = make_game(HOUSE, seed=1, rounds=1, default_agent="random")
    ctx = game.ctx
    _, proc = runtime_procedures(game.compiled, "move")[0]
    config = procedure_config(ctx, proc)
    config.new_phase()
    rules = moves.unit_rules_of(ctx, config)
    before = rules("fighter", "Germans")
    assert config.kept("unit_rules")[("fighter", "Germans")] is before
    ctx.set_counter("developed", (ctx.player_values["Germans"], ctx.enums["technology"].by_name["long_range_aircraft"]),
                    True)
    config.new_phase()
    assert config.kept("unit_rules") == {}
    after = moves.unit_rules_of(ctx, config)("fighter", "Germans")
    assert after.movement == before.movement + 2


def _nearest(board, sources):
    found = {s: (0, s) for s in sources}
    queue = deque(sources)
    while queue:
        here = queue.popleft()
        for there in board.air[here]:
            if there not in found:
                found[there] = (found[here][0] + 1, found[here][1])
                queue.append(there)
    return found


def test_nearest_landing_search_kept_per_map():
    game = make_game(HOUSE, seed=1, rounds=1, default_agent="random")
    board = move_board(game.state.map)
    lands = board.land_spaces
    for sources in (lands[:5], lands[3:40:3], (lands[7],), lands[::-1][:9]):
        sources = tuple(sources)
        first = board.nearest(sources)
        assert first == _nearest(board, sources)
        assert board.nearest(sources) is first
        assert {d for d, _ in first.values()} >= {0, 1}
