"""`MoveBoard.air_path` keeps every space's path from a start and makes a path from the kept path
of the space it steps back to: each must be the path the plain walk back from the end gives (the
first neighbour, in natural order, one step nearer the start), whatever order they are asked in."""

from __future__ import annotations

import random

from game_fixtures import make_game
from ruleslang.runtime.kit.movement_rules import MoveBoard


def _walked(board: MoveBoard, start: str, end: str) -> tuple[str, ...]:
    distances = board.graph.distances(start, "all")
    path = [end]
    here = end
    while here != start:
        d = distances[here]
        here = next(n for n in board.map.neighbours(here) if distances.get(n) == d - 1)
        path.append(here)
    return tuple(reversed(path))


def test_kept_air_paths_are_the_walked_ones():
    game = make_game(["aar/base@1"])
    board = MoveBoard(game.state.map)  # (a board of its own: nothing kept yet)
    rng = random.Random(5)
    starts = sorted(board.order)
    asked = 0
    for start in rng.sample(starts, 12):
        ends = sorted(board.graph.distances(start, "all"))
        rng.shuffle(ends)
        for end in ends:
            assert board.air_path(start, end) == _walked(board, start, end), (start, end)
            asked += 1
    assert asked > 500


def test_air_paths_holds_what_air_path_kept_and_only_that():
    game = make_game(["aar/base@1"])
    board = MoveBoard(game.state.map)
    start = sorted(board.order)[3]
    kept = board.air_paths(start)
    assert kept == {start: (start,)}  # nothing walked yet but the start itself
    ends = [s for s, _ in board.air_reach(start, 3)]
    for end in ends:
        board.air_path(start, end)
    # the same dict, now with every asked end's path (and those its walks went through)
    assert board.air_paths(start) is kept
    for end in ends:
        assert kept[end] == _walked(board, start, end)
    assert set(kept) <= {start, *board.graph.distances(start, "all")}
    assert all(len(path) - 1 == board.graph.distances(start, "all")[end] for end, path in kept.items())
