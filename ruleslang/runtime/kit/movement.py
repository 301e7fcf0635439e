"""The movement engine: where a player's units may go in combat and non-combat move.

Generic over any map and any unit types: everything a rule document says about a unit comes in
through `MovementRules` (one `UnitRules` per unit type and owner, and who is allied with whom),
which the runtime builds from the rulesets. The engine reads a `GameState` and changes it only
through its effects (`move_units`, and the `capture` callback for territories taken by a blitz).

    engine = MovementEngine(state, rules, player, "combat")     # or "noncombat"
    engine.legal_moves()            single-unit moves, loads and unloads, in a fixed order
    engine.destinations(unit_id)    space -> one shortest legal path, for kind "move"
    engine.check(move)              why a move is illegal ([] when it is legal)
    engine.apply(move)              one `move_units` event (plus any blitz captures)
    engine.contested()              after combat move: where battles must be fought
    engine.bombing_raids()          where units moved with kind "bomb" raid a factory
    engine.stranded_air()           after non-combat move: air units with nowhere to land

The engine is this facade over its parts (mixins sharing its board facts and caches):
`paths.py` (land and sea paths, hostility, blocking, canals, blitzes), `air.py` (landing spaces,
carriers, stranded air units), `transport.py` (loads, unloads, cargo) and `airborne.py` (land
units flown into an attack: the move kind "airborne", its rules in that module), `takeover.py`
(territories taken over by a non-combat move into them, the setting `taken_over`), `raids.py`
(the "bomb" moves of bombing and escorting air units, and the raids they make) and `move_lists.py`
(the lists of moves and of movable units kept between moves); the data they share
(`UnitRules`, `MovePolicy`, `MovementRules`, `Move`, the map's precomputed adjacency) is in
`movement_rules.py`. An engine the move procedure makes begins with a pass over the board's units
made by kind from the game's census of units (`unit_census.py`, kept across its engines and
followed by the board's events); one made without a census makes its own pass over the units.

The rules (Axis & Allies Revised, stated generically). Those a house rule may change are the
ruleset's settings (docs/runtime.md "### runtime move"); the defaults below are Revised's:

- Movement points. A unit moves at most `movement` spaces per turn in all (`Unit.moved` counts
  them; `GameState.start_turn` resets it). A unit that moved in combat move does not move in
  non-combat move, and neither does one that ended a combat move in a battle space; air units
  are the exception: they use what movement they have left to land.
- Domains. Land units enter land territories only (water only aboard a transport), sea units
  sea zones only, air units any space. Impassable spaces are never entered nor flown over.
- Hostile and friendly. A territory is friendly when its controller is the player or an ally;
  any other territory (an enemy's, or no one's) is hostile. Enemy units are units of players not
  allied with the mover and at war with it (`MovementRules.enemies`: the units of a player at
  peace with the mover share its spaces).
- Combat move, land. Entering a hostile territory or a space holding enemy units ends the move
  there (an attack), except that enemy units whose `stops_movement` is false (default: true) do
  not stop it. A unit with `can_blitz` may pass through a hostile territory holding no enemy
  units that stop it and go on; it takes control as it passes (the `capture` callback, by
  default `set_control`). Among the shortest paths to a space, the one passing fewest hostile
  territories is chosen. Moves to friendly spaces are also legal in combat move (as on TripleA);
  `is_battle_space` tells an agent which destinations are attacks.
- Non-combat move. Land and sea units never enter a hostile territory nor end in a space holding
  enemy units, except a sea zone whose enemy units all have `blocks_ending` false, or any sea
  zone for a unit with `ends_among_enemies` (which may also enter a zone of blocking units as its
  last step); air units may fly over anything but must end where they can land.
- Sea. A sea zone holding enemy units whose `blocks` is true stops sea movement: in combat move
  the move ends there (a sea battle), in non-combat move it may not be entered. Enemy units that
  do not block (`blocks` false) may be passed, and a unit whose `passes_blockers` is true
  (default: false) passes blocking units too, except enemy units whose `blocks_passing` is true
  (default: false), which stop it as blockers stop any other.
- Canals (`GameMap.canals`). A canal names sea zones and land territories; it adds no adjacency
  (the map's adjacency already joins its sea zones) but restricts it: a sea unit may step
  directly between two of its sea zones only when every one of its land territories is
  controlled by the mover or an ally at the start of the move (policy `canals` "move"; with
  "turn", at the start of the turn). Land and air units ignore canals.
- Air, combat move. An air unit may end anywhere it reaches (an attack on a space with enemy
  units, a flight over an empty hostile territory, or a friendly space), or with kind "bomb" (a
  unit with `can_bomb`) in a territory held by an enemy player that has a factory: a
  strategic bombing raid (or in one the `raid_target` condition accepts); a unit with
  `can_escort` may fly with kind "bomb" to a raid the player's bombing units make, as an escort
  (it raids nothing; the raid step sees it). It must keep enough movement to land afterwards: its movement left at
  the end of the move must be at least the air distance to the nearest landing space, i.e. a
  territory without enemy units where `MovementRules.landing` lets it land (default: its side
  held it at the start of the turn and still holds it), or a
  sea zone where carriers of its side have room for it (its `carrier_cost` against their
  `carrier_capacity` less the `carrier_cost` of the air units of the side already there), or,
  with the policy's `later_carriers`, a sea zone without enemy units that a carrier of the
  player (big enough for it) can still reach in this turn's non-combat move: one that has not
  moved in combat move nor fought, by the non-combat rules and its movement left. Carriers
  moving in the same move as an air unit give it room where they end.
- Air, non-combat move: it must end in such a landing space (a carrier zone without enemy
  units, or one a carrier can still reach). At the end of non-combat move, `stranded_air` lists
  the player's air units with no landing where they stand (the runtime removes them): an air unit
  waiting for a carrier that did not come is lost then. On a crowded carrier zone, allied air
  units keep their places first, then the player's by id.
- Carriers and allied air units. The player's own air units always fly on their own movement.
  With the policy's `carries_allied_air`, a "move" of the player's carriers out of a sea zone
  takes along, as cargo, the allies' air units there that lose their place (those the carriers
  of the side staying behind have no room for, allied air units keeping places first, by id),
  as far as the moving carriers have room: a second `move_units` event of 0 steps, no flags.
  They do not fight in the player's battles (the battle's attackers are the player's units).
  With `MovementRules.releases_air`, the player's air units aboard another power's carrier that
  does not release them cannot move (`_held_aboard`: counted, as no record says which carrier).
- Transports. `load` (path: territory, sea zone) puts land units with `transport_cost` > 0 and
  movement left aboard one of the player's transports in a bordering sea zone, within
  `transport_capacity` less the cargo's costs; the zone must not hold enemy blocking units.
  With the policy's `loads_onto_allied` the transport may be an ally's, and with `loads_allied`
  the player's transport may take an ally's land units aboard (whatever their movement: it is
  the transport's move). The transport's owner moves it, cargo and all, in its own turn; the
  cargo goes ashore in its owner's turn (only the player's own cargo unloads), never in the turn
  it went aboard an ally's transport. What a player unloads from an ally's transport is noted on
  it apart (flag `ally_unload`), for that player's turn only.
  Loading spends one movement point and ends the unit's own movement for the turn except for
  unloading. A moving transport carries its cargo. `unload` (path: sea zone, territory) puts
  cargo ashore in a bordering territory: in combat move any territory (a hostile one is an
  amphibious assault and becomes contested), in non-combat move a friendly one without enemy
  units. From a sea zone holding enemy units whose `blocks_unload` is true (default: all) an
  unload in combat move is a landing that waits for the sea battle there (`waits_for_battle`,
  `plan_landing`: the battle procedure makes it if the attacker wins); in non-combat move, none.
  All the cargo a transport unloads in a turn goes to one territory, in one phase, and a
  transport that has unloaded does not move again that turn nor take on cargo (unless the
  policy's `unloaded_transport_moves` / `unloaded_transport_loads` say it may).
- Commanded units. An ally's unit whose `commanded` rule is true (the `commands` setting) is
  moved by the player as its own in this phase ("the player's units" above and below include it).
- Units with `moves_in_combat` false do not move (nor load or unload) in combat move.
- Contested spaces (after combat move): every space where the player's units stand together with
  enemy units (units on a bombing raid aside), and every hostile territory where the player's land
  units stand. Territories only blitzed through were taken and are not contested.

Unit flags the engine sets (all in `state.TURN_FLAGS`, cleared when the owner's turn starts):

    combat_moved      the unit moved, loaded or unloaded in combat move
    in_battle         it ended a combat move in a battle space; the battle procedure may set it
                      on every unit that fought. No further move this turn (air: only to land).
    bombing           it moved with kind "bomb": it raids the factory where it stands
    loaded_this_turn  a land unit that went aboard this turn
    unloaded          cargo that went ashore this turn (it moves no further)
    unloaded_from     on cargo that went ashore: the transport it came from
    passed_combat, passed_noncombat
                      the spaces the unit entered in that phase's moves, in order
    unloaded_to       on a transport: the territory its cargo went to this turn
    unloaded_in       on a transport: the phase ("combat" / "noncombat") it unloaded in

and, not a turn flag (it counts only in the turn it names):

    ally_unload       on an ally's transport the player unloaded from: {"player", "round",
                      "to": the territory, "in": the phase}

Not supported (a move needing them is refused, or the situation is not recognised): liberation
and factory capture on a blitz unless the runtime's `capture` callback does them; placement-turn
carriers as landing spaces. (An ally's air units riding a carrier share its fate after a sea
battle: kit/battle.py.)

Every output is deterministic: units by id, spaces in the map's natural order.
"""

