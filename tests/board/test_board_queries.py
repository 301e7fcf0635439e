"""Board queries over a state: the commerce-raiding examples, movement, caching, economies."""

from __future__ import annotations

from collections import deque

import pytest

from ruleslang.board.mapdata import load_map
from ruleslang.board.queries import BoardQueries, MapGraph
from ruleslang.board.scenario import Scenario
from ruleslang.board.state import BoardError, GameState
from board_fixtures import aar, aar_queries, aar_state, facts, reference, roots, tiny  # noqa: F401,F811 (pytest fixtures, used by name)


def connected_owned(queries: BoardQueries, territory: str, nation: str) -> tuple[list[str], int]:
    """Reading 1 of the rule documents: the nation's own land joined through friendly land."""
    friendly = lambda space: queries.is_friendly(nation, queries.controller(space))  # noqa: E731
    joined = queries.connected(territory, friendly, cache_key=("friendly", nation))
    own = [s for s in joined if queries.controller(s) == nation]
    return own, sum(queries.attribute(s, "ipc", 0) for s in own)


def land_value(queries: BoardQueries, player: str) -> int:
    """The `ipc` attribute values of the land a player controls (what the bases' income formula sums)."""
    return sum(queries.attribute(s, "ipc", 0) for s in queries.spaces("land") if queries.controller(s) == player)


def test_the_maps_values_give_the_incomes_at_the_start(aar_queries):
    incomes = {p: land_value(aar_queries, p) for p in aar_queries.players()}
    assert incomes == {"Russians": 24, "Germans": 40, "British": 30, "Japanese": 30, "Americans": 42}
    assert all(aar_queries.stated_income(p) is None for p in aar_queries.players())


def test_incomes_agree_with_the_reference_facts(aar_queries, facts):
    for player, income in facts["start_income_from_territories"].items():
        assert land_value(aar_queries, player) == income


def test_commerce_raiding_connected_sets(aar_state, aar_queries):
    assert connected_owned(aar_queries, "United Kingdom", "British") == (["United Kingdom"], 8)
    assert connected_owned(aar_queries, "Eastern Canada", "British") == (["Eastern Canada", "Western Canada"], 4)
    own, ipcs = connected_owned(aar_queries, "India", "British")
    assert ipcs == 14 and len(own) == 10
    aar_state.set_control("Anglo Egypt", "Germans")
    assert connected_owned(aar_queries, "India", "British") == (["India", "Persia", "Trans-Jordan"], 5)


def test_connected_semantics(aar_queries):
    everything = lambda space: True  # noqa: E731
    assert aar_queries.connected("6 Sea Zone", everything) == ()
    assert aar_queries.connected("United Kingdom", lambda s: s != "United Kingdom") == ()
    # Impassable territories never join a path, whatever the predicate says.
    assert "Sahara" not in aar_queries.connected("Anglo Egypt", everything)
    assert "Eastern Canada" not in aar_queries.connected("United Kingdom", everything)  # sea never joins


def test_connected_is_cached_per_key_until_the_state_changes(aar_state, aar_queries):
    calls = []

    def friendly(space):
        calls.append(space)
        return aar_queries.is_friendly("British", aar_queries.controller(space))

    first = aar_queries.connected("India", friendly, cache_key="british-friendly")
    asked = len(calls)
    assert aar_queries.connected("Kenya", friendly, cache_key="british-friendly") == first
    assert len(calls) == asked  # same component: answered from the cache
    aar_state.set_control("Anglo Egypt", "Germans")
    smaller = aar_queries.connected("India", friendly, cache_key="british-friendly")
    assert len(calls) > asked and "Anglo Egypt" not in smaller


def test_within_and_distance(aar_queries):
    assert aar_queries.within("United Kingdom", 1, by="sea") == tuple(
        f"{n} Sea Zone" for n in (2, 3, 6, 7, 8))
    two = aar_queries.within("United Kingdom", 2, by="sea")
    assert "United Kingdom" not in two and "12 Sea Zone" in two and "Eastern Canada" not in two
    # Switzerland borders Western Europe but is impassable, so it is never within reach.
    assert "Switzerland" in aar_queries.neighbours("Western Europe", "land")
    assert aar_queries.within("Western Europe", 1, by="land") == ("Germany", "Southern Europe")
    assert aar_queries.distance("Germany", "Russia", by="land") == 4  # via E. Europe, Belorussia, W. Russia
    assert aar_queries.distance("United Kingdom", "Germany", by="land") is None
    assert aar_queries.distance("Germany", "Germany") == 0
    assert aar_queries.distance("United Kingdom", "Eastern Canada", by="all") == 3
    with pytest.raises(BoardError, match="by 'land', 'sea' or 'all'"):
        aar_queries.within("Germany", 1, by="air")


def test_within_through_goes_on_only_from_the_spaces_it_may_pass(aar_queries):
    q = aar_queries
    everything = q.within("Western Europe", 2, by="land")
    assert "Eastern Europe" in everything                           # through Germany
    avoiding = q.within("Western Europe", 2, by="land", through=lambda s: s != "Germany")
    assert "Germany" in avoiding                                    # an end need not be passable
    assert "Eastern Europe" not in avoiding and set(avoiding) < set(everything)
    assert q.within("Western Europe", 2, by="land", through=lambda s: True) == everything


def test_within_never_enters_impassable_land(aar, aar_queries):
    reachable = aar_queries.within("Germany", 20, by="all")
    assert not [s for s in reachable if aar.space(s).impassable]


