"""A game closed once played frees its board, context and agents by reference counting alone
(`Game.close`): a process that plays game after game (compare workers) no longer leaves each
finished game to the cyclic collector's next full pass in the next game."""

from __future__ import annotations

import gc
import weakref

import pytest

from game_fixtures import make_game
from conftest import LoadedOnceHere
from ruleslang.compare.runner import GamePlayer, GameTask, game_seed


@pytest.mark.parametrize("agent", ["random", "heuristic"])
def test_a_closed_game_is_freed_without_the_collector(agent, collector_paused):
    game = make_game(["aar/house-rules@1"], seed=3, default_agent=agent, rounds=1)
    result = game.run(1)
    events = game.state.events
    kept = [weakref.ref(x) for x in (game, game.state, game.ctx, game.host, game.board, game.kit)]
    kept += [weakref.ref(a) for a in game.agents.values()]
    game.close()
    del game
    assert [ref() is None for ref in kept] == [True] * len(kept)
    # what the caller took from the game before it closed it stays
    assert result["rounds_played"] == 1 and events and events[0]["kind"]


def test_a_worker_closes_its_game_after_the_record(collector_paused):
    # the record is built before the game is closed (`GamePlayer.play`); the game left nothing
    # for the collector: the next full pass finds none of its objects
    player = GamePlayer(LoadedOnceHere())
    task = GameTask(0, 0, ("aar/house-rules@1",), None, None, game_seed(1, 0), 1, (), "random")
    record = player.play(task)
    assert record["rounds"] == 1 and record["accounting"]
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        gc.collect()
        left = {type(x).__name__ for x in gc.garbage}
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
    assert not left & {"Game", "GameState", "EvalContext", "Host", "BoardQueries"}
