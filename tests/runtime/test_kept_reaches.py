"""The heuristic agent's plans read the movement engine's kept reaches (`kept_destinations`: one
dict for the units whose walk is one) and sort out each dict's spaces once a plan (issue 15,
session 21): checked on the plans of seeded heuristic games against the engine's fresh answers."""

from __future__ import annotations

from game_fixtures import make_game
from ruleslang.runtime.agents.attack_planning import AttackPlanning
from ruleslang.runtime.agents.heuristic import HeuristicAgent
from ruleslang.runtime.kit.movement import MovementEngine


def _heuristic_game(seed: int, rounds: int = 2) -> None:
    """Play a few rounds of a house-rules game with heuristic agents (the wrapped queries check as it goes)."""
    make_game(["aar/house-rules@1"], seed=seed, rounds=rounds, default_agent="heuristic").run(rounds)


def test_a_kept_reach_is_the_engines_answer_shared_by_the_units_whose_walk_is_one(monkeypatch):
    """Every kept reach equals `destinations`' answer for the unit (at the spaces asked, for the
    combat plans' `kept_destinations_among`), is the same dict when asked again, and units of a
    kind standing together get one dict (fewer dicts than units asked, counted for the reaches
    asked whole; the combat plans' answers for the spaces they read: one dict per walk and set
    of spaces)."""
    kept, kept_among = MovementEngine.kept_destinations, MovementEngine.kept_destinations_among
    seen = {"asked": 0, "dicts": set(), "among": 0}
    held = []  # every answer counted, held: a freed dict's id may be another's later

    def ask(self, unit_id):
        answer = kept(self, unit_id)
        assert answer == self.destinations(unit_id), unit_id
        assert kept(self, unit_id) is answer or not answer, unit_id
        if answer:  # (the empty answers of units that cannot move are new dicts)
            seen["asked"] += 1
            seen["dicts"].add(id(answer))
            held.append(answer)
        return answer

    def ask_among(self, unit_id, among):
        answer = kept_among(self, unit_id, among)
        assert kept_among(self, unit_id, among) is answer or not answer, unit_id
        unit, rules = self._by_id[unit_id], self._ur[unit_id]
        # (an air unit's full walk made apart, not kept: `destinations` would keep it for the next asks)
        fresh = self._air_walk(unit, rules, rules.movement - unit.moved) \
            if answer and rules.domain == "air" else self.destinations(unit_id)
        assert [(s, p) for s, p in answer.items() if s in among] == [(s, p) for s, p in fresh.items() if s in among]
        seen["among"] += 1
        if answer and (rules.domain != "air" or not self.combat):  # (the whole kept reach)
            seen["asked"] += 1
            seen["dicts"].add(id(answer))
            held.append(answer)
        return answer
    monkeypatch.setattr(MovementEngine, "kept_destinations", ask)
    monkeypatch.setattr(MovementEngine, "kept_destinations_among", ask_among)
    _heuristic_game(1)
    assert seen["asked"] > 200 and len(seen["dicts"]) < seen["asked"] / 2, (seen["asked"], len(seen["dicts"]))
    assert seen["among"] > 200, seen["among"]


def test_the_combat_plans_land_reach_copies_no_reach_and_finds_each_units_targets(monkeypatch):
    """The combat plan's land and air attacks and its attacks at sea (`_fleet_attacks`, since
    session 25) read the kept reaches (no copy of a unit's reach is made for them), and each unit
    is a candidate for the very targets its own reach gives (checked on the plan's moves)."""
    kept_plan, kept_fleet = AttackPlanning._combat_plan, AttackPlanning._fleet_attacks
    fresh_destinations, kept_fewest = MovementEngine.destinations, AttackPlanning._fewest
    where: list[str] = []
    seen = {"units": 0}

    def plan(self, game, engine):
        where.append("plan")
        try:
            return kept_plan(self, game, engine)
        finally:
            where.pop()

    def fleet(self, *args):
        where.append("fleet")
        try:
            return kept_fleet(self, *args)
        finally:
            where.pop()

    def destinations(self, unit_id):
        assert where[-1:] not in (["plan"], ["fleet"]), unit_id  # (asked by the plan: a copy)
        return fresh_destinations(self, unit_id)

    def fewest(self, game, target, units, defenders, needed):
        engine = self._engine
        for unit in units:  # each candidate's own reach holds the target, by the path it would take
            assert target in fresh_destinations(engine, unit.id), (unit.id, target)
            seen["units"] += 1
        return kept_fewest(self, game, target, units, defenders, needed)
    monkeypatch.setattr(AttackPlanning, "_combat_plan", plan)
    monkeypatch.setattr(AttackPlanning, "_fleet_attacks", fleet)
    monkeypatch.setattr(AttackPlanning, "_fewest", fewest)
    monkeypatch.setattr(MovementEngine, "destinations", destinations)
    _heuristic_game(2)
    assert seen["units"] > 50, seen


