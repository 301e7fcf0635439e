"""Where air units may land, asked no more than a move phase needs (issue 15, session 23).

In combat move an air unit's reach keeps the spaces from which it can still land: the search of
landing steps (`_landing_steps`) starts from the landing territories within the movement left of
one of the player's air units alone (`_near_landing`), whose landing condition is all it asks,
and goes through that reach alone (`MoveBoard.steps_within`); the reach is the one a search from
every landing territory over the whole map (`_landing`) gives. After a non-combat flight
between land territories the stranded air units (`stranded_air`) change only by the flown unit:
the others' entries are kept, the flown unit's found where it ends."""

from __future__ import annotations

from conftest import record_calls
from movement_fixtures import REVISED, aar, board, engine, ids  # noqa: F401 (aar is a fixture)
from ruleslang.runtime.kit.movement import Move, MovementEngine, MovementRules
from ruleslang.runtime.kit.movement_rules import MoveBoard, move_board


def _rules(aar, asked: list, holds) -> MovementRules:
    """The REVISED units' rules with a landing condition that notes each space it is asked about:
    a territory `holds(space)` accepts."""
    side = {p.name: p.side for p in aar.players}

    def landing(space: str, player: str) -> bool:
        asked.append(space)
        return holds(space)
    return MovementRules(lambda unit_type, owner: REVISED[unit_type], lambda a, b: side[a] == side[b],
                         landing=landing)


def test_the_combat_move_asks_the_landing_condition_only_within_the_air_units_reach(aar, monkeypatch):
    state = board(aar, """
        setup: empty
        units:
          Germany: {Germans: {fighter: 1}}
          Norway: {Germans: {bomber: 1}}
    """)
    landable = {"Germany", "Norway", "Finland", "Japan", "Eastern Europe"}
    asked: list[str] = []
    rules = _rules(aar, asked, landable.__contains__)
    combat = engine(state, rules, "Germans", "combat")
    fighter, bomber = ids(state, "Germany", "Germans", "fighter")[0], ids(state, "Norway", "Germans", "bomber")[0]
    searched = record_calls(monkeypatch, MoveBoard, "steps_within", lambda board, sources, within: set(within))
    nearest = record_calls(monkeypatch, MoveBoard, "nearest", lambda board, sources: sources)
    reach = {uid: combat.destinations(uid) for uid in (fighter, bomber)}
    within = {"Germany", "Norway"}
    for start, left in (("Germany", 4), ("Norway", 6)):
        within.update(s for s, _ in combat.board.air_reach(start, left))
    assert asked and set(asked) <= within and "Japan" not in asked, asked
    # the landing steps searched through the air units' reach alone, not over the whole map
    assert searched == [within, within] and nearest == []  # (bombers land on no carrier: cost 0, fighters 1)
    # the same reaches as a search from every landing territory of the map
    full = engine(state, _rules(aar, [], landable.__contains__), "Germans", "combat")
    full._landing_steps = lambda cost: {s: d for s, (d, _) in full._landing(cost).items()}
    assert reach == {uid: full.destinations(uid) for uid in (fighter, bomber)}
    assert "Eastern Europe" in reach[fighter]
    # a space it could fly to but not back from is left out: Caucasus is 4 steps from Germany
    assert "Caucasus" not in reach[fighter] and "Caucasus" in dict(combat.board.air_reach("Germany", 4))


def test_a_flight_between_land_territories_changes_only_the_flown_units_entry(aar, monkeypatch):
    state = board(aar, """
        setup: empty
        units:
          Karelia S.S.R.: {Germans: {fighter: 2}}
          Germany: {Germans: {fighter: 1}}
          5 Sea Zone: {Germans: {carrier: 1}}
    """)
    asked: list[str] = []
    rules = _rules(aar, asked, {"Germany", "Western Europe"}.__contains__)
    noncombat = engine(state, rules, "Germans", "noncombat")
    k1, k2 = ids(state, "Karelia S.S.R.", "Germans", "fighter")
    assert noncombat.stranded_air() == [k1, k2]
    to_germany, to_carrier = noncombat.destinations(k1)["Germany"], noncombat.destinations(k2)["5 Sea Zone"]
    landable = record_calls(monkeypatch, MovementEngine, "_landable", lambda self, space: space)

    def fresh() -> list[int]:
        return engine(state, rules, "Germans", "noncombat").stranded_air()
    # k1 lands in Germany: the list is kept, less k1; only its landing is asked
    noncombat.apply(Move((k1,), to_germany))
    assert noncombat.stranded_air() == [k2]
    assert landable == ["Germany"]
    assert fresh() == [k2]
    # asked again with nothing moved: the same, nothing asked
    landable.clear()
    assert noncombat.stranded_air() == [k2]
    assert landable == []
    # k2 lands on the carrier: a flight to sea, the list worked out anew
    noncombat.apply(Move((k2,), to_carrier))
    assert noncombat.stranded_air() == [] == fresh()


def test_the_steps_within_a_set_of_spaces_are_the_nearest_sources_steps_where_their_paths_lie_within(aar):
    board = move_board(aar)
    sources = ("Germany", "Japan", "8 Sea Zone")
    everywhere = board.steps_within(sources, frozenset(board.order))
    assert everywhere == {s: d for s, (d, _) in board.nearest(sources).items()}
    # through the spaces within 2 of Karelia: the steps there from Germany's side (2, through
    # Eastern Europe) are kept, Japan's far side is not reached, nor anything beyond
    within = {"Karelia S.S.R."} | {s for s, _ in board.air_reach("Karelia S.S.R.", 2)}
    near = board.steps_within(sources, within)
    assert set(near) <= within | set(sources)
    assert near["Karelia S.S.R."] == everywhere["Karelia S.S.R."] == 2
    assert "China" not in near and all(near[s] >= everywhere[s] for s in near)
