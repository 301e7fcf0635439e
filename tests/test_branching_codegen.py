"""The battle steps' blocks as generated code (lang/eval/codegen_branching.py) against the closures'
own chaining (lang/eval/branching.py): the same floats and fractions, the same step runs."""

from __future__ import annotations

import pytest

from ruleslang.lang.eval import branching
from ruleslang.runtime import saves
from ruleslang.runtime.odds.chain import BattleSpec, Chain
from ruleslang.workspace.compositions import Workspace

LAND = "Karelia S.S.R."

BATTLES = [
    (("aar/house-rules@1",), BattleSpec(LAND, "Germans", {"infantry": 3, "artillery": 1, "armour": 1},
                                        {"infantry": 2}, "Russians")),
    # aircraft against an AA gun: a `for` of rolled `if`s (closures) around generated blocks
    (("aar/house-rules@1",), BattleSpec(LAND, "Germans", {"infantry": 1, "fighter": 2, "bomber": 1},
                                        {"infantry": 2, "aaGun": 1}, "Russians")),
    # submarines: a condition that reads a rolled value not looked at yet hands its `if` to the closure
    (("aar/house-rules@1",), BattleSpec("2 Sea Zone", "Germans", {"battleship": 1, "submarine": 2, "fighter": 1},
                                        {"destroyer": 1, "submarine": 1}, "British")),
    # the bombardment of an amphibious assault: a `hit` whose count rolls (its closure)
    (("aar/base@1",), BattleSpec(LAND, "Germans", {"infantry": 1, "battleship": 1}, {"infantry": 2}, "Russians",
                                 [], "5 Sea Zone")),
    (("aa50/base@1", "aa50/sub-detection@1"), BattleSpec("12 Sea Zone", "Germans", {"submarine": 2},
                                                         {"destroyer": 1, "submarine": 1}, "Americans")),
]


def _game(refs):
    setup = saves.GameSetup(refs=list(refs), scenario=None, seed=1, rounds=1, players={}, default_agent="heuristic",
                            settings=[], orders=None)
    return saves.build_game(Workspace([]), setup)


def _solve(refs, spec, exact: bool, generate: bool, monkeypatch):
    """The chain's ends (as text: every float's digits) and its step runs, with the blocks generated
    or not (a game of its own each: a game's Branching is kept with it)."""
    monkeypatch.setattr(branching, "GENERATE_BLOCKS", generate)
    chain = Chain(_game(refs), spec, exact=exact)
    ends = {end: repr(p) for end, p in chain.solve().ends.items()}
    assert chain.branching.generate is generate
    return ends, chain.step_runs, chain


@pytest.mark.parametrize("refs, spec", BATTLES)
def test_the_generated_blocks_give_the_closures_floats(refs, spec, monkeypatch):
    closures, runs, _ = _solve(refs, spec, False, False, monkeypatch)
    generated, runs2, chain = _solve(refs, spec, False, True, monkeypatch)
    assert generated == closures and runs2 == runs
    assert len(generated) > 1
    fire = chain.branching._bodies[("attacker_fire", 0)][0]
    assert "def b0(env, p, k):" in fire.generated_source


@pytest.mark.parametrize("refs, spec", BATTLES[:3:2])
def test_the_generated_blocks_give_the_closures_fractions(refs, spec, monkeypatch):
    closures, runs, _ = _solve(refs, spec, True, False, monkeypatch)
    generated, runs2, _ = _solve(refs, spec, True, True, monkeypatch)
    assert generated == closures and runs2 == runs


def test_the_closures_back_end_does_not_generate_blocks(monkeypatch):
    monkeypatch.setenv("RULESLANG_EVAL", "closures")
    chain = Chain(_game(("aar/house-rules@1",)), BATTLES[0][1], exact=False)
    chain.solve()
    assert chain.branching.generate is False
    assert not hasattr(chain.branching._bodies[("attacker_fire", 0)][0], "generated_source")
