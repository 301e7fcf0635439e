"""The heuristic agent's quick estimates throw dice of their own, seeded from the agent's generator
(`HeuristicAgent._dice`): the seed drawn is put in the estimates' generator only when that is next
read (`_estimate_dice`), so that the many estimates answered without throwing (a verdict kept, a
lopsided battle, a retreat question the square law settles) seed nothing, and the dice read are
those an estimate would have read had every seed been put in as it was drawn."""

from __future__ import annotations

import random

import pytest

from ruleslang.compare.runner import GamePlayer, GameTask, LoadedOnce, game_seed
from ruleslang.runtime.agents.heuristic import HeuristicAgent


class _CountingRandom(random.Random):
    """A generator that counts how often it is seeded after it is made."""

    def __init__(self) -> None:
        super().__init__()
        self.seeds = 0

    def seed(self, *args, **kwargs):
        self.seeds = getattr(self, "seeds", 0) + 1
        return super().seed(*args, **kwargs)


def _agent() -> HeuristicAgent:
    agent = HeuristicAgent(5, "Germans")
    agent._estimate_generator = _CountingRandom()
    return agent


def test_only_the_last_seed_drawn_is_put_in_when_the_dice_are_read():
    agent = _agent()
    drawn = random.Random()
    drawn.setstate(agent.rng.getstate())
    for _ in range(3):
        agent._dice()
    assert agent._estimate_generator.seeds == 0  # drawn, not put in
    seeds = [drawn.getrandbits(64) for _ in range(3)]
    assert agent.rng.getstate() == drawn.getstate()  # the agent's generator drew each seed
    dice = agent._estimate_dice
    assert agent._estimate_generator.seeds == 1
    expected = random.Random(seeds[-1])
    assert [dice.random() for _ in range(4)] == [expected.random() for _ in range(4)]
    # read again without a new seed: the same stream goes on, seeded no more
    assert agent._estimate_dice.random() == expected.random()
    assert agent._estimate_generator.seeds == 1


def test_a_seed_drawn_after_dice_were_thrown_starts_them_anew():
    agent = _agent()
    agent._dice()
    first = agent._estimate_dice.random()
    agent._dice()
    agent._dice()
    again = random.Random()
    again.setstate(agent.rng.getstate())
    assert agent._estimate_generator.seeds == 1
    fresh = agent._estimate_dice.random()
    assert agent._estimate_generator.seeds == 2
    assert fresh != first and fresh == random.Random(_last_seed(agent, 3)).random()
    assert agent.rng.getstate() == again.getstate()  # reading the dice draws nothing of the agent's


def _last_seed(agent: HeuristicAgent, draws: int) -> int:
    """The `draws`-th seed an agent made like `agent` draws (its generator from the start)."""
    rng = HeuristicAgent(agent.seed, agent.player).rng
    return [rng.getrandbits(64) for _ in range(draws)][-1]


_deferred_dice = HeuristicAgent._dice


def _eager_dice(self) -> None:
    """`_dice` as it was: every seed put in the estimates' generator as it is drawn."""
    _deferred_dice(self)
    self._estimate_dice  # noqa: B018 - read to put the seed in at once


@pytest.mark.parametrize("ruleset", ["aar/house-rules@1", "aar/base@1"])
def test_games_are_the_same_as_with_every_seed_put_in_at_once(ruleset, monkeypatch):
    player = GamePlayer(LoadedOnce([]))
    task = GameTask(0, 2, (ruleset,), None, None, game_seed(1, 2), 3, (), "heuristic")
    seeded: list[int] = []
    made = HeuristicAgent.__init__

    def counted(self, *args, **kwargs):
        made(self, *args, **kwargs)
        self._estimate_generator = _CountingRandom()
        seeded.append(self)

    monkeypatch.setattr(HeuristicAgent, "__init__", counted)
    deferred = player.play(task)
    deferred_seeds = sum(a._estimate_generator.seeds for a in seeded)
    seeded.clear()
    monkeypatch.setattr(HeuristicAgent, "_dice", _eager_dice)
    eager = player.play(task)
    eager_seeds = sum(a._estimate_generator.seeds for a in seeded)
    assert deferred == eager
    assert deferred_seeds < eager_seeds
