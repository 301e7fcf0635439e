"""The movement engine's reach for the spaces a plan reads (`kept_destinations_among`, issue 15,
session 28): an air unit's combat walk made for those spaces alone gives `destinations`' answer
there, and the engine accepts the moves made from it by its fast path, without the search over the
whole map its full check would make."""

from __future__ import annotations

from game_fixtures import make_game
from movement_fixtures import aar, board, engine, one, rules  # noqa: F401,F811 (aar, rules: pytest fixtures, used by name)
from ruleslang.runtime.kit.movement import Move, MovementEngine


def _among(reach: dict, among) -> list:
    """The (space, path) pairs of a reach at the spaces of `among`, in the reach's order."""
    return [(space, path) for space, path in reach.items() if space in among]


FRONT = """
    setup: empty
    units:
      Western Europe: {Germans: {fighter: 2, bomber: 1}}
      Algeria: {Germans: {infantry: 1}}
      United Kingdom: {British: {infantry: 1}}
      Eastern Europe: {Russians: {infantry: 1}}
      1 Sea Zone: {British: {transport: 1}}
      12 Sea Zone: {British: {transport: 1}}
"""


def test_an_air_units_reach_among_spaces_is_its_reach_there(aar, rules):
    state = board(aar, FRONT)
    germans = engine(state, rules, "Germans")
    fighter = one(state, "Western Europe", "Germans", "fighter")
    bomber = one(state, "Western Europe", "Germans", "bomber")
    among = {"United Kingdom", "Eastern Europe", "1 Sea Zone", "12 Sea Zone", "Moscow"}
    found = germans.kept_destinations_among(fighter, among)
    assert set(found) <= among
    fresh = engine(state, rules, "Germans")  # (a new engine: its answer the full walk's)
    assert _among(found, among) == _among(fresh.destinations(fighter), among)
    # 1 Sea Zone leaves the fighter 1 point and the nearest landing (Algeria) 3 away; 12 Sea Zone
    # is next to Algeria; the United Kingdom leaves the 2 points back to Western Europe
    assert "1 Sea Zone" not in found and found["12 Sea Zone"] == ("Western Europe", "7 Sea Zone", "12 Sea Zone")
    assert found["United Kingdom"] == ("Western Europe", "6 Sea Zone", "United Kingdom")
    # the other fighter, of the same walk, gets the same dict; a bomber its own, the full walk's there
    other = [u.id for u in state.units if u.type == "fighter" and u.id != fighter][0]
    assert germans.kept_destinations_among(other, among) is found
    assert _among(germans.kept_destinations_among(bomber, among), among) == _among(fresh.destinations(bomber), among)
    # the full search from every landing space at once (`_landing_steps`) is not made
    assert germans._near_cache == {} and germans._landing_cache == {}


def test_a_move_along_such_a_path_is_accepted_by_the_fast_path(aar, rules):
    state = board(aar, FRONT)
    germans = engine(state, rules, "Germans")
    fighter = one(state, "Western Europe", "Germans", "fighter")
    path = germans.kept_destinations_among(fighter, {"12 Sea Zone"})["12 Sea Zone"]
    assert germans.check(Move((fighter,), path)) == []
    # `_offered` took it: the full check's landing search over the whole map (`_landing`) was not made
    assert germans._landing_cache == {}
    germans.apply(Move((fighter,), path))
    assert state.unit(fighter).space == "12 Sea Zone"


def test_in_heuristic_games_every_reach_among_is_the_full_walks(monkeypatch):
    """In seeded heuristic house-rules games every answer the plans get (land, sea and air units,
    in combat and non-combat move) is `destinations`' at the spaces asked, path and order."""
    kept = MovementEngine.kept_destinations_among
    seen = {"air": 0, "spaces": 0}

    def ask(self, unit_id, among):
        answer = kept(self, unit_id, among)
        unit = self._by_id[unit_id]
        rules = self._ur[unit_id]
        # the full walk (not kept: the engine's tables stay as play leaves them), and its answer there
        blocked = self._blocked(unit, rules) is not None
        full = {} if blocked else self._air_walk(unit, rules, rules.movement - unit.moved) \
            if rules.domain == "air" else self._reach_of(unit, rules)
        assert _among(answer, among) == _among(full, among), unit_id
        if rules.domain == "air" and self.combat and not blocked:
            seen["air"] += 1
            seen["spaces"] += len(_among(full, among))
        return answer
    monkeypatch.setattr(MovementEngine, "kept_destinations_among", ask)
    for seed in (1, 2):
        make_game(["aar/house-rules@1"], seed=seed, rounds=3, default_agent="heuristic").run(3)
    assert seen["air"] > 50 and seen["spaces"] > 100, seen


