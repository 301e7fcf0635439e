"""What the exact odds' tests share: a game of a composition, the Revised board under aar/base@1,
and a battle's exact odds on it (tests/test_odds.py, tests/test_odds_steps.py)."""

from __future__ import annotations

import pytest

from ruleslang.runtime import saves
from ruleslang.runtime.odds.chain import BattleSpec, Chain
from ruleslang.workspace.compositions import Workspace

LAND = "Karelia S.S.R."


def make_game(refs=("aar/base@1",), roots=(), scenario_text=None):
    """A game of `refs` (seed 1, one round, heuristic agents) on the map or `scenario_text`."""
    setup = saves.GameSetup(refs=list(refs), scenario=None, seed=1, rounds=1, players={}, default_agent="heuristic",
                            settings=[], orders=None)
    return saves.build_game(Workspace(list(roots)), setup, scenario_text=scenario_text)


AT_WAR = """format: 1
title: the start, the United States at war with Japan
map: g40
counters:
  war_declared:
    Americans:
      Japanese: true
"""


@pytest.fixture(scope="module")
def base_game():
    """The Revised board under aar/base@1 (shared by a module's tests)."""
    return make_game()


def odds(game, attacking, defending, space=LAND, attacker="Germans", defender="Russians", **options):
    """The exact odds of `attacking` against `defending` at `space` on `game`'s board (`Chain` options)."""
    return Chain(game, BattleSpec(space, attacker, attacking, defending, defender), **options).solve()


class Casualty:
    """A unit as the casualty orders read it: an id, a type and a cost."""

    def __init__(self, uid, type_name, cost):
        self.id, self.type, self.cost = uid, type_name, cost

