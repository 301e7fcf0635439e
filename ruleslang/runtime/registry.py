"""What the game runtime provides to rulesets: generic procedures and the actions constraints guard.

Phases and steps written `runtime NAME with {...}` name a procedure here; `constraint x on ACTION(...)`
names an action here. Both are generic board-game machinery; the rules that parameterise them
live in rulesets.
"""

from __future__ import annotations

from .. import types as T

# procedure name -> (what it does, accepted configuration fields and their types)
PROCEDURES: dict[str, tuple[str, dict[str, T.Type]]] = {
    "purchase": ("players buy units with their treasury, within the declared purchase constraints",
                 {"economy": T.TEXT}),
    "move": ("players move units; kind \"combat\" or \"noncombat\"", {"kind": T.TEXT}),
    "battle": ("every contested space is fought out by the declared battle sequence",
               {"sequence": T.TEXT}),
    "place": ("purchased units are placed, within the declared placement constraints", {}),
    "research": ("players may roll for technologies", {"cost": T.INT}),
    "fire": ("one side of a battle fires (a battle step)",
             {"side": T.TEXT, "units": T.TEXT, "value": T.TEXT, "targets": T.TEXT}),
}

# action name -> its parameters (name, type), in order. The runtime asks every constraint on an
# action before it acts, and refuses with the constraints' messages.
#   purchase: everything a player buys in one purchase phase
#   place:    every unit a player mobilises at one land territory in one turn (sea units go to a
#             sea zone bordering it)
#   build:    a new factory in a territory (declared at purchase, placed at mobilisation)
#   move:     units moving together along a path of spaces
ACTIONS: dict[str, tuple[tuple[str, T.Type], ...]] = {
    "purchase": (("player", T.PLAYER), ("units", T.ListType(T.UNITTYPE))),
    "place": (("player", T.PLAYER), ("space", T.SPACE), ("units", T.ListType(T.UNITTYPE))),
    "build": (("player", T.PLAYER), ("space", T.SPACE)),
    "move": (("player", T.PLAYER), ("units", T.ListType(T.UNIT)), ("path", T.ListType(T.SPACE))),
}
