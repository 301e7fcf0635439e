"""`MovementEngine.movable_units` keeps each unit's answer between moves and works out again only
the units a move touched, and tells whether a land or sea unit can move from its first step: after
every move of random games, its answer is the one a new engine on the same board gives, and each
unit's is whether its full reach (every path worked out) is empty."""

from __future__ import annotations

import pytest

from game_fixtures import make_game
from ruleslang.runtime.kit.movement import MovementEngine


@pytest.mark.parametrize("refs,rounds,seed", [(["aar/house-rules@1"], 3, 2), (["aar/base@1"], 3, 5),
                                             (["g40/house-rules@1"], 2, 4)])
def test_the_kept_answers_are_those_of_a_new_engine(refs, rounds, seed, monkeypatch):
    asked = []
    kept = MovementEngine.movable_units

    def compared(self):
        answer = kept(self)
        fresh = MovementEngine(self.state, self.rules, self.player, self.phase)
        assert answer == kept(fresh), (self.player, self.phase, len(asked))
        walked = MovementEngine(self.state, self.rules, self.player, self.phase)
        walked._sync()
        for unit in walked._mine:
            rules = walked._ur[unit.id]
            if walked._blocked(unit, rules) is None:
                assert fresh._can_reach(unit, rules) == bool(walked._reach_of(unit, rules)), unit
        asked.append(len(answer))
        return answer
    monkeypatch.setattr(MovementEngine, "movable_units", compared)
    game = make_game(refs, seed=seed, rounds=rounds, default_agent="random")
    game.run(rounds)
    # many moves were made, in both kinds of move phase, and most asks found units to move
    assert len(asked) > 100
    assert sum(1 for n in asked if n > 0) > len(asked) // 2
