"""The combat plan walks its air units for the targets its land units reach alone, and asks each
bombing unit's raids once (issue 15, session 29): a target only air units reach is passed over (a
land unit must take it), so where valuing a target rolls no dice the air units' walks look for a
landing from those spaces alone. Checked on the plans of seeded heuristic games against the plan
the agent made before (every space an air unit reaches walked, then the targets only air units
reach passed over), its dice left where that plan leaves them."""

from __future__ import annotations

from game_fixtures import make_game
from ruleslang.runtime.agents.attack_planning import AttackPlanning
from ruleslang.runtime.kit.movement import MovementEngine


def test_the_air_units_aim_at_the_land_units_targets_and_the_plan_is_the_same(monkeypatch):
    """Each combat plan equals the plan made with the air units walked for every target they
    reach (the plan's path where the score rolls dice), with the agent's generator left in the same
    state; the air walks of the plan are asked of the spaces its land units reach alone, fewer
    than before, and the plans send air units to attack."""
    kept_plan, kept_among = AttackPlanning._combat_plan, MovementEngine.kept_destinations_among
    seen = {"plans": 0, "air moves": 0, "spaces": 0, "spaces before": 0}
    asked: list[int] = []  # the sizes of the air walks' sets of spaces, in the plan being made

    def among(self, unit_id, spaces):
        if self._ur[unit_id].domain == "air":
            asked.append(len(spaces))
        return kept_among(self, unit_id, spaces)

    def plan(self, game, engine):
        compiled, start = game.compiled, self.rng.getstate()
        random_score = compiled.is_random
        monkeypatch.setattr(compiled, "is_random", lambda name: name == "score" or random_score(name), raising=False)
        try:
            before = kept_plan(self, game, engine)
        finally:
            monkeypatch.setattr(compiled, "is_random", random_score, raising=False)
        seen["spaces before"] += sum(asked)
        asked.clear()
        after = self.rng.getstate()
        self.rng.setstate(start)
        made = kept_plan(self, game, engine)
        assert made == before
        assert self.rng.getstate() == after
        seen["spaces"] += sum(asked)
        asked.clear()
        seen["plans"] += 1
        seen["air moves"] += sum(1 for m in made if m.kind == "move" and self._domain(game, game.unit_or_none(m.units[0])) == "air")
        return made
    monkeypatch.setattr(MovementEngine, "kept_destinations_among", among)
    monkeypatch.setattr(AttackPlanning, "_combat_plan", plan)
    make_game(["aar/house-rules@1"], seed=2, rounds=3, default_agent="heuristic").run(3)
    assert seen["plans"] > 5 and seen["air moves"] > 0, seen
    assert seen["spaces"] < seen["spaces before"] / 2, seen


def test_a_plan_asks_each_bombing_units_raids_once(monkeypatch):
    """`raids_of` is asked once a plan of each unit that bombs (its answer read by the candidates'
    order, the escorts' reserve and the raids), and of no escort before a raid has flown."""
    kept_plan, kept_raids = AttackPlanning._combat_plan, MovementEngine.raids_of
    asked: list[int] = []
    seen = {"plans": 0, "asked": 0}

    def raids_of(self, unit_id):
        asked.append(unit_id)
        return kept_raids(self, unit_id)

    def plan(self, game, engine):
        asked.clear()
        made = kept_plan(self, game, engine)
        assert len(asked) == len(set(asked)), asked
        assert all(not engine.escorts_raids(uid) for uid in asked), asked
        seen["plans"] += 1
        seen["asked"] += len(asked)
        return made
    monkeypatch.setattr(MovementEngine, "raids_of", raids_of)
    monkeypatch.setattr(AttackPlanning, "_combat_plan", plan)
    make_game(["aar/house-rules@1"], seed=1, rounds=2, default_agent="heuristic").run(2)
    assert seen["plans"] > 5 and seen["asked"] >= 5, seen
    # (Global 1940's fighters escort: none is asked before a raid has flown)
    make_game(["g40/house-rules@1"], seed=1, rounds=1, default_agent="heuristic").run(1)
    assert seen["plans"] > 10, seen
