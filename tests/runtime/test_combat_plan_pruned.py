"""The combat plan passes over what it never attacks before the costly checks (issue 15, session
25): a target only air units reach is not valued, a target with no land candidate left has no
defence found, a transport with no enemy coast in reach has no loads checked, and the attacks at
sea sort out each kept reach once. Checked on the plans of seeded heuristic games."""

from __future__ import annotations

from game_fixtures import make_game
from ruleslang.runtime.agents.attack_planning import AttackPlanning, _aims
from ruleslang.runtime.agents.heuristic import HeuristicAgent
from ruleslang.runtime.agents.shipping import Shipping
from ruleslang.runtime.kit.movement import Move


def _heuristic_game(seed: int, rounds: int = 2) -> None:
    """Play a few rounds of a house-rules game with heuristic agents (the wrapped queries check as it goes)."""
    make_game(["aar/house-rules@1"], seed=seed, rounds=rounds, default_agent="heuristic").run(rounds)


def _within(method, where: list, name: str):
    """`method` wrapped to stand `name` on `where` while it runs."""
    def wrapped(self, *args, **kwargs):
        where.append(name)
        try:
            return method(self, *args, **kwargs)
        finally:
            where.pop()
    return wrapped


def test_aims_sorts_out_a_reach_once_and_keeps_its_order():
    asked = []

    def wanted(target):
        asked.append(target)
        return target != "b"
    places = {"a": ("x", "a"), "b": ("x", "b"), "c": ("x", "c")}
    aimed: dict = {}
    everywhere = {"a", "b", "c"}
    first = _aims(places, aimed, wanted, everywhere)
    assert first == [("a", ("x", "a")), ("c", ("x", "c"))]
    assert _aims(places, aimed, wanted, everywhere) is first and asked == ["a", "b", "c"]
    assert _aims({"b": ("y", "b")}, aimed, wanted, everywhere) == [] and asked == ["a", "b", "c", "b"]


def test_aims_asks_wanted_only_of_the_spaces_among_its_set():
    asked = []

    def wanted(target):
        asked.append(target)
        return True
    places = {"a": ("x", "a"), "b": ("x", "b"), "c": ("x", "c"), "d": ("x", "d")}
    assert _aims(places, {}, wanted, {"d", "b", "z"}) == [("b", ("x", "b")), ("d", ("x", "d"))]
    assert asked == ["b", "d"]  # (in the reach's order; "a" and "c" passed over by the set's test)


def test_the_combat_plan_values_and_defends_only_targets_a_land_unit_may_take(monkeypatch):
    """In the combat plan's own loop (not its assaults or attacks at sea), a held space is valued
    only where a land unit of the player reaches it, and the defence of a target is found only
    right before `_fewest` is asked of it (a target with no land candidate left has none found);
    targets only air units reach are met, and passed over."""
    kept_value, kept_enemies, kept_fewest = HeuristicAgent._value, HeuristicAgent._enemies, AttackPlanning._fewest
    where: list[str] = []
    seen = {"valued": 0, "air_only": 0, "defended": 0}
    pending: list[str] = []

    def land_reaches(self, game, space):
        engine = self._engine
        return any(self._domain(game, game.unit_or_none(uid)) == "land" and space in engine.kept_destinations(uid)
                   for uid in engine.movable_units())

    def value(self, game, space):
        if where[-1:] == ["plan"] and game.state.control.get(space) is not None:
            assert land_reaches(self, game, space), space
            seen["valued"] += 1
        return kept_value(self, game, space)

    def enemies(self, game, space):
        if where[-1:] == ["plan"]:
            assert not pending, (pending, space)
            pending.append(space)
            seen["defended"] += 1
        return kept_enemies(self, game, space)

    def fewest(self, game, target, units, defenders, needed):
        if where[-1:] == ["plan"]:
            assert pending == [target], (pending, target)
            pending.clear()
        return kept_fewest(self, game, target, units, defenders, needed)

    plan = _within(AttackPlanning._combat_plan, where, "plan")

    def counted_plan(self, game, engine):
        for uid in engine.movable_units():  # (the spaces only air units reach, as the plan starts)
            unit = game.unit_or_none(uid)
            if self._domain(game, unit) == "air":
                seen["air_only"] += sum(1 for space in engine.kept_destinations(uid)
                                        if game.board.is_land(space) and self._target(game, space)
                                        and not land_reaches(self, game, space))
        return plan(self, game, engine)
    assaults = _within(AttackPlanning._assaults, where, "assaults")
    fleet = _within(AttackPlanning._fleet_attacks, where, "fleet")
    for owner, name, method in ((AttackPlanning, "_combat_plan", counted_plan),
                                (AttackPlanning, "_assaults", assaults), (AttackPlanning, "_fleet_attacks", fleet),
                                (HeuristicAgent, "_value", value), (HeuristicAgent, "_enemies", enemies),
                                (AttackPlanning, "_fewest", fewest)):
        monkeypatch.setattr(owner, name, method)
    _heuristic_game(2)
    assert seen["valued"] > 20 and seen["defended"] > 20 and seen["air_only"] > 0, seen


