"""A land unit with one step left needs no walk: in combat move its reach is the map's (every land
territory next to it, kept once per map, `MoveBoard.land_steps`), in non-combat move those of them
it may enter; and whether a land or sea unit can move is asked once for units of a kind standing
together (`_can_reach`, kept with the reaches). The air units stranded where they stand
(`stranded_air`, asked after every move of a non-combat plan) are kept until an air unit or a
carrier moves."""

from __future__ import annotations

import pytest

from conftest import record_calls
from game_fixtures import make_game
from movement_fixtures import REVISED, aar, board, engine, ids, rules  # noqa: F401 (fixtures)
from ruleslang.runtime.kit.movement import MovementEngine


def _walked(monkeypatch) -> list[str]:
    """The starts of the paths the engine's land and sea walks work out (`_paths`), as they are asked."""
    return record_calls(monkeypatch, MovementEngine, "_paths", lambda self, start, parent, ends: start)


def test_one_step_reaches_are_the_first_layer_of_a_walk_and_walk_nothing(aar, rules, monkeypatch):  # noqa: F811
    state = board(aar, """
        control:
          Ukraine S.S.R.: Germans
          Karelia S.S.R.: Germans
    """)
    walked = _walked(monkeypatch)
    one_step, two_steps = REVISED["infantry"], REVISED["armour"]
    compared = 0
    for player in ("Germans", "Russians", "Americans"):
        for phase in ("combat", "noncombat"):
            mover = engine(state, rules, player, phase)
            mover._sync()
            for start in mover.board.land_spaces:
                before = len(walked)
                reach = mover._land_walk(start, 1, one_step)
                assert len(walked) == before  # no walk
                # a two-step walk's first layer (blitzing or not, a first step is the same)
                layer = {s: p for s, p in mover._land_walk(start, 2, two_steps).items() if len(p) == 2}
                assert reach == layer and list(reach) == list(layer), (player, phase, start)
                compared += 1
                if phase == "combat":  # the map's own answer, shared by every engine on the map
                    assert reach is mover.board.land_steps(start)
    assert compared > 300
    # the non-combat answers leave out what a unit may not enter there
    russians = engine(state, rules, "Russians", "noncombat")
    russians._sync()
    assert "Ukraine S.S.R." not in russians._land_walk("Caucasus", 1, one_step)
    attacking = engine(state, rules, "Russians", "combat")
    attacking._sync()
    assert "Ukraine S.S.R." in attacking._land_walk("Caucasus", 1, one_step)


def test_units_of_a_kind_standing_together_ask_once_whether_they_can_move(aar, rules, monkeypatch):  # noqa: F811
    state = board(aar)
    asked = record_calls(monkeypatch, MovementEngine, "_first_step", lambda self, start, unit_rules: (start, unit_rules))
    for phase in ("combat", "noncombat"):
        germans = engine(state, rules, "Germans", phase)
        movable = germans.movable_units()
        infantry = ids(state, "Germany", "Germans", "infantry")
        assert len(infantry) > 1 and set(infantry) <= set(movable)
        # once per kind, place and movement left, however many units stand there
        assert len(asked) == len(set(asked)), phase
        # (infantry and artillery: one step, no blitz, the same walk)
        assert sum(1 for start, unit_rules in asked
                   if start == "Germany" and unit_rules.domain == "land" and not unit_rules.can_blitz) == 1
        # and a unit whose full reach is not empty is among them
        fresh = engine(state, rules, "Germans", phase)
        fresh._sync()
        for unit in fresh._mine:
            unit_rules = fresh._ur[unit.id]
            if fresh._blocked(unit, unit_rules) is None and fresh._reach_of(unit, unit_rules):
                assert unit.id in movable, unit
        asked.clear()


@pytest.mark.parametrize("refs,rounds,seed", [(["aar/house-rules@1"], 4, 1), (["g40/house-rules@1"], 2, 1)])
def test_the_kept_stranded_air_units_are_those_of_a_new_engine(refs, rounds, seed, monkeypatch):
    seen = {"asked": 0, "kept": 0}
    kept_apply = MovementEngine.apply

    def compared(self, move):
        kept_apply(self, move)
        if self.phase != "noncombat":
            return
        self._sync()
        kept = getattr(self, "_stranded", None) is not None  # (read before asking: asking keeps it)
        fresh = MovementEngine(self.state, self.rules, self.player, self.phase)
        assert self.stranded_air() == fresh.stranded_air(), (self.player, move)
        seen["asked"] += 1
        seen["kept"] += kept
    monkeypatch.setattr(MovementEngine, "apply", compared)
    game = make_game(refs, seed=seed, rounds=rounds, default_agent="heuristic")
    game.run(rounds)
    # most moves move no air unit nor carrier: the answer before them stands
    assert seen["asked"] > 50 and seen["kept"] > seen["asked"] // 3, seen
