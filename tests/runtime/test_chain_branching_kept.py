"""The exact chain's branching executors kept with the program (issue 15): the battle steps of a
program are compiled into branching executors once, and the chains of every game of that program
(a process that plays game after game under one loaded composition) share them; each chain's answer
is the one a chain of a program of its own gives, every float the same."""

from __future__ import annotations

import gc
import weakref

from conftest import LoadedOnceHere, record_calls
from odds_fixtures import LAND
from ruleslang.lang.eval import branching
from ruleslang.runtime.odds.chain import BattleSpec, Chain
from ruleslang.runtime.saves import GameSetup, build_game
from ruleslang.workspace.compositions import Workspace

HOUSE = ["aar/house-rules@1"]
SPEC = BattleSpec(LAND, "Germans", {"infantry": 3, "artillery": 1, "armour": 1}, {"infantry": 2, "armour": 1},
                  "Russians")


def _game(workspace, seed: int):
    return build_game(workspace, GameSetup(refs=HOUSE, seed=seed, rounds=1, default_agent="heuristic"))


def _ends(chain) -> list:
    result = chain.solve()
    return sorted((str(end), p.hex()) for end, p in result.ends.items())


def test_games_of_one_program_share_its_branching_executors(monkeypatch):
    written = record_calls(monkeypatch, branching, "write_block", lambda *args: args[2])
    workspace = LoadedOnceHere()
    first, second = _game(workspace, 1), _game(workspace, 2)
    assert first.compiled is second.compiled
    chain = Chain(first, SPEC, exact=False)
    ends = _ends(chain)
    assert written  # the first chain of the program compiles its battle steps
    written.clear()
    again = Chain(second, SPEC, exact=False)
    assert again.branching is chain.branching
    assert _ends(again) == ends
    assert written == []  # the second game's chain compiles none of them again
    # fractions have executors of their own
    assert Chain(second, SPEC, exact=True).branching is not chain.branching
    # a chain of a program of its own gives the same floats
    assert _ends(Chain(_game(Workspace([]), 1), SPEC, exact=False)) == ends
    # the closures' own chaining (what tests compare the generated blocks with) is not served the
    # generated executors kept
    monkeypatch.setattr(branching, "GENERATE_BLOCKS", False)
    closures = Chain(second, SPEC, exact=False)
    assert closures.branching is not chain.branching and not closures.branching.generate
    assert _ends(closures) == ends


def test_a_chain_on_kept_executors_is_freed_without_the_garbage_collector():
    workspace = LoadedOnceHere()
    Chain(_game(workspace, 1), SPEC, exact=False).solve()  # the executors compiled and kept
    game = _game(workspace, 2)
    enabled = gc.isenabled()
    gc.disable()
    try:
        chain = Chain(game, SPEC, exact=False)
        chain.solve()
        assert chain.branching.world is None  # the kept executors hold no chain after its runs
        alive = weakref.ref(chain)
        del chain
        assert alive() is None
    finally:
        if enabled:
            gc.enable()
