"""The cyclic garbage collector as a process that plays games wants it (compare workers, the
benchmarks' game loops, `ruleslang play`).

What such a process loads (the compiled program, the map, the modules) lives as long as the
process: frozen, it is out of every collection after (a full pass scanned its hundreds of
thousands of objects again in every game: docs/performance.md, session 9). A game makes its
containers fast (events, moves, plans, board copies) and frees nearly all of them by reference
counting: a played game is closed (`Game.close`), a look-ahead's copies are collected by the
look-ahead itself, a chain pauses the collector and is closed. At Python's default first
threshold (700 objects) the young generation was collected some 70 times a heuristic game and
found no garbage, and its survivors were traversed again by the second generation every ten:
about 4% of a game's CPU in all. Collected every YOUNG objects, and the middle generation every
MIDDLE young collections, the collector's CPU in six house-rules games (seeds 4-9) went from
0.21 / 0.18 s to 0.12 / 0.10 s, the process's largest size unchanged (127-130 MB)."""

from __future__ import annotations

import gc

YOUNG = 10_000  # objects made (and not freed) between collections of the youngest generation
MIDDLE = 20     # collections of the youngest generation between collections of the middle one


def for_play() -> None:
    """Freeze what the process holds now (what it loaded) and collect the young generations at
    YOUNG and MIDDLE (the oldest as Python sets it)."""
    gc.freeze()
    gc.set_threshold(YOUNG, MIDDLE, gc.get_threshold()[2])
