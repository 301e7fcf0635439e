"""The `move` runtime procedure: combat or non-combat movement through the movement engine.

`runtime move with {kind: "combat", movement: u => ..., domain: u => ..., blitz: u => ..., ...}`
turns the ruleset's settings into the engine's unit rules; the player's agent then gives moves
one at a time (or DONE); each is checked by the engine and by the rules' `constraint on
move(player, units, path)`. After combat moves the runtime notes what the battle phase needs;
after non-combat moves air units with nowhere to land are lost.
"""

from __future__ import annotations

from types import SimpleNamespace

from ruleslang.lang.eval.statements import check_action
from ruleslang.runtime.config import procedure_config
from ruleslang.runtime.decisions import DONE, Decision

MAX_MOVES = 400  # per phase: an agent that never says DONE is stopped here


def unit_rules_of(ctx, config):
    """A function (unit type, owner) -> UnitRules, from the ruleset's move settings."""
    from ruleslang.runtime.kit.movement import UnitRules

    fns = {name: config.unit_fn(name) for name in ("movement", "domain", "blitz", "blocks", "transport_capacity",
                                                   "transport_cost", "carrier_capacity", "carrier_cost", "bombs",
                                                   "combat_moves")}
    cache: dict[tuple[str, str], UnitRules] = {}

    def get(fn, unit, default):
        return fn(unit) if fn is not None else default

    def rules(type_name: str, owner: str) -> UnitRules:
        key = (type_name, owner)
        found = cache.get(key)
        if found is None:
            unit = SimpleNamespace(id=0, type=type_name, owner=owner, space=None, hits=0)
            found = cache[key] = UnitRules(
                movement=get(fns["movement"], unit, 0), domain=get(fns["domain"], unit, "land"),
                can_blitz=get(fns["blitz"], unit, False) is True, blocks=get(fns["blocks"], unit, True) is True,
                transport_capacity=get(fns["transport_capacity"], unit, 0),
                transport_cost=get(fns["transport_cost"], unit, 0),
                carrier_capacity=get(fns["carrier_capacity"], unit, 0),
                carrier_cost=get(fns["carrier_cost"], unit, 0),
                can_bomb=get(fns["bombs"], unit, False) is True,
                moves_in_combat=get(fns["combat_moves"], unit, True) is True)
        return found
    return rules


def _blitz_capture(ctx, game):
    """A territory taken on the move (a blitz) is taken by the rules' capture step, as in battle."""
    def capture(state, space, player):
        from ruleslang.runtime.kit.battle import capture_without_battle

        capture_without_battle(ctx, game, space, player)
    return capture


def run(ctx, proc) -> None:
    from ruleslang.runtime.kit.movement import MovementEngine, MovementRules

    game = ctx.game
    state = game.state
    config = procedure_config(ctx, proc)
    config.new_phase()
    kind = config.text("kind", "combat")
    if kind not in ("combat", "noncombat"):
        from ruleslang.base.errors import EvalError

        raise EvalError("E524", f"a move phase is of kind \"combat\" or \"noncombat\", not {kind!r}", proc.span)
    player = state.current_player
    rules = MovementRules(unit_rules_of(ctx, config), game.allied, capture=_blitz_capture(ctx, game))
    engine = MovementEngine(state, rules, player, kind)
    game.engine = engine
    decision = Decision("move", player, f"{player}: {kind} move", context={"engine": engine, "kind": kind})
    player_value = ctx.player_values[player]
    if kind == "combat":
        game.pending_battles, game.pending_raids, game.raid_units = [], [], {}
        ctx.contested_spaces = []
        game.amphibious, game.moved_from, game.landed_from, game.supported = {}, {}, {}, set()

    def check(answer) -> list[str]:
        if answer is DONE:
            return []
        try:
            reasons = engine.check(answer)
        except (TypeError, ValueError, AttributeError, KeyError):
            return ["a move is a Move(units, path, kind, transport)"]
        if reasons:
            return reasons
        units = tuple(ctx.unit_value(game.unit_or_none(uid)) for uid in answer.units)
        path = tuple(ctx.space_values[s] for s in answer.path)
        return [r.message for r in check_action(ctx, "move", [player_value, units, path])]

    # agents try their candidate moves against the engine and the rules' constraints before
    # answering, so a constrained move is skipped rather than refused
    decision.context["check"] = check

    for _ in range(MAX_MOVES):
        decision.refusals = []
        move = game.ask(decision, check, fallback=lambda: DONE)
        if move is DONE:
            break
        if kind == "combat":
            for uid in move.units:
                # where it entered its last space from: a retreat goes back to an adjacent space
                game.moved_from[uid] = move.path[-2]
            if move.kind == "bomb":
                game.raid_units.setdefault(move.path[-1], []).extend(move.units)
            if move.kind == "unload":
                target, zone = move.path[-1], move.path[-2]
                game.amphibious[target] = True
                # the ships offshore are those in this zone when the battle begins (kit/battle.py)
                zones = game.landed_from.setdefault(target, [])
                if zone not in zones:
                    zones.append(zone)
        engine.apply(move)
    if kind == "combat":
        game.pending_battles = engine.contested()
        game.pending_raids = engine.bombing_raids()
        ctx.contested_spaces = list(game.pending_battles)  # what `contested()` reads
        for space in game.pending_battles:
            game.amphibious.setdefault(space, False)
    else:
        lost = engine.stranded_air()
        if lost:
            game.remove_units(lost, "no place to land")
