"""What the game runtime provides to rulesets: generic procedures and the actions constraints guard.

Phases and steps written `runtime NAME with {...}` name a procedure here; `constraint x on ACTION(...)`
names an action here. Both are generic board-game machinery; the rules that parameterise them
live in rulesets. `CAPABILITIES` is all of it, as the checker receives it.
"""

from __future__ import annotations

from ruleslang.lang import types as T
from ruleslang.lang.check.capabilities import Capabilities

_UNIT_INT = T.FnType((T.UNIT,), T.INT)
_UNIT_BOOL = T.FnType((T.UNIT,), T.BOOL)
_TYPE_INT = T.FnType((T.UNITTYPE,), T.INT)
_TYPE_BOOL = T.FnType((T.UNITTYPE,), T.BOOL)
# at_war (move and battle): whether a player not on the mover's side is at war with it (asked
# with the mover as current_player()); absent: every such player is
_PLAYER_BOOL = T.FnType((T.PLAYER,), T.BOOL)
# a landing planned in combat move that waits for the sea battle in its zone (`landing_holds`)
_PLANNED_LANDING = T.RecordType((("zone", T.SPACE), ("to", T.SPACE), ("units", T.ListType(T.UNIT))))

# procedure name -> (what it does, its settings and their types). Settings of a function type are
# written as conditions `x => ...`; the others are expressions.
PROCEDURES: dict[str, tuple[str, dict[str, T.Type]]] = {
    "purchase": ("players buy units with their treasury, within the declared purchase constraints",
                 {"cost": _TYPE_INT, "factory_cost": T.FnType((T.SPACE,), T.INT), "buyable": _TYPE_BOOL,
                  # units come in lots of `lot` (cost: a lot's price); `resource_costs` of a lot in
                  # the counters `resources` names, besides the money
                  "lot": _TYPE_INT, "resources": T.ListType(T.TEXT),
                  "resource_costs": T.FnType((T.UNITTYPE,), T.ListType(T.INT))}),
    # landing_holds: asked of each landing planned in the combat move (one that waits for the sea
    # battle in its zone) when the combat move ends; false cancels it (default: every one holds).
    # Absent settings take the default docs/runtime.md ("### runtime move") gives, today's rule:
    # passes_blockers / blocks_passing false, stops_movement / blocks_unload true, the
    # unloaded_transport_* and loads_* false, landing "held by the side at the start of the turn
    # and still held", later_carriers / carries_allied_air false, canals "move", raid_target "an
    # enemy territory with a factory", commands false (a player moves only its own units),
    # ends_among_enemies false, blocks_ending true (no unit ends a non-combat move among enemy
    # units), releases_air true (every carrier lets the air units aboard take off), at_war: every
    # player not on the mover's side is its enemy.
    "move": ("players move units; kind \"combat\" or \"noncombat\"",
             {"kind": T.TEXT, "movement": _UNIT_INT, "domain": T.FnType((T.UNIT,), T.TEXT),
              "blitz": _UNIT_BOOL, "blocks": _UNIT_BOOL, "transport_capacity": _UNIT_INT,
              "transport_cost": _UNIT_INT, "carrier_capacity": _UNIT_INT, "carrier_cost": _UNIT_INT,
              "bombs": _UNIT_BOOL, "escorts": _UNIT_BOOL, "combat_moves": _UNIT_BOOL,
              "passes_blockers": _UNIT_BOOL, "blocks_passing": _UNIT_BOOL, "stops_movement": _UNIT_BOOL,
              "blocks_unload": _UNIT_BOOL, "commands": _UNIT_BOOL,
              "unloaded_transport_moves": T.BOOL, "unloaded_transport_loads": T.BOOL,
              "loads_allied": T.BOOL, "loads_onto_allied": T.BOOL,
              "landing": T.FnType((T.SPACE,), T.BOOL), "later_carriers": T.BOOL, "carries_allied_air": T.BOOL,
              "canals": T.TEXT, "raid_target": T.FnType((T.SPACE,), T.BOOL),
              "landing_holds": T.FnType((_PLANNED_LANDING,), T.BOOL), "takes_landings": _UNIT_BOOL,
              # airborne moves (land units flown into an attack: kit/airborne.py)
              "airborne": _UNIT_BOOL, "air_lift": _UNIT_INT, "airborne_from": T.FnType((T.SPACE,), T.INT),
              "airborne_range": T.INT, "airborne_together": T.BOOL, "airborne_to": T.FnType((T.SPACE,), T.BOOL),
              # a territory the mover's land units take over by ending a non-combat move in it
              "taken_over": T.FnType((T.SPACE,), T.BOOL),
              "at_war": _PLAYER_BOOL, "ends_among_enemies": _UNIT_BOOL, "blocks_ending": _UNIT_BOOL,
              "releases_air": _UNIT_BOOL}),
    # the battle policies (docs/runtime.md, "runtime battle"): captures, which attacking units take
    # a territory; defender, who defends a space; retreats, whether the attacker may retreat from
    # the battle at hand; retreat_to, which of the spaces its units came from it may retreat to;
    # stalemate, asked before each round, ends a battle no side can win; withdraws, which attacking
    # units may leave the battle on their own where they stand; casualties_by, who chooses the
    # casualties among a unit's side; stays, which attacking units fight on when the others retreat
    "battle": ("every contested space is fought out by the declared battle steps",
               {"round": T.TEXT, "start": T.TEXT, "capture": T.TEXT, "raid": T.TEXT,
                "fights": _UNIT_BOOL, "hit_points": _UNIT_INT, "captured": _UNIT_BOOL,
                "captures": _UNIT_BOOL, "defender": T.FnType((T.SPACE,), T.OptionalType(T.PLAYER)),
                "retreats": T.BOOL, "retreat_to": T.FnType((T.SPACE,), T.BOOL), "stalemate": T.BOOL,
                "withdraws": _UNIT_BOOL, "casualties_by": T.FnType((T.UNIT,), T.OptionalType(T.PLAYER)),
                "stays": _UNIT_BOOL, "at_war": _PLAYER_BOOL, "fought": T.FnType((T.SPACE,), T.BOOL)}),
    # owner: who gets the units the current player places (itself by default; an ally that moves
    # them, for a power whose economies buy and place separately); takes_landings: a carrier
    # already at sea on which new air units may be placed (every one by default)
    "place": ("purchased units are placed, within the declared placement constraints",
              {"at_sea": _TYPE_BOOL, "carrier_capacity": _TYPE_INT, "carrier_cost": _TYPE_INT,
               "owner": T.PLAYER, "takes_landings": _UNIT_BOOL}),
    # the bid (`play --bid SIDE=IPCS`), run before round 1 for each power with a bid, not in a
    # turn: the power buys units with its bid at `cost` and places them at once, each in a space
    # where `space` holds (land units on land, sea units at sea), at most `per_space` in a space
    "bid": ("before the first round, a power spends its bid on units and places them where the rules allow",
            {"cost": _TYPE_INT, "buyable": _TYPE_BOOL, "at_sea": _TYPE_BOOL,
             "space": T.FnType((T.SPACE,), T.BOOL), "per_space": T.INT}),
}