def test_space_facts(aar_queries):
    q = aar_queries
    assert q.controller("Germany") == "Germans" and q.original_owner("Germany") == "Germans"
    assert q.attribute("Germany", "ipc") == 10 and q.is_land("Germany") and q.is_sea("5 Sea Zone")
    assert q.attribute("Germany", "capital") == "Germans" and q.attribute("Germany", "victory_city") is True
    assert q.attribute("Norway", "victory_city", False) is False
    assert q.neighbours("United Kingdom", "land") == ("Eire",)
    assert q.spaces("sea")[:3] == ("1 Sea Zone", "2 Sea Zone", "3 Sea Zone") and len(q.spaces()) == 143
    with pytest.raises(BoardError, match="unknown space 'UK'"):
        q.controller("UK")


def test_units_and_factories(aar_queries):
    q = aar_queries
    uk = q.units("United Kingdom")
    assert [u.id for u in uk] == sorted(u.id for u in uk) and len(uk) == 8
    assert len(q.units("United Kingdom", unit_type="fighter")) == 2
    air = {"fighter", "bomber"}
    assert len(q.units("United Kingdom", has_tag=lambda t: t in air)) == 3
    assert len(q.units(owner="Germans", unit_type="submarine")) == len(
        [u for u in q.state.units if u.owner == "Germans" and u.type == "submarine"])
    assert [f.space for f in q.factories(owner="Americans")] == ["Eastern United States", "Western United States"]
    assert q.factories("India") == ()


def test_unit_index_follows_moves(aar_state, aar_queries):
    fighter = aar_queries.units("United Kingdom", unit_type="fighter")[0]
    aar_state.move_units([fighter.id], "7 Sea Zone")
    assert fighter.id in [u.id for u in aar_queries.units("7 Sea Zone")]
    assert fighter.id not in [u.id for u in aar_queries.units("United Kingdom")]


def test_stated_incomes(aar_state, aar_queries):
    assert aar_queries.stated_income("British") is None
    aar_state.set_income("British", 30)
    assert aar_queries.stated_income("British") == 30 and aar_queries.stated_income("Germans") is None
    aar_state.set_income("British", None)
    assert aar_queries.stated_income("British") is None
    aar_state.change_treasury("British", 4)
    assert aar_queries.treasury("British") == 34 and aar_queries.treasury("British", "main") == 34


def test_sides(aar_queries):
    q = aar_queries
    assert q.allies("British") == ("Russians", "Americans")
    assert q.enemies("British") == ("Germans", "Japanese")
    assert q.side_of("Japanese") == "Axis"
    assert q.is_friendly("British", "Americans") and not q.is_friendly("British", "Germans")
    assert not q.is_friendly("British", None)
    assert q.players() == ("Russians", "Germans", "British", "Japanese", "Americans")


def test_two_economies(tiny):
    state = GameState.from_scenario(Scenario.start_of(tiny))
    q = BoardQueries(state)
    assert q.treasury("Blues") == 8 and q.treasury("Blues", "west") == 3
    state.set_income("Blues", 9, "west")
    assert q.stated_income("Blues") is None  # a figure for one economy only: the rulesets compute the income
    state.set_income("Blues", 6, "east")
    assert q.stated_income("Blues") == 15
    state.set_income("Blues", 20)
    assert q.stated_income("Blues") == 20
    assert q.allies("Greys") == () and "Greys" in q.enemies("Reds") and q.enemies("Greys") == ("Reds", "Blues", "Greens")
    with pytest.raises(BoardError):
        q.stated_income("Nobody")
    with pytest.raises(BoardError):
        q.treasury("Blues", "north")


def test_unit_answers_kept_across_changes_that_move_no_unit(aar_state, aar_queries):
    """`unit_answers` and the units' index stay across counter, treasury, income and log events
    (`GameState.quiet_changes`), and go with any other change: an effect on units or control, or
    a change made outside the effects (the version stepped alone, or the list of units replaced)."""
    memo = aar_queries.unit_answers()
    memo["mine"] = 1
    before = aar_queries.units("United Kingdom")
    aar_state.set_counter("seen", ("x",), 1)
    aar_state.change_treasury("British", 5)
    aar_state.log("a note")
    assert aar_queries.unit_answers() is memo and aar_queries.units("United Kingdom") == before
    assert aar_queries.answers() == {}  # the general memo still goes with every change
    uid = before[0].id
    aar_state.move_units([uid], "Eastern Canada", 0)
    assert aar_queries.unit_answers() == {}
    assert uid not in [u.id for u in aar_queries.units("United Kingdom")]
    for change in (lambda: setattr(aar_state, "version", aar_state.version + 1),
                   lambda: (setattr(aar_state, "units", list(aar_state.units)), aar_state.log("x"))):
        aar_queries.unit_answers()["mine"] = 1
        change()
        assert aar_queries.unit_answers() == {}


def _distances_one_by_one(game_map, start: str, by: str) -> dict[str, int]:
    """The breadth-first search as it was written before session 12: each neighbour's facts
    asked of the map."""
    seen = {start: 0}
    queue = deque([start])
    while queue:
        here = queue.popleft()
        for there in game_map.neighbours(here):
            if there in seen:
                continue
            info = game_map.space(there)
            if info.impassable or (by != "all" and info.kind != by):
                continue
            seen[there] = seen[here] + 1
            queue.append(there)
    return seen


@pytest.mark.parametrize("name", ["aar", "aa50-1942", "g40"])
def test_map_distances_are_the_search_one_neighbour_at_a_time(name, roots):  # noqa: F811
    """The map's distances (searched over the spaces each kind of move may enter, found once)
    are those of the search that asks the map of each neighbour, in the same order, from every
    space and for every kind of move."""
    game_map = load_map(name, roots)
    graph = MapGraph(game_map)
    for by in ("all", "land", "sea"):
        for space in game_map.spaces:
            found = graph.distances(space.name, by)
            assert list(found.items()) == list(_distances_one_by_one(game_map, space.name, by).items())
