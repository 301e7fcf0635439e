"""Landings that wait for sea battles, and whether a battle is fought for a territory (the battle
procedure's part for amphibious assaults: kit/battle.py runs it).

A landing the combat move planned from a sea zone where a sea battle is fought waits for that
battle (kit/transport.py): `make_landings` makes it when the attacker won there and the transport
is still afloat, and cancels it otherwise. A sea battle the combat move did not declare (enemy
units came to the zone after it: `late_sea_battles`) calls back the landings already made from
its zone (`recall_landings`), which then wait for it as planned ones do.
"""

from __future__ import annotations

from ruleslang.runtime.kit.battle_rules import BattleRules


def late_sea_battles(game, rules: BattleRules) -> list[str]:
    """Sea zones the combat move left without a battle where the player's units now stand with
    enemy units that came after it (a rule moved them there, such as aircraft sent to defend the
    zone of a landing), in natural order: a sea battle is fought there too."""
    kit = game.kit
    if not kit.placed_at_contest:
        return []
    state, board = game.state, game.board
    if kit.stand_as_at_contest(state):
        return []  # no unit moved, came or went since the combat move ended: none came (no walk over the board)
    player = state.current_player
    kind_of = board.graph.kind_of  # (`board.is_sea` for the spaces units stand in, without a call per unit)
    arrived = {u.space for u in state.units if kind_of[u.space] == "sea" and rules.enemy(u.owner, player)
               and kit.placed_at_contest.get(u.id) != u.space}
    if not arrived:
        return []
    mine = {u.space for u in state.units if (u.owner == player or u.id in kit.commanded) and not u.flags.get("bombing")}
    return sorted((arrived & mine) - set(kit.pending_battles), key=game.space_order)


def recall_landings(game, zones: list[str]) -> None:
    """The landings the combat move made from `zones`, where sea battles are now fought that it
    did not declare (enemy units came after it), wait for those battles as planned landings do:
    their land units go back aboard their transports (`landing_planned`) and go ashore only when
    the attacker wins there (`make_landings`). A territory left with no attacking unit has no
    battle of its own until then."""
    kit, state = game.kit, game.state
    player = state.current_player
    landed: dict[tuple[int, str], list[int]] = {}  # (transport, territory) -> its cargo that landed
    for unit in state.units:
        transport = game.unit_or_none(unit.flags.get("unloaded_from")) if unit.flags.get("unloaded") else None
        if (transport is not None and transport.space in zones and unit.flags.get("combat_moved")
                and (unit.owner == player or unit.id in kit.commanded) and not game.board.is_sea(unit.space)):
            landed.setdefault((transport.id, unit.space), []).append(unit.id)
    for (transport, territory), units in sorted(landed.items(), key=lambda item: (game.space_order(item[0][1]), item[0][0])):
        zone = game.unit_or_none(transport).space
        state.move_units(units, zone, 0, path=[territory, zone], flags={"unloaded": False, "in_battle": False},
                         onto=transport)
        game.log("landing_planned", transport=transport, units=units, zone=zone, to=territory)
        kit.waiting_landings.append((transport, units, zone, territory))
        came = [z for z in kit.landed_from.get(territory, []) if z != zone]
        if came:
            kit.landed_from[territory] = came
        else:
            kit.landed_from.pop(territory, None)
            kit.amphibious.pop(territory, None)
        if territory in kit.pending_battles and not any(
                u.space == territory and (u.owner == player or u.id in kit.commanded) and not u.flags.get("bombing")
                for u in state.units):
            kit.pending_battles.remove(territory)


def make_landings(game, zone: str, rules: BattleRules) -> list[str]:
    """After the sea battle in `zone`: the landings that waited for it are made when the attacker
    won it and the transport is still there (its cargo goes ashore as by an unload; an attack
    becomes a battle to fight), and cancelled otherwise (the cargo stays aboard). Returns the
    territories whose battles the landings add."""
    kit, state = game.kit, game.state
    results = [r for r in game.battle_results if r["space"] == zone and r["attacker"] == state.current_player]
    won = bool(results) and results[-1]["result"] == "attacker"
    battles: list[str] = []
    for transport_id, units, at, territory in kit.waiting_landings:
        if at != zone:
            continue
        transport = game.unit_or_none(transport_id)
        cargo = [] if transport is None or transport.space != zone else [u for u in units if u in transport.cargo]
        if not won or not cargo:
            game.log("landing_cancelled", transport=transport_id, units=units, zone=zone, to=territory,
                     why="the sea battle was not won" if transport is not None else "the transport was sunk")
            continue
        hostile = landing_attacks(game, territory, rules)
        flags = {"combat_moved": True, "unloaded": True, "unloaded_from": transport_id}
        if hostile:
            flags["in_battle"] = True
        state.move_units(cargo, territory, 0, path=[zone, territory], flags=flags, off=transport_id,
                         carrier_flags={"unloaded_to": territory, "unloaded_in": "combat"}, trail="passed_combat")
        game.log("landing", transport=transport_id, units=cargo, zone=zone, to=territory)
        for uid in cargo:
            kit.moved_from[uid] = zone
        if hostile:
            kit.amphibious[territory] = True
            zones = kit.landed_from.setdefault(territory, [])
            if zone not in zones:
                zones.append(zone)
            if territory not in battles:
                battles.append(territory)
    return battles


def takes_land(board, allied, space: str, attacker: str) -> bool:
    """True when a battle `attacker` wins at `space` is fought for the territory: land held by an
    enemy, or by no one (kit/movement.py's reading: a neutral defended by units). `allied(a, b)`
    is the game's alliance test. The battle and the odds chain (runtime/odds/chain.py) both ask
    it, so an estimate takes a territory when the game would."""
    if not board.is_land(space):
        return False
    holder = board.controller(space)
    return holder is None or not allied(holder, attacker)


def landing_attacks(game, territory: str, rules: BattleRules) -> bool:
    """True when land units of the player moving there (a territory: they land from a transport)
    attack: enemy units stand there, or winning there would take it (`takes_land`)."""
    player = game.state.current_player
    if any(u.space == territory and rules.enemy(u.owner, player) for u in game.state.units):
        return True
    return takes_land(game.board, game.allied, territory, player)
