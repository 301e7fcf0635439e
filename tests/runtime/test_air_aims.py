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


def test_a_bombers_raids_walk_its_raid_targets_alone_and_are_the_same(monkeypatch):
    """`raids_of` walks a bombing unit's reach for the spaces the raid condition accepts alone
    (issue 15, session 30; before, for every enemy territory within it, each with a landing
    search, then kept the raid targets): its moves are those of the walk over every enemy
    territory, and it walks fewer spaces. The raid condition rolls no dice (the checker refuses
    one that does, T310), so asking it first of every enemy territory in reach changes nothing."""
    kept_raids, kept_walk = MovementEngine.raids_of, MovementEngine._air_walk_among
    seen = {"raids": 0, "walked": 0, "walked before": 0, "moves": 0}

    def before(engine, unit_id):
        # the walk as it was: every enemy territory within the flight, the raid targets kept after
        unit = engine._unit(unit_id)
        rules = engine._ur[unit_id]
        left = rules.movement - unit.moved
        held = {s for s, _ in engine.board.air_reach(unit.space, left)
                if not engine.board.is_sea[s] and engine._enemy_player(s)}
        seen["walked before"] += len(held)
        return engine._raid_moves(unit, rules, kept_walk(engine, unit, rules, left, held) if held else {})

    inside = [False]  # (in `raids_of`: the plans' own air walks are not counted)

    def walk(self, unit, rules, left, among):
        if inside[0]:
            seen["walked"] += len(among)
        return kept_walk(self, unit, rules, left, among)

    def raids_of(self, unit_id):
        rules, unit = self._ur.get(unit_id), self._by_id.get(unit_id)
        walked = False  # (a bomber whose whole reach is not kept: `raids_of` walks it for its raids)
        if rules is not None and unit is not None and rules.can_bomb and self._bombs_or_escorts(rules) \
                and self._blocked(unit, rules) is None:
            table, key = self._reach_kept(unit, rules, rules.movement - unit.moved)
            walked = key not in table
        inside[0] = True
        try:
            made = kept_raids(self, unit_id)
        finally:
            inside[0] = False
        if walked:
            monkeypatch.setattr(MovementEngine, "_air_walk_among", kept_walk)
            try:
                assert made == before(self, unit_id)
            finally:
                monkeypatch.setattr(MovementEngine, "_air_walk_among", walk)
            seen["raids"] += 1
            seen["moves"] += len(made)
        return made
    for name, wrapper in (("raids_of", raids_of), ("_air_walk_among", walk)):
        monkeypatch.setattr(MovementEngine, name, wrapper)
    make_game(["aar/house-rules@1"], seed=1, rounds=3, default_agent="heuristic").run(3)
    assert seen["raids"] >= 5 and seen["moves"] > 0, seen
    assert seen["walked"] < seen["walked before"] / 2, seen  # (seed 1: 99 spaces walked before)