from __future__ import annotations

from itertools import chain
from operator import attrgetter

from ruleslang.board.state import GameState, Unit
from ruleslang.runtime.kit.air import AirPart
from ruleslang.runtime.kit.airborne import AIRBORNE, AirbornePart
from ruleslang.runtime.kit.move_lists import MoveListsPart
from ruleslang.runtime.kit.movement_rules import (COMBAT, DOMAINS, KINDS, NONCOMBAT, PHASES, Move, MovePolicy,
                                                  MovementRules, UnitRules, move_board, id_of, unit_name)
from ruleslang.runtime.kit.paths import PathsPart
from ruleslang.runtime.kit.raids import RaidsPart
from ruleslang.runtime.kit.takeover import TakeoverPart
from ruleslang.runtime.kit.transport import TransportPart
from ruleslang.runtime.kit.unit_census import UnitCensus

space_of = attrgetter("space")

__all__ = ["COMBAT", "DOMAINS", "KINDS", "NONCOMBAT", "PHASES", "Move", "MovePolicy", "MovementEngine",
           "MovementRules", "UnitRules"]


class MovementEngine(PathsPart, AirPart, TransportPart, AirbornePart, TakeoverPart, RaidsPart, MoveListsPart):
    """Legal moves of one player in one movement phase ("combat" or "noncombat"); see the module
    docstring for the rules. Queries are cached until the state changes; the engine's own moves
    update its caches in place."""

    def __init__(self, state: GameState, rules: MovementRules, player: str, phase: str, *,
                 census: UnitCensus | None = None):
        """`census`: the game's units by kind, kept across its engines (`KitState.unit_census`): the
        engine's pass over the board is then made by kind from it (`_pass_by_kind`)."""
        if phase not in PHASES:
            raise ValueError(f"a movement phase is 'combat' or 'noncombat', not '{phase}'")
        if not state.map.has_player(player):
            raise ValueError(f"unknown player '{player}'")
        self.state = state
        self.rules = rules
        self.player = player
        self.phase = phase
        self.combat = phase == COMBAT
        self.policy = rules.policy
        self.board = move_board(state.map)
        self._ally = {p: rules.allied(player, p) for p in state.map.player_names()}
        # players whose units are the mover's enemies (not at peace with it: `MovementRules.enemies`)
        self._foe = {p: rules.enemies(player, p) for p in state.map.player_names()}
        self._version: int | None = None
        self._last_check: tuple | None = None  # (move, state version, problems): `check`
        self._trail = "passed_" + phase  # the flag of the spaces a unit entered in this phase's moves
        self._census = census

    def _sync(self) -> None:
        if self._version != self.state.version:
            self._rebuild()

    def restored(self, version: int) -> None:
        """The state is again exactly as it was at `version` (a change tried and undone, an agent's
        what-if): what the engine kept for that version holds for the state's version now, so it
        is not rebuilt (the agent's combat plan tries a change of control per target)."""
        if self._version == version:
            self._version = self.state.version

    def _rebuild(self) -> None:
        state = self.state
        self._by_id = state.unit_index()  # the state's own (units only move while the engine keeps it)
        census = self._census
        if census is not None and census.holds(state):
            mine, allied, foes = self._pass_by_kind(census)
        else:
            mine, allied, foes = self._pass(state.units)
        self._mine = mine
        self._allied_units = allied
        enemy: set[str] = set()
        blocking: set[str] = set()
        stopping: set[str] = set()
        no_unload: set[str] = set()
        passing: set[str] = set()
        no_end: set[str] = set()
        for rules, spaces in foes:
            enemy |= spaces
            if rules.blocks_ending:
                no_end |= spaces
            if rules.blocks:
                blocking |= spaces
            if rules.stops_movement:
                stopping |= spaces
            if rules.blocks_unload:
                no_unload |= spaces
            if rules.blocks_passing:
                passing |= spaces
        self._enemy = enemy
        self._blocking = blocking
        self._stops_passers = passing  # sea zones that stop even units passing blockers
        self._stopping = stopping    # where enemy units stop land movement in combat move
        self._no_unload = no_unload  # sea zones whose enemy units forbid unloading
        self._no_end = no_end        # spaces whose enemy units keep units from ending a non-combat move there
        self._may_land: dict[str, bool] = {}
        self._may_raid: dict[str, bool] = {}
        self._canal_open: dict[str, str | None] = {}
        self._reach: dict[tuple, dict[str, tuple[str, ...]]] = {}
        self._reach_any: dict[tuple, bool] = {}  # land and sea: whether such a reach is not empty (`_can_reach`)
        self._lists: dict[int, list[Move]] | None = None   # unit id -> its "move"/"bomb" moves
        self._dirty: set[int] = set()                      # ids whose list must be remade
        self._transfers: tuple[list[Move], list[Move]] | None = None   # (loads, unloads)
        self._movable: list[int] | None = None             # `movable_units`, until a move or a change
        self._can_move: set[int] = set()                   # ids of the units with a "move"/"bomb" move (`movable_units`)
        self._unasked: set[int] | None = None              # ids whose `_can_move` must be found again (None: all)
        self._airborne_units: list[Unit] | None = None     # the player's units with the rule `airborne`
        self._raid_units: list[int] | None = None          # `raiding_units`
        self._boardable: list[Unit] | None = None          # `_loadable_transports`
        self._by_space: dict[str, list[Unit]] | None = None  # `_mine_by_space`, moved along by `apply`
        self._laden: list[Unit] | None = None              # the side's units with cargo (`_unloads`)
        self._may_load: set[int] | None = None             # ids of the units that may load (`movable_units`)
        self._land_spots: list[str] | None = None  # land territories air units may land in (`_landing`)
        # those within the player's air units' reach, and the spaces within it (`_near_landing`)
        self._near: tuple[list[str], set[str]] | None = None
        self._stranded: list[int] | None = None    # `stranded_air`, until an air unit or a carrier moves
        self._flown: dict[int, Unit] = {}          # air units flown between land territories since (`_forget_stranded`)
        self._reset_air()
        self._version = state.version

    def _pass(self, units: list[Unit]) -> tuple[list[Unit], list[Unit], list[tuple[UnitRules, set[str]]]]:
        """One pass over the board's units: each unit's rules (`_ur`); (the units the player moves
        as its own, by id; the units of its side; each enemy kind's rules and the spaces its units
        stand in)."""
        lookup = self.rules.unit_rules
        # a few kinds for many units: each kind's rules, and what the pass does with its units
        # (the player moves them; they are enemies: where they stand; they are of the player's
        # side), found once here
        foes: list[tuple[UnitRules, set[str]]] = []
        ur = self._ur = {}
        player, ally, foe = self.player, self._ally, self._foe
        mine: list[Unit] = []
        allied: list[Unit] = []
        # (kinds by owner, then by type: two look-ups of names, whose hashes are kept, cost less than
        # making and hashing a (type, owner) tuple per unit)
        by_owner: dict[str, dict[str, tuple]] = {}
        for u in units:
            owner = u.owner
            of_owner = by_owner.get(owner)
            if of_owner is None:
                of_owner = by_owner[owner] = {}
            found = of_owner.get(u.type)
            if found is None:
                rules = lookup(u.type, owner)
                spaces = None
                if foe.get(owner, True):
                    spaces = set()
                    foes.append((rules, spaces))
                found = of_owner[u.type] = (
                    rules, mine if owner == player or (rules.commanded and ally.get(owner, False)) else None,
                    spaces, allied if ally.get(owner, False) else None)
            rules, to_mine, to_foe, to_allied = found
            ur[u.id] = rules
            if to_mine is not None:
                to_mine.append(u)
            if to_foe is not None:
                to_foe.add(u.space)
            if to_allied is not None:
                to_allied.append(u)
        mine.sort(key=id_of)
        self._my_air = [u.id for u in mine if ur[u.id].domain == "air"]
        return mine, allied, foes

    def _pass_by_kind(self, census: UnitCensus) -> tuple[list[Unit], list[Unit], list[tuple[UnitRules, set[str]]]]:
        """`_pass` made from the game's census of units by kind (kit/unit_census.py): each kind's
        rules asked once, its units' rules given at once where the census does not hold them
        already, the player's and its side's units from the census's lists by owner (in the order
        of their ids, the board's own: the census holds only for such a board), and each enemy
        kind's spaces as the census keeps them."""
        player, ally, foe = self.player, self._ally, self._foe
        given, spaces = census.given, census.spaces
        changes = []
        commanded = []  # the allies' units the player commands
        air = []  # the ids of the air units among the player's
        foes: list[tuple[UnitRules, set[str]]] = []
        kinds = census.kinds
        for (kind, members), rules in zip(kinds.items(), self.rules.kinds_rules(kinds)):
            if given.get(kind) is not rules:
                changes.append((kind, rules))
            owner = kind[1]
            if foe.get(owner, True):
                foes.append((rules, spaces(kind)))
                continue
            if owner != player:
                if not (rules.commanded and ally.get(owner, False)):
                    continue
                commanded.append(members.values())
            if rules.domain == "air":
                air.append(members)
        self._ur = census.give_rules(changes) if changes else census.rules
        mine = census.owned(player)
        if commanded:
            mine = sorted(chain(mine, *commanded), key=id_of)
        self._my_air = sorted(chain.from_iterable(air))
        # (the side's units by owner, each owner's by id: `_allied_units`' readers need no order)
        return mine, list(chain.from_iterable(census.owned(p) for p, allied in ally.items() if allied)), foes

    def _reset_air(self) -> None:
        self._room: dict[str, int] | None = None
        self._held: dict[int, str] | None = None  # air units aboard another power's carrier that holds them
        self._closed: dict[str, int] = {}      # capacity of carriers taking no landings, per zone
        self._later: dict[str, int] | None = None
        self._landing_cache: dict[int, dict[str, tuple[int, str]]] = {}
        self._near_cache: dict[int, dict[str, int]] = {}  # `_landing_steps`
        self._air_reach: dict[tuple, dict[str, tuple[str, ...]]] = {}
        self._air_any: dict[tuple, bool] = {}   # whether such a reach is not empty (`_can_reach`)
        # carrier cost -> space -> whether an air unit of that cost may end a non-combat move there
        # (`_air_walk`: its `_landing_problem` is None)
        self._lands_at: dict[int, dict[str, bool]] = {}
        # (end, movement left, carrier cost, the unit's space) -> `landings` (what it reads of the
        # board stands while the carrier room does: enemy units and control change only by a rebuild)
        self._landings_kept: dict[tuple, dict[str, int | None]] = {}
        # (carrier cost, the unit's space, movement left) -> `landing_destinations` (made of two
        # answers kept here and in `_air_reach`)
        self._landing_spaces: dict[tuple, dict[str, tuple[str, ...]]] = {}
        # (reach key, id of `among`) -> (among, `kept_destinations_among`'s walk), and the reach key ->
        # every path such walks found (`_offered`); cost -> space -> `_nearest_landing`; cost -> the
        # carrier zones it may land in (`_nearest_landing`)
        self._air_among: dict[tuple, tuple[object, dict[str, tuple[str, ...]]]] = {}
        self._air_parts: dict[tuple, dict[str, tuple[str, ...]]] = {}
        self._landing_near: dict[int, dict[str, tuple[int | None, int]]] = {}
        self._carrier_spots: dict[int, frozenset[str]] = {}

    def _rules(self, unit: Unit) -> UnitRules:
        return self._ur[unit.id]

    def _own(self, unit: Unit) -> bool:
        """True for a unit the player moves as its own this phase: its own units, and its allies'
        units whose `commanded` rule says the player commands them."""
        return unit.owner == self.player or (self._ur[unit.id].commanded and self._ally.get(unit.owner, False))

    def commanded_units(self) -> list[int]:
        """Ids of the allies' units the player commands this phase (`UnitRules.commanded`), by id."""
        self._sync()
        return [u.id for u in self._mine if u.owner != self.player]

    def player_units(self) -> list[int]:
        """Ids of every unit the player moves as its own this phase (its own and the allies' units
        it commands), by id: those `movable_units` lists and those without a legal move, whose
        destinations are empty (for a plan that asks every unit's reach anyway)."""
        self._sync()
        return [u.id for u in self._mine]

    def _unit(self, unit_id: int) -> Unit:
        if self._version != self.state.version:  # (`_sync` in line: asked for every unit of every plan)
            self._rebuild()
        unit = self._by_id.get(unit_id)
        if unit is None:
            raise ValueError(f"no unit with id {unit_id} is on the board")
        return unit

    def _blocked(self, unit: Unit, rules: UnitRules) -> str | None:
        """Why a unit cannot make a "move" this phase (None: it may)."""
        if unit.owner != self.player and not self._own(unit):  # (most are the player's own: no call)
            return f"it belongs to {unit.owner}"
        if self.combat and not rules.moves_in_combat:
            return "it moves only in non-combat move"
        flags = unit.flags
        if rules.domain == "land" and self.board.is_sea[unit.space]:
            return "it is aboard a transport and can only unload"
        if flags:
            if flags.get("unloaded"):
                return "it went ashore this turn"
            if flags.get("unloaded_to") and not self.policy.unloaded_transport_moves:
                return f"it unloaded into {flags['unloaded_to']} this turn"
            if self.combat:
                if flags.get("bombing"):
                    return "it is on a bombing raid"
                if flags.get("in_battle"):
                    return "it is in a battle"
            elif rules.domain != "air":
                if flags.get("in_battle"):
                    return "it took part in a battle this turn"
                if flags.get("combat_moved"):
                    return "it moved in combat move"
        if rules.movement - unit.moved <= 0:
            return "it has no movement left"
        if rules.domain == "air" and self.rules.releases_air is not None and self.board.is_sea[unit.space]:
            holder = self._held_aboard().get(unit.id)
            if holder is not None:
                return f"it is aboard a carrier of {holder} that does not let it take off (the rules' releases_air)"
        return None

    def _reach_of(self, unit: Unit, rules: UnitRules) -> dict[str, tuple[str, ...]]:
        """Every space the unit can end a "move" in -> one shortest legal path (cached)."""
        left = rules.movement - unit.moved
        domain = rules.domain
        table, key = self._reach_kept(unit, rules, left)
        found = table.get(key)
        if found is None:
            if domain == "air":
                found = self._air_walk(unit, rules, left)
            else:
                walk = self._land_walk if domain == "land" else self._sea_walk
                found = walk(unit.space, left, rules)
            table[key] = found
        return found

    def _reach_kept(self, unit: Unit, rules: UnitRules, left: int) -> tuple[dict, tuple]:
        """Where a unit's reach is kept (air units' apart: they go when the carrier room changes,
        `_reset_air`) and its key there: what its walk depends on."""
        if rules.domain == "air":
            return self._air_reach, (rules.carrier_cost, unit.space, left)
        if rules.domain == "land":
            return self._reach, ("land", rules.can_blitz, unit.space, left)
        # (a sea walk reads whether the unit passes blocking units and whether it may end among enemies)
        return self._reach, ("sea", rules.passes_blockers, rules.ends_among_enemies, unit.space, left)

    def _offered(self, move: Move) -> bool:
        """Whether `move` is a "move" of one unit along the very path its reach, already worked out
        on this board, gives it (the answer `destinations` gave): such a move is legal, since the
        walks that found the path apply the rules `_check` checks (the agent checks each move of
        its plan, which it made from those answers, and `apply` checks it again)."""
        if move.kind != "move" or move.transport is not None or len(move.units) != 1 or len(move.path) < 2:
            return False
        unit = self._by_id.get(move.units[0])
        if unit is None:
            return False
        rules = self._ur[unit.id]
        table, key = self._reach_kept(unit, rules, rules.movement - unit.moved)
        kept = table.get(key)
        if kept is None and rules.domain == "air":
            kept = self._air_parts.get(key)  # (the walks of `kept_destinations_among`)
        return kept is not None and kept.get(move.path[-1]) == move.path and self._blocked(unit, rules) is None

    def destinations(self, unit_id: int) -> dict[str, tuple[str, ...]]:
        """Every space the unit can end a "move" in this phase -> one shortest legal path (start
        first), in natural order; {} when it cannot move (loads and unloads: `legal_moves`)."""
        unit = self._unit(unit_id)
        rules = self._rules(unit)
        if self._blocked(unit, rules) is not None:
            return {}
        return dict(self._reach_of(unit, rules))

    def kept_destinations(self, unit_id: int) -> dict[str, tuple[str, ...]]:
        """`destinations`' answer as the engine keeps it, not copied: read it, never change it. The
        units whose walk is one (a kind standing together with the same movement left) get the
        same dict, the same object while the engine keeps it (until the board changes), so that a
        plan asking it of every unit works out what it derives from a reach once per dict."""
        unit = self._unit(unit_id)
        rules = self._ur[unit_id]  # (`_rules` in line: the plans ask this thousands of times a game)
        if self._blocked(unit, rules) is not None:
            return {}
        return self._reach_of(unit, rules)

    def kept_destinations_among(self, unit_id: int, among: set[str] | frozenset[str]) -> dict[str, tuple[str, ...]]:
        """`kept_destinations` for a caller that reads it at the spaces of `among` alone: every
        space of `among` the unit can end a "move" in -> the path `kept_destinations` gives, in its
        order; it may hold other spaces too (the whole reach where the engine keeps it). Kept, not
        copied (read it, never change it): the units whose walk is one get the same dict for the
        same `among` object. An air unit's combat walk is then made for `among`'s spaces alone
        (`_air_walk_among`: the plans aim at a few spaces of a reach); a sea unit's walk is not
        made where no space of `among` lies within its movement left ({} then, not kept)."""
        unit = self._unit(unit_id)
        rules = self._ur[unit_id]
        if self._blocked(unit, rules) is not None:
            return {}
        domain = rules.domain
        if domain not in ("air", "sea") or domain == "air" and not self.combat:
            return self._reach_of(unit, rules)
        left = rules.movement - unit.moved
        table, key = self._reach_kept(unit, rules, left)
        found = table.get(key)
        if found is not None:
            return found
        if domain == "sea":
            # a sea walk goes at most `left` of the map's sea steps (through passable zones, as
            # the map's distances count them): where no space of `among` is that near, none is
            # reached, and the walk is not made (the plans' attacks at sea ask every ship of a
            # few zones, most of them beyond its reach)
            steps = self.board.graph.distances(unit.space, "sea").get
            if not any(steps(space, left + 1) <= left for space in among):
                return {}
            return self._reach_of(unit, rules)
        kept = self._air_among.get((key, id(among)))
        if kept is not None and kept[0] is among:
            return kept[1]
        found = self._air_walk_among(unit, rules, left, among)
        self._air_among[(key, id(among))] = (among, found)
        self._air_parts.setdefault(key, {}).update(found)
        return found

    def check(self, move: Move) -> list[str]:
        """Why `move` is illegal, one message per problem; [] when it is legal."""
        version = self.state.version
        if self._version != version:  # (`_sync` in line: asked for every move an agent makes)
            self._rebuild()
        # a move is checked by the agent, by the decision and by `apply` in turn, on the same board:
        # the last answer is kept while the state is unchanged
        last = self._last_check
        if last is not None and last[0] is move and last[1] == version:
            return list(last[2])
        problems = [] if self._offered(move) else self._check(move)
        self._last_check = (move, version, problems)
        return list(problems)

    def _check(self, move: Move) -> list[str]:
        if move.kind not in KINDS:
            return [f"unknown move kind '{move.kind}' (one of {', '.join(KINDS)})"]
        if not move.units:
            return ["a move needs at least one unit"]
        path = move.path
        if len(path) < 2:
            return ["a path names at least two spaces: where the units are and where they end"]
        problems = [f"unknown space '{s}'" for s in dict.fromkeys(path) if s not in self.board.order]
        units: list[Unit] = []
        for uid in move.units:
            unit = self._by_id.get(uid)
            if unit is None:
                problems.append(f"no unit with id {uid} is on the board")
            elif unit in units:
                problems.append(f"{unit_name(unit)} is named twice")
            elif not self._own(unit) and not (move.kind == "load" and self.policy.loads_allied
                                                    and self._ally.get(unit.owner, False)):
                problems.append(f"{unit_name(unit)} belongs to {unit.owner}, not {self.player}")
            else:
                units.append(unit)
        if problems:
            return problems
        adjacent = self.board.adjacent
        problems = [f"{b} is not next to {a}" for a, b in zip(path, path[1:]) if b not in adjacent[a]]
        if problems:
            return problems
        if move.kind in ("load", "unload"):
            return self._check_transfer(move, units)
        if move.kind == AIRBORNE:
            return self._check_airborne(move, units)
        if move.transport is not None:
            return ["only a load or an unload names a transport"]
        if move.kind == "bomb" and not self.combat:
            return ["bombing raids are flown in combat move"]
        if path[-1] == path[0]:
            return [f"the path ends where it starts, in {path[0]}"]
        # carriers moving with air units give them room at the end, less what the allies' air units
        # riding along (`carries_allied_air`) take
        extra = sum(self._rules(u).carrier_capacity for u in units if self._takes_landings(u))
        if extra:
            extra -= sum(self._rules(u).carrier_cost for u in self._riders(units, path[0]))
        group_cost = 0
        for unit in units:
            rules = self._rules(unit)
            name = unit_name(unit)
            reason = self._blocked(unit, rules)
            if reason is not None:
                problems.append(f"{name} cannot move: {reason}")
                continue
            if unit.space != path[0]:
                problems.append(f"{name} is in {unit.space}, not {path[0]}")
                continue
            left = rules.movement - unit.moved
            steps = len(path) - 1
            if steps > left:
                problems.append(f"{name} has {left} movement left but the path to {path[-1]} takes {steps} steps")
                continue
            if move.kind == "bomb":
                problems += self._check_bomb(unit, rules, path[-1],
                                             with_bombing_units=any(self._rules(u).can_bomb for u in units))
            if rules.domain == "land":
                problems += self._check_land(name, rules, path)
            elif rules.domain == "sea":
                problems += self._check_sea(name, rules, path)
            else:
                problems += self._check_air(unit, rules, path, left - steps, extra)
                if unit.space != path[-1]:
                    group_cost += rules.carrier_cost
        end = path[-1]
        if (not problems and not self.combat and self.board.is_sea[end] and group_cost
                and sum(1 for u in units if self._rules(u).domain == "air") > 1):
            room = self._rooms().get(end, 0) + extra
            if room < group_cost:
                problems.append(f"the carriers in {end} have room for {max(room, 0)}, the move needs {group_cost}")
        return problems

    def apply(self, move: Move) -> None:
        """Make a legal move: one `move_units` event (and a capture per territory blitzed
        through). Raises ValueError with the problems when the move is illegal."""
        state = self.state
        before = state.version
        # (the move the agent and the decision have just checked on this board, nothing changed
        # since: its problems are the kept ones, not asked again)
        last = self._last_check
        if last is None or last[0] is not move or last[1] != before or self._version != before:
            last = (move, before, self.check(move))
        if last[2]:
            raise ValueError("; ".join(last[2]))
        by_id = self._by_id
        ids = move.units
        units = [by_id[ids[0]]] if len(ids) == 1 else [by_id[uid] for uid in ids]  # (most moves are of one unit)
        path = move.path
        end = path[-1]
        captures: list[str] = []
        flags: dict = {}
        trail = self._trail  # the spaces each unit entered, for the rules (moved_through)
        if self.combat:
            flags["combat_moved"] = True
        if move.kind == AIRBORNE:
            self._apply_airborne(move, units)
            return
        if move.kind == "load":
            flags["loaded_this_turn"] = True
            state.move_units(move.units, end, 1, path=path, flags=flags, onto=move.transport, trail=trail)
        elif move.kind == "unload":
            flags["unloaded"] = True
            flags["unloaded_from"] = move.transport
            if self.combat and self.is_battle_space(end):
                flags["in_battle"] = True
            state.move_units(move.units, end, 0, path=path, flags=flags, off=move.transport,
                             carrier_flags=self._unload_flags(self._by_id[move.transport], end), trail=trail)
        else:
            ur = self._ur
            land = (ur[units[0].id].domain == "land" if len(units) == 1
                    else any(ur[u.id].domain == "land" for u in units))
            if move.kind == "bomb":
                flags["bombing"] = True
            elif self.combat and (end in self._enemy or (land and self.is_battle_space(end))):
                flags["in_battle"] = True
            if self.combat and land and len(path) > 2:
                captures = [s for s in path[1:-1] if not self._friendly(s)]
            riders = [u.id for u in self._riders(units, path[0])]
            state.move_units(move.units, end, len(path) - 1, path=path, flags=flags or None, trail=trail)
            if not self.combat:
                self._stop_among_blockers(units, end)
            if riders:  # the allies' air units ride along as cargo: no movement of their own, no flags
                state.move_units(riders, end, 0, path=path)
            for space in captures:
                if self.rules.capture is not None:
                    self.rules.capture(state, space, self.player)
                else:
                    state.set_control(space, self.player)
            if not self.combat and land and self._taken_over(end):
                self._take_over(end)
        if captures or state.version != before + 1:
            self._version = None  # control (or more) changed: rebuild everything on the next query
            return
        # Only the player's own units moved: enemy units, control and canals stand; remake the
        # moved units' lists (and every air unit's when carrier room may have changed).
        self._version = state.version
        self._transfers = None
        self._movable = None
        self._follow(units, path[0])
        self._forget_stranded(units, path[0])
        if move.kind in ("load", "unload"):
            self._laden = None  # cargo came aboard or went ashore
            self._may_load = None
        elif self._may_load is not None:
            self._forget_loads(units)
        # the units whose moves may have changed
        player = self.player
        touched = {unit.id for unit in units if unit.owner == player or self._own(unit)}
        for unit in units:
            if unit.cargo:
                touched.update(cid for cid in unit.cargo if self._own(by_id[cid]))
        if move.transport is not None and self._own(by_id[move.transport]):
            touched.add(move.transport)
        if self._room_changed(units, path[0], end):
            # the zones the player's carriers can still reach stay while no carrier moved
            later = self._later if not any(self._ur[u.id].carrier_capacity for u in units) else None
            self._reset_air()
            self._later = later
            touched.update(self._my_air)
        elif move.kind == "bomb":  # a new raid: the escorts may now fly to it
            touched.update(uid for uid in self._my_air if self._ur[uid].can_escort)
        self._dirty |= touched
        if self._unasked is not None:
            self._unasked |= touched

    def _follow(self, units: list[Unit], start: str) -> None:
        """The player's units by space (`_mine_by_space`) after a move of `units` (and their cargo)
        from `start`: those that left it are listed where they stand now."""
        index = self._by_space
        if index is None:
            return
        by_id = self._by_id
        for unit in units:
            for moved in (unit, *(by_id[cid] for cid in unit.cargo)):
                if moved.space != start and self._own(moved):
                    # found by identity: `list.remove` would compare the units before it with the
                    # data class's `__eq__`, field by field
                    there = index[start]
                    i = 0
                    while there[i] is not moved:
                        i += 1
                    del there[i]
                    index.setdefault(moved.space, []).append(moved)

    def _stop_among_blockers(self, units: list[Unit], end: str) -> None:
        """Units that ended a non-combat move among enemy units that stop them (`ends_among_enemies`
        past `blocks` / `blocks_passing`) move no further this turn (TripleA: no movement left)."""
        for unit in units:
            rules = self._rules(unit)
            blocking = self._stops_passers if rules.passes_blockers else self._blocking
            if rules.ends_among_enemies and end in blocking and unit.moved < rules.movement:
                self.state.update_units([unit.id], moved=rules.movement)

    def contested(self) -> list[str]:
        """Spaces where a battle must be fought after combat move, in natural order: where the
        player's units (other than units on a bombing raid) stand with enemy units, and hostile
        territories where its land units stand."""
        self._sync()
        found = set()
        calm = set()  # spaces no unit contests: no enemy units, and at sea or held by the player's side
        enemy, is_sea, ur = self._enemy, self.board.is_sea, self._ur
        for unit in self._mine:
            space = unit.space
            # (each space judged once, but for the hostile territories, contested by a land unit alone)
            if space in found or space in calm or unit.flags.get("bombing"):
                continue
            if space in enemy:
                found.add(space)
            elif is_sea[space] or self._friendly(space):
                calm.add(space)
            elif ur[unit.id].domain == "land":
                found.add(space)
        return sorted(found, key=self.board.order.__getitem__)
