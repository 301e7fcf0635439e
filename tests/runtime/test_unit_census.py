"""The board's units by kind kept across a game's movement engines (kit/unit_census.py, issue 15,
session 29): the census follows the board's events (units brought, taken, given and moved), and an
engine's pass made from it (`_pass_by_kind`) is the pass over the board's units (`_pass`): the
same rules for every unit, the same player's units in the same order, the same side and the same
spaces of enemy units. Where it cannot follow the board (no event list, units not in the order of
their ids, a list of units replaced without an event) the engine makes its own pass."""

from __future__ import annotations

import collections

import pytest

from game_fixtures import make_game
from movement_fixtures import aar, board, rules  # noqa: F401 (aar and rules are fixtures)
from ruleslang.runtime.kit.movement import MovementEngine
from ruleslang.runtime.kit.movement_rules import UnitRules
from ruleslang.runtime.kit.unit_census import UnitCensus


def _counted(state) -> tuple[dict, dict]:
    """(kind -> ids, owner -> ids), from the board's units."""
    kinds: dict = collections.defaultdict(list)
    owners: dict = collections.defaultdict(list)
    for unit in state.units:
        kinds[(unit.type, unit.owner)].append(unit.id)
        owners[unit.owner].append(unit.id)
    return dict(kinds), dict(owners)


def _census_as_counted(census: UnitCensus, state) -> None:
    kinds, owners = _counted(state)
    assert {kind: sorted(members) for kind, members in census.kinds.items() if members} == kinds
    for owner, ids in owners.items():
        assert [u.id for u in census.owned(owner)] == ids, owner
    for kind, members in census.kinds.items():
        if members:
            assert census.spaces(kind) == {state.unit(uid).space for uid in members}, kind
    by_id = state.unit_index()
    assert all(by_id[uid] is unit for members in census.kinds.values() for uid, unit in members.items())


def _same_pass(engine: MovementEngine, census: UnitCensus, by_kind=MovementEngine._pass_by_kind,
               plain=MovementEngine._pass) -> None:
    """The engine's pass from the census equals its pass over the board's units (the engine's
    rules left as the census pass gave them)."""
    mine, allied, foes = by_kind(engine, census)
    ur, air = engine._ur, engine._my_air
    mine2, allied2, foes2 = plain(engine, engine.state.units)
    engine._ur, plain_ur = ur, engine._ur
    assert air == engine._my_air
    assert [u.id for u in mine] == [u.id for u in mine2]
    assert all(a is b for a, b in zip(mine, mine2))
    assert sorted(u.id for u in allied) == sorted(u.id for u in allied2)
    assert ur == plain_ur and all(ur[uid] is plain_ur[uid] for uid in ur)

    def spaces(found):
        out = collections.defaultdict(set)
        for unit_rules, where in found:
            out["enemy"] |= where
            for name in ("blocks", "blocks_ending", "stops_movement", "blocks_unload", "blocks_passing"):
                if getattr(unit_rules, name):
                    out[name] |= where
        return dict(out)
    assert spaces(foes) == spaces(foes2)


def test_the_census_follows_units_brought_taken_given_and_moved(aar, rules):  # noqa: F811
    state = board(aar, "")
    census = UnitCensus()
    assert census.holds(state)
    _census_as_counted(census, state)
    germans = [u.id for u in state.units if u.owner == "Germans" and u.type == "infantry"]
    russians = [u.id for u in state.units if u.owner == "Russians"]
    state.add_units("Germany", "armour", "Germans", 2)
    state.move_units([germans[0]], "Eastern Europe", 1)
    state.remove_units([germans[1], russians[0]])
    state.change_owner([russians[1]], "Germans")
    brought = state.add_units("Karelia S.S.R.", "fighter", "Russians", 1)
    state.remove_units([u.id for u in brought])  # brought and taken away between two reads
    state.log("nothing of units")
    assert census.holds(state)
    _census_as_counted(census, state)
    # a unit given to another owner is listed among that owner's units by id
    assert [u.id for u in census.owned("Germans")] == sorted(u.id for u in state.units if u.owner == "Germans")


