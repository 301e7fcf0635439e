"""The board's index of units by place is kept across events that leave every unit where it
stood and the board with the same units (issue 15, session 9: `GameState.places_kept`, e.g. a
unit's hits or flags, control, a turn's start). After every event of random and heuristic games,
the index a game's board queries answer from is the one a new `BoardQueries` builds."""

from __future__ import annotations

import pytest

from game_fixtures import make_game
from ruleslang.board.queries import BoardQueries
from ruleslang.board.state import GameState


def _index(queries: BoardQueries) -> dict[str, list[int]]:
    return {space: [u.id for u in queries.units(space)] for space in queries.state.map.space_names()}


@pytest.mark.parametrize("refs,rounds,seed,agent", [(["aar/house-rules@1"], 3, 2, "random"),
                                                    (["aar/house-rules@1"], 2, 1, "heuristic")])
def test_the_kept_index_is_a_new_ones(refs, rounds, seed, agent, monkeypatch):
    game = make_game(refs, seed=seed, rounds=rounds, default_agent=agent)
    queries = game.board
    record = GameState._record
    seen = {"kept": 0, "events": 0}

    def compared(self, event_kind, **data):
        event = record(self, event_kind, **data)
        if self is queries.state and seen["events"] % 3 == 0:  # (every third event: the test stays quick)
            before = queries._units_by_space
            queries.units()  # brings the queries up to date: the index kept or built again
            if before is not None and queries._units_by_space is before:
                seen["kept"] += 1
            assert [u.id for u in queries.units()] == [u.id for u in BoardQueries(self).units()], event_kind
            assert _index(queries) == _index(BoardQueries(self)), event_kind
        seen["events"] += 1
        return event
    monkeypatch.setattr(GameState, "_record", compared)
    game.run(rounds)
    assert seen["events"] > 300 and seen["kept"] > 50, seen
