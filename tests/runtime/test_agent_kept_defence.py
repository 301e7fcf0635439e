"""The heuristic's amphibious assaults keep each territory's firing defenders while the combat plan
is made (attack_planning.py `_assaults`): every time they are used they must be those worked out
afresh from the board."""

from __future__ import annotations

from game_fixtures import make_game
from ruleslang.runtime.agents.attack_planning import AttackPlanning


def test_the_kept_defenders_of_an_assault_are_those_of_the_board_now(monkeypatch):
    seen = {"assaults": 0, "defenders": 0}
    real = AttackPlanning._takes

    def compared(self, game, target, units, defenders, needed, *, amphibious_from=None):
        if amphibious_from is not None:
            fresh = [u for u in self._enemies(game, target) if self._fire(game, u, "defender") > 0]
            assert [u.id for u in defenders] == [u.id for u in fresh], target
            seen["assaults"] += 1
            seen["defenders"] += len(fresh)
        return real(self, game, target, units, defenders, needed, amphibious_from=amphibious_from)
    monkeypatch.setattr(AttackPlanning, "_takes", compared)
    game = make_game(["aar/house-rules@1"], default_agent="heuristic", seed=2, rounds=4)
    game.run(4)
    assert seen["assaults"] > 10 and seen["defenders"] > 10, seen
