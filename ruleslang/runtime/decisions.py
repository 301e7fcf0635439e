"""Decisions: everything a game asks a player, behind one interface.

A `Decision` says who decides, what kind of decision it is, and what is legal; an agent answers
it (`Agent.decide`). The kinds:

    choose      a rule's `choose` (options, mode one / exactly / up to, count)
    purchase    what to buy: `answer` is a dict {unit type: count} plus "build" -> [territories]
    move        one movement order or DONE; `legal` is the movement engine
    place       where purchased units go: {territory: [unit type, ...]}
    casualties  which units take the hits: a list of unit ids (a unit once per hit it takes)
    retreat     the battle's retreat options or STAY

Every answer is checked; an illegal one is refused (the refusal reasons go back in
`Decision.refusals`) and asked again, a few times, before the runtime falls back to doing nothing.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


class _Sentinel:
    def __init__(self, name: str):
        self.name = name

    def __repr__(self) -> str:
        return self.name


DONE = _Sentinel("DONE")   # no more moves this phase
STAY = _Sentinel("STAY")   # do not retreat


@dataclass
class Decision:
    kind: str
    player: str
    prompt: str
    options: list = field(default_factory=list)
    mode: str = "one"
    count: int = 1
    context: dict = field(default_factory=dict)  # kind-specific: money, costs, engine, battle, ...
    refusals: list[str] = field(default_factory=list)
    id: str = ""  # for `choose`: the rule's decision id (procedure.variable)


class Agent:
    """Answers decisions for one player. Subclasses implement `decide`."""

    name = "agent"
    # True when an agent built again with the same seed answers a replayed game exactly as it did
    # (its choices depend only on its seed, the game and the questions asked): resuming a game
    # asks it again, so that its own state (a random generator) goes on as in an unbroken game
    deterministic = False

    def decide(self, decision: Decision, game) -> Any:  # pragma: no cover - abstract
        raise NotImplementedError

    def joined(self, game) -> None:
        """Told once, when `game` starts (or resumes) playing with this agent: an agent that
        follows the game between its decisions (the heuristic's look-ahead) hooks in here."""

    def left(self, game) -> None:
        """Told once, when `game` is closed (`Game.close`: its caller is done with it): an agent
        that holds something of the game in reference cycles (the heuristic's kept chain) lets
        go of it here."""