# settings a procedure cannot run without
REQUIRED: dict[str, tuple[str, ...]] = {
    "purchase": ("cost",),
    "move": ("kind", "movement", "domain"),
    "battle": ("round",),
    "place": (),
    "bid": ("cost", "space"),
}

# action name -> its parameters (name, type), in order. The runtime asks every constraint on an
# action before it acts, and refuses with the constraints' messages.
#   purchase: everything a player buys in one purchase phase
#   place:    every unit a player mobilises at one land territory in one turn (sea units go to a
#             sea zone bordering it)
#   build:    a new factory in a territory (declared at purchase, placed at mobilisation)
#   move:     units moving together along a path of spaces
#   bomb:     units flying together along a path to raid the last space (asked besides move)
ACTIONS: dict[str, tuple[tuple[str, T.Type], ...]] = {
    "purchase": (("player", T.PLAYER), ("units", T.ListType(T.UNITTYPE))),
    "place": (("player", T.PLAYER), ("space", T.SPACE), ("units", T.ListType(T.UNITTYPE))),
    "build": (("player", T.PLAYER), ("space", T.SPACE)),
    "move": (("player", T.PLAYER), ("units", T.ListType(T.UNIT)), ("path", T.ListType(T.SPACE))),
    "bomb": (("player", T.PLAYER), ("units", T.ListType(T.UNIT)), ("path", T.ListType(T.SPACE))),
}

# a line giving each procedure's required settings, for the hint when one is missing
EXAMPLES: dict[str, str] = {
    "purchase": "runtime purchase with {cost: u => u.cost}",
    "move": 'runtime move with {kind: "combat", movement: u => u.movement, domain: u => "land"}',
    "battle": 'runtime battle with {round: "round_steps"} (a sequence of battle steps)',
    "bid": "runtime bid with {cost: u => u.cost, space: t => controller(t) == current_player()}",
}

CAPABILITIES = Capabilities(PROCEDURES, REQUIRED, ACTIONS, EXAMPLES)
