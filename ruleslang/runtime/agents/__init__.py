"""Agents: who answers a game's decisions. `make_agent(spec, seed, player)` builds one by name."""

from __future__ import annotations

from ruleslang.runtime.agents.random_agent import RandomAgent

KINDS = ("random", "heuristic", "scripted", "human")


def make_agent(spec: str, *, seed: int, player: str, orders: dict | None = None):
    """`random`, `heuristic`, `scripted` (orders from a YAML file) or `human` (a terminal prompt)."""
    if spec == "random":
        return RandomAgent(seed, player)
    if spec == "heuristic":
        from ruleslang.runtime.agents.heuristic import HeuristicAgent

        return HeuristicAgent(seed, player)
    if spec == "scripted":
        from ruleslang.runtime.agents.scripted import ScriptedAgent

        return ScriptedAgent(player, orders or {})
    if spec == "human":
        from ruleslang.runtime.agents.human import HumanAgent

        return HumanAgent(player, seed=seed)
    raise ValueError(spec)
