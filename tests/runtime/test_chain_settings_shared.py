"""The exact chain an agent asks about a game's battle shares the game's compiled procedure
settings (runtime/odds/states.py `BattleHost`: `ProcedureConfig.for_context`) instead of
compiling them for every chain, and answers as a chain of a game that had built none."""

from __future__ import annotations

import pytest

from ruleslang.runtime import saves
from ruleslang.runtime.odds.chain import BattleSpec, Chain
from ruleslang.workspace.compositions import Workspace

SPECS = [
    BattleSpec("Karelia S.S.R.", "Germans", {"infantry": 2, "artillery": 1, "armour": 1}, {"infantry": 3},
               "Russians"),
    BattleSpec("12 Sea Zone", "Germans", {"battleship": 1, "submarine": 2}, {"destroyer": 1, "fighter": 1},
               "Americans"),
    BattleSpec("Karelia S.S.R.", "Germans", {"fighter": 1, "bomber": 1}, {"infantry": 1, "aaGun": 1},
               "Russians"),
]


@pytest.fixture(scope="module")
def played():
    """A house-rules game one round in: the game has built its battle and move settings."""
    setup = saves.GameSetup(refs=["aar/house-rules@1"], scenario=None, seed=2, rounds=1, players={},
                            default_agent="random", settings=[], orders=None)
    game = saves.build_game(Workspace([]), setup)
    game.run(1)
    return game


def test_the_chain_shares_the_games_compiled_settings(played):
    assert played.configs
    chain = Chain(played, SPECS[0], exact=True)
    for key, config in played.configs.items():
        mine = chain.host.configs[key]
        assert mine is not config and mine.ctx is chain.ctx  # its own context and caches
        assert mine._compiled is config._compiled           # the compiled code shared


@pytest.mark.parametrize("spec", SPECS, ids=["land", "sea", "air against aa"])
def test_a_chain_with_the_shared_settings_answers_as_one_without(played, spec):
    shared = Chain(played, spec, exact=True).solve()
    kept = played.configs
    try:
        played.configs = {}  # as a game that has built no settings: the chain compiles its own
        alone = Chain(played, spec, exact=True).solve()
    finally:
        played.configs = kept
    assert shared.ends == alone.ends and shared.taken == alone.taken and shared.rounds == alone.rounds
    assert shared.states == alone.states