def test_the_census_is_counted_again_or_not_kept_where_it_cannot_follow_the_board(aar):  # noqa: F811
    state = board(aar, "")
    census = UnitCensus()
    assert census.holds(state)
    state.units = list(state.units)  # a list of units replaced without an event: counted again
    assert census.holds(state)
    _census_as_counted(census, state)
    copied = state.copy()  # another event list: counted for it
    assert census.holds(copied)
    _census_as_counted(census, copied)
    state.units = state.units[::-1]  # not in the order of their ids: not kept
    assert not census.holds(state)
    assert not census.holds(state)
    state.events = collections.deque(maxlen=0)  # a look-ahead's copy keeps no events
    assert not UnitCensus().holds(state)


def test_an_engine_made_from_the_census_is_one_made_from_the_board(aar, rules):  # noqa: F811
    state = board(aar, "")
    census = UnitCensus()
    first = MovementEngine(state, rules, "Germans", "combat", census=census)
    plain = MovementEngine(state, rules, "Germans", "combat")
    assert first.player_units() == plain.player_units()
    assert first.legal_moves() == plain.legal_moves()
    germans = [u.id for u in state.units if u.owner == "Germans" and u.type == "infantry"]
    state.move_units([germans[0]], "Eastern Europe", 1)
    state.remove_units([u.id for u in state.units if u.owner == "Russians"][:3])
    state.add_units("Germany", "fighter", "Germans", 1)
    for player, phase in (("Germans", "noncombat"), ("Russians", "combat"), ("Japanese", "combat")):
        kept = MovementEngine(state, rules, player, phase, census=census)
        new = MovementEngine(state, rules, player, phase)
        assert kept.legal_moves() == new.legal_moves(), (player, phase)
        assert kept.player_units() == new.player_units()
        assert kept._enemy == new._enemy and kept._blocking == new._blocking
        _same_pass(kept, census)


def test_equal_rules_are_one_object_and_an_earlier_engine_keeps_its_own_table(aar):  # noqa: F811
    from ruleslang.runtime.kit.movement import MovementRules
    state = board(aar, "")
    census = UnitCensus()
    side = {p.name: p.side for p in aar.players}
    allied = lambda a, b: side[a] == side[b]  # noqa: E731

    def rules_of(movement):
        def unit_rules(unit_type, owner):
            return census.same_rules(UnitRules(movement, "land", False, False))
        return MovementRules(unit_rules, allied)
    one = MovementEngine(state, rules_of(1), "Germans", "combat", census=census)
    one.player_units()
    table = one._ur
    # rules equal to those given: one object, nothing given again, the same table
    two = MovementEngine(state, rules_of(1), "Germans", "noncombat", census=census)
    two.player_units()
    assert two._ur is table
    # other rules: a new table, the earlier engine's unchanged
    three = MovementEngine(state, rules_of(2), "Germans", "noncombat", census=census)
    three.player_units()
    assert three._ur is not table and one._ur is table
    assert {r.movement for r in table.values()} == {1} and {r.movement for r in three._ur.values()} == {2}


@pytest.mark.parametrize("refs,seed,rounds", [(["aar/house-rules@1"], 1, 3), (["g40/house-rules@1"], 2, 2)])
def test_every_engine_of_a_heuristic_game_makes_its_pass_from_the_census(refs, seed, rounds, monkeypatch):
    """In heuristic games every engine the move phases make on the game's board has its pass from
    the game's census, and it is the pass over the board's units (g40's house rules give some
    kinds other rules in non-combat move: the census gives those kinds' units their rules anew).
    The look-ahead's copies of the game keep no events: their engines make their own passes."""
    seen = collections.Counter()
    by_kind = MovementEngine._pass_by_kind
    plain = MovementEngine._pass

    def compared(self, census):
        seen["census"] += 1
        _same_pass(self, census, by_kind, plain)
        return by_kind(self, census)

    def counted(self, units):
        seen["plain" if type(self.state.events) is list else "copies"] += 1
        return plain(self, units)
    monkeypatch.setattr(MovementEngine, "_pass_by_kind", compared)
    monkeypatch.setattr(MovementEngine, "_pass", counted)
    game = make_game(refs, seed=seed, rounds=rounds, default_agent="heuristic")
    game.run(rounds)
    assert seen["census"] > 10 and seen["plain"] == 0