def test_in_heuristic_games_every_bombers_raids_are_those_of_its_full_reach(monkeypatch):
    """`raids_of` walks a bomber's combat reach for the spaces it may raid alone: its moves are
    those of its full reach (each target, path and order)."""
    kept = MovementEngine.raids_of
    seen = {"raids": 0}

    def raids(self, unit_id):
        answer = kept(self, unit_id)
        unit, rules = self._by_id[unit_id], self._ur[unit_id]
        if self.combat and rules.domain == "air" and rules.can_bomb and self._blocked(unit, rules) is None:
            full = self._air_walk(unit, rules, rules.movement - unit.moved)
            assert answer == self._raid_moves(unit, rules, full), unit_id
            seen["raids"] += len(answer)
        return answer
    monkeypatch.setattr(MovementEngine, "raids_of", raids)
    for seed in (1, 2):
        make_game(["aar/house-rules@1"], seed=seed, rounds=3, default_agent="heuristic").run(3)
    assert seen["raids"] > 5, seen


def test_an_air_unit_lands_ashore_where_its_landings_name_a_territory(aar, rules, monkeypatch):
    state = board(aar, FRONT)
    germans = engine(state, rules, "Germans")
    fighter = one(state, "Western Europe", "Germans", "fighter")
    infantry = one(state, "Algeria", "Germans", "infantry")
    # over 12 Sea Zone (2 points left): Algeria is next to it; over 1 Sea Zone (1 left): none is
    assert germans.lands_ashore(fighter, ("Western Europe", "7 Sea Zone", "12 Sea Zone"))
    assert not germans.lands_ashore(fighter, ("Western Europe", "7 Sea Zone", "8 Sea Zone", "1 Sea Zone"))
    assert not germans.lands_ashore(infantry, ("Algeria",))  # (not an air unit)
    # in heuristic games it answers as `landings` does, for every air unit and path the plans ask
    kept = MovementEngine.lands_ashore
    seen = {"asked": 0, "yes": 0}

    def ask(self, unit_id, path):
        answer = kept(self, unit_id, path)
        assert answer == any(room is None for room in self.landings(unit_id, path).values()), (unit_id, path)
        seen["asked"] += 1
        seen["yes"] += answer
        return answer
    monkeypatch.setattr(MovementEngine, "lands_ashore", ask)
    for seed in (1, 2):
        make_game(["aar/house-rules@1"], seed=seed, rounds=3, default_agent="heuristic").run(3)
    assert seen["asked"] > 50 and 0 < seen["yes"] < seen["asked"], seen


def test_in_heuristic_games_the_landing_destinations_are_the_reach_that_landings_offers(monkeypatch):
    """The non-combat landing move's spaces (`landing_destinations`, made without `landings`)
    are the unit's destinations that `landings` from where it stands offers, path and order."""
    kept = MovementEngine.landing_destinations
    seen = {"asked": 0, "spaces": 0}

    def ask(self, unit_id):
        answer = kept(self, unit_id)
        unit = self._by_id[unit_id]
        now = self.landings(unit_id, (unit.space,))
        assert list(answer.items()) == [(s, p) for s, p in self.destinations(unit_id).items() if s in now], unit_id
        seen["asked"] += 1
        seen["spaces"] += len(answer)
        return answer
    monkeypatch.setattr(MovementEngine, "landing_destinations", ask)
    for seed in (1, 2):
        make_game(["aar/house-rules@1"], seed=seed, rounds=3, default_agent="heuristic").run(3)
    assert seen["asked"] > 20 and seen["spaces"] > 50, seen


def test_a_checked_flight_that_lands_needs_no_search_of_the_whole_map(aar, rules):
    state = board(aar, FRONT)
    germans = engine(state, rules, "Germans")
    fighter = one(state, "Western Europe", "Germans", "fighter")
    # no reach worked out: the move is checked in full (`_check_air`), its landing found by the
    # search from its end (Algeria, next to 12 Sea Zone), not by `_landing`'s search of the map
    assert germans.check(Move((fighter,), ("Western Europe", "7 Sea Zone", "12 Sea Zone"))) == []
    assert germans._landing_cache == {} and germans._air_reach == {}
    # one that cannot land is told why, with the nearest landing space (the whole map's search)
    assert germans.check(Move((fighter,), ("Western Europe", "7 Sea Zone", "8 Sea Zone", "1 Sea Zone"))) == [
        f"fighter {fighter} could not land after moving to 1 Sea Zone: it would have 1 movement left "
        "and the nearest friendly landing space, Algeria, is 3 away"]
