"""The round summaries `ruleslang play` prints: `collected` is what the income collection gave
(plunder and other gains on their own line, by cause), a territory taken on the move says so, and
a battle won without a unit that can take the territory says why it was not taken."""

from __future__ import annotations

import contextlib
import io
import os

import pytest

from ruleslang.cli.app import main
from ruleslang.runtime import saves
from ruleslang.runtime.agents import make_agent
from ruleslang.runtime.agents.heuristic import HeuristicAgent


def previous_agents(spec: str, *, seed: int, player: str, orders=None):
    """The agents of the game below: the heuristic agent kept as it played before the look-ahead
    (`previous=True`: the game these tests read is pinned to that agent's play, not to the agent
    of the day, which now also fights at sea)."""
    if spec == "heuristic":
        return HeuristicAgent(seed, player, previous=True)
    return make_agent(spec, seed=seed, player=player, orders=orders)


@pytest.fixture(scope="module")
def seed_2(tmp_path_factory):
    """The default game, seed 2, 3 rounds, with the previous heuristic agent: the Germans take
    Russia (and its treasury) in round 1 and blitz Kazakh S.S.R. in round 3; aircraft alone win
    in Archangel in round 1."""
    out = io.StringIO()
    here = os.getcwd()
    os.chdir(tmp_path_factory.mktemp("play"))
    try:
        with contextlib.redirect_stdout(out), pytest.MonkeyPatch.context() as patch:
            patch.setattr(saves, "make_agent", previous_agents)
            assert main(["play", "--seed", "2", "--rounds", "3"]) == 0
    finally:
        os.chdir(here)
    return out.getvalue().splitlines()


def test_collected_is_the_income_collection_and_plunder_is_its_own_line(seed_2):
    first = seed_2[:seed_2.index("Round 2")]
    [income] = [line for line in first if line.startswith("  income:")]
    assert "Germans 40," in income and "collected 64" not in income
    assert "  gained:   Germans 24 (capture)" in first


def test_a_blitz_says_it_was_taken_on_the_move(seed_2):
    assert "  control:  Kazakh S.S.R.: Russians -> Germans (taken on the move)" in seed_2
    assert "  control:  Russia: Russians -> Germans" in seed_2  # taken in a battle: no note


def test_an_air_only_win_says_why_the_territory_was_not_taken(seed_2):
    assert ("  battle:   Germans attacks Archangel (Russians): the attacker wins after 1 round; "
            "no land unit to take it") in seed_2
    assert not [line for line in seed_2 if ", taken" in line and "no land unit" in line]