def test_the_noncombat_plan_works_out_a_shared_reachs_step_once(monkeypatch):
    """The non-combat plan asks where a unit goes (`_toward_fronts`) once per kept reach, and
    each unit it moves goes where the unit's own fresh reach would take it."""
    kept_plan, kept_toward = HeuristicAgent._noncombat_plan, HeuristicAgent._toward_fronts
    planning: list = []
    seen = {"plans": 0, "asked": 0, "moved": 0}

    def toward(self, game, destinations, start, fronts):
        if planning:
            asked = planning[-1]
            assert id(destinations) not in asked, start  # (once a dict: the kept ones are held here)
            asked[id(destinations)] = destinations
            seen["asked"] += 1
        return kept_toward(self, game, destinations, start, fronts)

    def check(self, game, engine, made):
        for move in made:
            if move.kind != "move" or len(move.units) != 1:
                continue  # (the ferries' moves)
            unit = game.unit_or_none(move.units[0])
            if self._domain(game, unit) == "sea" or unit.id in self._commanded:
                continue  # (transports: the ferry's; an ally's unit: its moves the rules allow)
            fresh = engine.destinations(unit.id)
            assert kept_toward(self, game, fresh, unit.space, self._fronts) == move.path[-1], unit.id
            assert fresh[move.path[-1]] == move.path
            seen["moved"] += 1
        seen["plans"] += 1
    plan = _watched_plan(kept_plan, planning, lambda agent: {}, check)
    monkeypatch.setattr(HeuristicAgent, "_noncombat_plan", plan)
    monkeypatch.setattr(HeuristicAgent, "_toward_fronts", toward)
    _heuristic_game(2)
    assert seen["plans"] > 5 and seen["moved"] > 20 and seen["asked"] > 20, seen


def test_the_noncombat_plan_asks_no_list_of_movable_units(monkeypatch):
    """The non-combat plan (and its ferries) asks every unit the player moves for its reach, not
    the engine's list of the units that can move (whose making it does not need); each unit it
    moves is one that list holds."""
    kept_plan, kept_movable = HeuristicAgent._noncombat_plan, MovementEngine.movable_units
    planning: list = []
    seen = {"plans": 0, "moved": 0}

    def movable(self):
        assert not planning  # (asked by the non-combat plan)
        return kept_movable(self)

    def check(self, game, engine, made):
        can = set(kept_movable(engine))
        for move in made:
            if move.kind == "move":
                assert set(move.units) <= can, move
                seen["moved"] += 1
        seen["plans"] += 1
    plan = _watched_plan(kept_plan, planning, lambda agent: agent, check)
    monkeypatch.setattr(HeuristicAgent, "_noncombat_plan", plan)
    monkeypatch.setattr(MovementEngine, "movable_units", movable)
    _heuristic_game(2)
    assert seen["plans"] > 5 and seen["moved"] > 20, seen


def _watched_plan(kept_plan, planning: list, mark, check):
    """The non-combat plan `kept_plan` wrapped for a test: `mark(agent)` stands on `planning` while
    it plans (the test's wrappers of what it asks read it), then `check(agent, game, engine, made)`
    looks at the moves it made."""
    def plan(self, game, engine):
        planning.append(mark(self))
        try:
            made = kept_plan(self, game, engine)
        finally:
            planning.pop()
        check(self, game, engine, made)
        return made
    return plan
