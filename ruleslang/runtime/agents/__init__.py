"""Agents: who answers a game's decisions. `make_agent(spec, seed, player)` builds one by name."""

from __future__ import annotations

from ruleslang.runtime.agents.random_agent import RandomAgent
from ruleslang.runtime.agents.heuristic import HeuristicAgent
from ruleslang.runtime.agents.human import HumanAgent
from ruleslang.runtime.agents.scripted import ScriptedAgent

KINDS = ("random", "heuristic", "scripted", "human")


def make_agent(spec: str, *, seed: int, player: str, orders: dict | None = None):
    """`random`, `heuristic`, `scripted` (orders from a YAML file) or `human` (a terminal prompt)."""
    if spec == "random":
        return RandomAgent(seed, player)
    if spec == "heuristic":
        return HeuristicAgent(seed, player)
    if spec == "scripted":
        return ScriptedAgent(player, orders or {})
    if spec == "human":
        return HumanAgent(player, seed=seed)
    raise ValueError(spec)
