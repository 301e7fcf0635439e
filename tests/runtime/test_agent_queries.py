"""The cheaper queries the heuristic agent's plans ask (issue 15, session 10) answer as the
queries they replaced: each is compared with the full one on every call of heuristic games."""

from __future__ import annotations

import pytest

from game_fixtures import make_game, run_phases
from ruleslang.runtime.kit.movement import MovementEngine

HB = "Holland Belgium"
# a German bomber raids the United Kingdom from Holland Belgium, where a fighter that may escort
# it waits (Global 1940: its escorts fly once a raid has flown)
RAID = {"scenario": {"units": {HB: {"Germans": {"bomber": 1, "fighter": 1, "infantry": 1}},
                               "United Kingdom": {"British": {"infantry": 2, "fighter": 1}}}},
        "orders": {"Germans": [{"round": 1, "combat": [{"from": HB, "type": "bomber", "to": "United Kingdom",
                                                        "kind": "bomb"}],
                                "answers": {"bombing_raid.target": "industrial_complex"}}]}}


@pytest.mark.parametrize("case", ["heuristic", "escort"])
def test_a_units_raids_are_its_bomb_moves(case, monkeypatch):
    """`raids_of` (the combat plan asks it of every unit) lists the "bomb" moves `moves_of` gives,
    in its order: for bombers as heuristic plans are made, and for escorts once a raid has flown
    (after each raid, every unit of the player is asked)."""
    asked = {"units": 0, "raids": 0, "escorts": 0}
    kept, kept_apply = MovementEngine.raids_of, MovementEngine.apply

    def compared(self, unit_id):
        answer = kept(self, unit_id)
        assert answer == [m for m in self.moves_of(unit_id) if m.kind == "bomb"], unit_id
        asked["units"] += 1
        asked["raids"] += len(answer)
        if not self._ur[unit_id].can_bomb:
            asked["escorts"] += len(answer)
        return answer

    def applied(self, move):
        kept_apply(self, move)
        if move.kind == "bomb":
            for unit_id in self.movable_units():
                compared(self, unit_id)
    monkeypatch.setattr(MovementEngine, "raids_of", compared)
    monkeypatch.setattr(MovementEngine, "apply", applied)
    if case == "heuristic":
        game = make_game(["aar/house-rules@1"], seed=1, rounds=3, default_agent="heuristic")
        game.run(3)
        assert asked["units"] > 100 and asked["raids"] > 10, asked
    else:
        game = make_game(["g40/house-rules@1"], **RAID)
        run_phases(game, "Germans", "combat_move")
        assert asked["escorts"] == 1, asked