def test_an_assault_checks_the_loads_of_a_transport_only_where_it_reaches_an_enemy_coast(monkeypatch):
    """Every transport whose loads the assaults check can sail to a zone free of enemies beside a
    territory an enemy holds; the seeded game checks some."""
    kept_loads = Shipping._loads
    where: list[str] = []
    seen = {"checked": 0}

    def loads(self, transport, stranded):
        if where[-1:] == ["assaults"]:
            assert any(self._enemy_free(zone) and any(self._enemy(self._control.get(t))
                                                      for t in self.board.neighbours(zone, "land"))
                       for zone in self._reach(transport)), transport.id
            seen["checked"] += 1
        return kept_loads(self, transport, stranded)
    monkeypatch.setattr(Shipping, "assaults", _within(Shipping.assaults, where, "assaults"))
    monkeypatch.setattr(Shipping, "_loads", loads)
    _heuristic_game(1, rounds=3)
    assert seen["checked"] > 0, seen


def test_the_plans_sets_hold_every_target_their_wanted_accepts(monkeypatch):
    """The combat plan's and the attacks at sea's `among` (land no ally holds; spaces where units
    stand) leave out no space their `wanted` accepts: in seeded heuristic games each reach's aims
    are those `wanted` alone picks out."""
    import ruleslang.runtime.agents.attack_planning as planning
    kept = planning._aims
    checked = []

    def aims(places, aimed, wanted, among):
        found = kept(places, aimed, wanted, among)
        assert found == [(t, path) for t, path in places.items() if wanted(t)]
        checked.append(len(found))
        return found
    monkeypatch.setattr(planning, "_aims", aims)
    for seed in (1, 2):
        _heuristic_game(seed)
    assert checked and any(checked)


def test_an_assaults_enemy_coasts_are_those_of_every_zone_in_reach(monkeypatch):
    """`Shipping.enemy_coasts` passes over the zones beside no enemy-held territory by a set's
    test: in seeded heuristic games its pairs are those every zone in reach gives, in its order."""
    kept = Shipping.enemy_coasts
    found_any = []

    def enemy_coasts(self, reach):
        found = kept(self, reach)
        every = [(zone, territory)
                 for zone, _ in sorted(reach.items(), key=lambda zp: (len(zp[1]), zp[0])) if self._enemy_free(zone)
                 for territory in self.board.neighbours(zone, "land") if self._enemy(self._control.get(territory))]
        assert found == every
        found_any.append(bool(found))
        return found
    monkeypatch.setattr(Shipping, "enemy_coasts", enemy_coasts)
    for seed in (1, 2, 3):
        _heuristic_game(seed, rounds=3)
    assert any(found_any) and not all(found_any)


def test_an_empty_transport_is_fetched_to_the_zone_every_zone_in_reach_would_give(monkeypatch):
    """`Shipping._fetch` counts the waiting units only beside the zones next to them (a set's
    test): in seeded heuristic games it picks the zone that counting every zone in reach picks."""
    kept = Shipping._fetch
    fetched = []

    def every_zone(self, transport, reach, waiting):
        waiting = waiting[0]  # (`_waiting`'s counts by territory; the zones beside them are found again below)
        if not waiting:
            return None
        counts = {zone: sum(waiting.get(t, 0) for t in self.board.neighbours(zone, "land")) for zone in reach}
        counted = [zone for zone in reach if counts[zone]]
        if counted:
            return min(counted, key=lambda z: (-counts[z], len(reach[z]), self.game.space_order(z)))
        return self._toward(reach, {z for t in waiting for z in self.board.neighbours(t, "sea")})

    def fetch(self, transport, reach, waiting):
        best = every_zone(self, transport, reach, waiting)
        found = kept(self, transport, reach, waiting)
        assert found == ([] if best is None or best == transport.space else [Move.of_tuples((transport.id,), reach[best])])
        fetched.append(bool(found))
        return found
    monkeypatch.setattr(Shipping, "_fetch", fetch)
    for seed in (1, 2):
        _heuristic_game(seed, rounds=3)
    assert any(fetched)
