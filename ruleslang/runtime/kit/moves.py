"""The `move` runtime procedure: combat or non-combat movement through the movement engine.

`runtime move with {kind: "combat", movement: u => ..., domain: u => ..., blitz: u => ..., ...}`
turns the ruleset's settings into the engine's unit rules, its policy and its landing condition,
read once per phase (docs/runtime.md "### runtime move"); the player's agent then gives moves
one at a time (or DONE); each is checked by the engine and by the rules' `constraint on
move(player, units, path)`. After combat moves the runtime notes what the battle phase needs;
after non-combat moves air units with nowhere to land are lost.
"""

from __future__ import annotations

from types import SimpleNamespace

from ruleslang.base.errors import EvalError
from ruleslang.lang.eval.statements import check_action
from ruleslang.lang.values import Record
from ruleslang.runtime.config import procedure_config
from ruleslang.runtime.decisions import DONE, Decision
from ruleslang.runtime.kit.battle import capture_without_battle, take_leftovers
from ruleslang.runtime.kit.movement import MovementEngine, MovementRules, UnitRules
from ruleslang.runtime.kit.movement_rules import CANALS, MovePolicy

MAX_MOVES = 400  # per phase: an agent that never says DONE is stopped here


_UNIT_SETTINGS = ("movement", "domain", "blitz", "blocks", "transport_capacity", "transport_cost", "carrier_capacity",
                  "carrier_cost", "bombs", "combat_moves", "passes_blockers", "stops_movement", "blocks_unload",
                  "blocks_passing", "escorts", "commands", "airborne", "air_lift", "ends_among_enemies",
                  "blocks_ending")


def unit_rules_of(ctx, config, same=None):
    """A function (unit type, owner) -> UnitRules, from the ruleset's move settings; kept across
    move phases while what the settings read is unchanged (`ProcedureConfig.lasting`: they read
    technologies and other counters, which change mid-game). `same(rules)`: the one object for
    rules equal to these (`UnitCensus.same_rules`: the census keeps each unit's rules from one
    phase to the next while they are the same object)."""
    present = [name for name in _UNIT_SETTINGS if config.has(name)]
    cache: dict[tuple[str, str], UnitRules] = {}  # this phase's
    kept = config.kept("unit_rules")  # across phases: answers that read only counters, while those are unchanged

    def answers(type_name: str, owner: str):
        def compute(reader) -> UnitRules:
            unit = SimpleNamespace(id=0, type=type_name, owner=owner, space=None, hits=0)
            given = {name: config.unit_answer(name, unit, reader) for name in present}
            return UnitRules(
                movement=given.get("movement", 0), domain=given.get("domain", "land"),
                can_blitz=given.get("blitz", False) is True, blocks=given.get("blocks", True) is True,
                transport_capacity=given.get("transport_capacity", 0),
                transport_cost=given.get("transport_cost", 0),
                carrier_capacity=given.get("carrier_capacity", 0),
                carrier_cost=given.get("carrier_cost", 0),
                can_bomb=given.get("bombs", False) is True,
                moves_in_combat=given.get("combat_moves", True) is True,
                passes_blockers=given.get("passes_blockers", False) is True,
                stops_movement=given.get("stops_movement", True) is True,
                blocks_unload=given.get("blocks_unload", True) is True,
                blocks_passing=given.get("blocks_passing", False) is True,
                can_escort=given.get("escorts", False) is True,
                commanded=given.get("commands", False) is True,
                airborne=given.get("airborne", False) is True, air_lift=given.get("air_lift", 0),
                ends_among_enemies=given.get("ends_among_enemies", False) is True,
                blocks_ending=given.get("blocks_ending", True) is True)
        return config.lasting(("unit_rules", type_name, owner), compute)

    def rules(type_name: str, owner: str) -> UnitRules:
        key = (type_name, owner)
        found = kept.get(key)
        if found is None:
            found = cache.get(key)
            if found is None:
                found = answers(type_name, owner)
                if same is not None:
                    found = same(found)
                if config.is_lasting(("unit_rules", type_name, owner)):
                    kept[key] = found
                else:
                    cache[key] = found
        return found
    return rules


_POLICY_SETTINGS = ("canals", "unloaded_transport_moves", "unloaded_transport_loads", "loads_allied",
                    "loads_onto_allied", "later_carriers", "carries_allied_air", "airborne_range", "airborne_together")


def kept_move_policy(config, span):
    """`move_policy_of`'s policy, kept across the procedure's phases while every setting it read is
    a lasting answer (`ProcedureConfig.is_lasting`: most are constants; the table is emptied when
    one is dropped): a game makes about a hundred movement engines, each asking the same policy."""
    kept = config.kept("move_policy")
    policy = kept.get("policy")
    if policy is None:
        policy = move_policy_of(config, span)
        if all(config.is_lasting(("value", name)) for name in _POLICY_SETTINGS if config.has(name)):
            kept["policy"] = policy
    return policy


def move_policy_of(config, span):
    """The phase's `MovePolicy` from the ruleset's move settings (read once per phase, and kept
    across phases while what they read is unchanged: `ProcedureConfig.kept_value`); a `canals`
    value the engine does not know is refused (E524) rather than played differently."""
    value = config.kept_value
    canals = value("canals", "move")
    if canals not in CANALS:
        raise EvalError("E524", f"the move setting canals is \"move\" (control at the start of the move) or "
                                f"\"turn\" (at the start of the turn), not {canals!r}", span)
    return MovePolicy(unloaded_transport_moves=value("unloaded_transport_moves", False) is True,
                      unloaded_transport_loads=value("unloaded_transport_loads", False) is True,
                      canals=canals, loads_allied=value("loads_allied", False) is True,
                      loads_onto_allied=value("loads_onto_allied", False) is True,
                      later_carriers=value("later_carriers", False) is True,
                      carries_allied_air=value("carries_allied_air", False) is True,
                      airborne_range=value("airborne_range", 0),
                      airborne_together=value("airborne_together", False) is True)


def space_condition(config, name: str):
    """A `t => bool` setting (`landing`, `raid_target`, `airborne_to`, `taken_over`: asked with the
    mover as `current_player()`) as a function (space name, player name) -> bool, or None (the
    engine's default) when the ruleset does not set it."""
    fn = config.space_fn(name)
    if fn is None:
        return None
    return lambda space, player: fn(space) is True


def airborne_from_of(config):
    """The rules' `airborne_from` (`t => int`: how many land units may take off from a territory
    this turn, kit/airborne.py) as a function (space name, player name) -> int, or None."""
    launch = config.space_fn("airborne_from")
    return (lambda space, player: launch(space)) if launch is not None else None


def takes_landings_of(config, name: str = "takes_landings"):
    """The rules' `takes_landings` condition `u => ...` on a carrier (or another carrier setting
    `name`: `releases_air`), as a function of a board unit (cached per type, owner and hits taken:
    a carrier's damage may change it), or None (every carrier does) when the ruleset does not set it."""
    if not config.has(name):
        return None
    ctx = config.ctx
    cache: dict[tuple, bool] = {}

    def takes(unit) -> bool:
        key = (unit.type, unit.owner, unit.hits)
        if key not in cache:
            cache[key] = config.unit_answer(name, unit, ctx) is True
        return cache[key]
    return takes


def at_war_of(config):
    """The rules' `at_war` condition `p => ...` (asked with the mover as `current_player()`) as a
    function (mover, player) -> bool, or None (every player not on the mover's side is an enemy)
    when the ruleset does not set it."""
    fn = config.value_fn("at_war")
    if fn is None:
        return None
    players = config.ctx.player_values
    return lambda mover, other: fn(players[other]) is True


def movement_rules_of(ctx, config, span, allied, capture=None, same=None):
    """The engine's `MovementRules` for one move phase, from its settings (read once);
    `allied(a, b)` tells whether two players are on the same side; `same`: as `unit_rules_of`'s."""
    rules = unit_rules_of(ctx, config, same)
    return MovementRules(rules, allied, capture=capture, policy=kept_move_policy(config, span),
                         landing=space_condition(config, "landing"),
                         raid_target=space_condition(config, "raid_target"),
                         takes_landings=takes_landings_of(config), airborne_from=airborne_from_of(config),
                         airborne_to=space_condition(config, "airborne_to"),
                         taken_over=space_condition(config, "taken_over"), at_war=at_war_of(config),
                         releases_air=takes_landings_of(config, "releases_air"),
                         known=config.kept("unit_rules"))  # the kinds' rules kept from earlier phases


def _blitz_capture(ctx, game):
    """A territory taken on the move (a blitz) is taken by the rules' capture step, as in battle;
    enemy units there that did not stop the blitz (`stops_movement` false) are taken with it as a
    battle takes the units left in a conquered territory: kept by the taker when the battle's
    `captured` setting says so, removed otherwise."""
    def capture(state, space, player):
        capture_without_battle(ctx, game, space, player)
        config = game.kit.battle_config()
        take_leftovers(game, space, player, config.predicate("captured") if config is not None else None)
    return capture


def _judge_landings(ctx, game, config) -> None:
    """The landings planned in this combat move (waiting for the sea battle in their zone), judged
    by the `landing_holds` setting now that the combat move is over: one it refuses is cancelled
    (`landing_cancelled`; its cargo stays aboard and its transport stays bound to it, as after a
    sea battle not won)."""
    holds = config.value_fn("landing_holds")
    kit = game.kit
    if holds is None or not kit.waiting_landings:
        return
    kept = []
    for landing in kit.waiting_landings:
        transport, units, zone, territory = landing
        planned = Record([("zone", ctx.space_values[zone]), ("to", ctx.space_values[territory]),
                          ("units", tuple(ctx.unit_value(game.unit_or_none(u)) for u in units
                                          if game.unit_or_none(u) is not None))])
        if holds(planned) is True:
            kept.append(landing)
        else:
            game.log("landing_cancelled", transport=transport, units=units, zone=zone, to=territory,
                     why="the rules' landing_holds refuses it when the combat move ends")
    kit.waiting_landings = kept


def run(ctx, proc) -> None:
    game = ctx.game
    kit = game.kit
    state = game.state
    config = procedure_config(ctx, proc)
    config.new_phase()
    kind = config.text("kind", "combat")
    if kind not in ("combat", "noncombat"):
        raise EvalError("E524", f"a move phase is of kind \"combat\" or \"noncombat\", not {kind!r}", proc.span)
    player = state.current_player
    census = kit.unit_census()
    rules = movement_rules_of(ctx, config, proc.span, game.allied, capture=_blitz_capture(ctx, game),
                              same=census.same_rules)
    engine = MovementEngine(state, rules, player, kind, census=census)
    decision = Decision("move", player, f"{player}: {kind} move", context={"engine": engine, "kind": kind})
    player_value = ctx.player_values[player]
    if kind == "combat":
        kit.new_combat_move()
        ctx.contested_spaces = []

    # the agent checks its move, then the decision checks the answer: on the same board, the
    # refusals of constraints that only read are those of the first check (`Procedures.repeatable`)
    repeatable = ctx.procedures.repeatable("move") and ctx.procedures.repeatable("bomb")
    last: list = [None, None, None]  # the answer, the state's version, the reasons

    def check(answer) -> list[str]:
        if answer is DONE:
            return []
        if repeatable and last[0] is answer and last[1] == state.version:
            return list(last[2])
        try:
            reasons = engine.check(answer)
        except (TypeError, ValueError, AttributeError, KeyError):
            return ["a move is a Move(units, path, kind, transport)"]
        if not reasons and guarded:
            reasons = constraints(answer)
        last[:] = [answer, state.version, reasons]
        return list(reasons)

    # the actions a move is checked as that some constraint guards: with none (many rulesets guard
    # no move), a move's units and path are not made into values only to be asked of no constraint
    guarded = {action for action in ("move", "bomb") if ctx.procedures.constraints_on(action)}

    def constraints(answer) -> list[str]:
        """The rules' constraints' refusals of a move the engine would accept (the engine is not
        asked: a planned move may need others made first, e.g. a load before its unload)."""
        if "move" not in guarded and (answer.kind != "bomb" or "bomb" not in guarded):
            return []
        units = tuple(ctx.unit_value(game.unit_or_none(uid)) for uid in answer.units)
        path = tuple(ctx.space_values[s] for s in answer.path)
        refusals = check_action(ctx, "move", [player_value, units, path])
        if answer.kind == "bomb":  # a raid is a move, and a bombing raid besides
            refusals += check_action(ctx, "bomb", [player_value, units, path])
        return [r.message for r in refusals]

    # agents try their candidate moves against the engine and the rules' constraints before
    # answering, so a constrained move is skipped rather than refused
    decision.context["check"] = check
    decision.context["constraints"] = constraints

    def done():
        return DONE

    for _ in range(MAX_MOVES):
        decision.refusals = []
        move = game.ask(decision, check, fallback=done)
        if move is DONE:
            break
        if kind == "combat" and engine.waits_for_battle(move):
            # the landing is made after the sea battle in its zone, if the attacker wins it (kit/battle.py)
            engine.plan_landing(move)
            kit.waiting_landings.append((move.transport, list(move.units), move.path[0], move.path[1]))
            game.log("landing_planned", transport=move.transport, units=list(move.units), zone=move.path[0],
                     to=move.path[1])
            continue
        if kind == "combat":
            for uid in move.units:
                # where it entered its last space from: a retreat goes back to an adjacent space
                # (not for units flown in: they go with the others' retreat, as aircraft do)
                if move.kind != "airborne":
                    kit.moved_from[uid] = move.path[-2]
            if move.kind == "bomb":
                kit.raid_units.setdefault(move.path[-1], []).extend(move.units)
            if move.kind == "unload":
                target, zone = move.path[-1], move.path[-2]
                kit.amphibious[target] = True
                # the ships offshore are those in this zone when the battle begins (kit/battle.py)
                zones = kit.landed_from.setdefault(target, [])
                if zone not in zones:
                    zones.append(zone)
        engine.apply(move)
    if kind == "combat":
        _judge_landings(ctx, game, config)
        # the allies' units the player commanded (the `commands` setting) fight its battles with its own
        kit.commanded = set(engine.commanded_units())
        kit.pending_battles = engine.contested()
        kit.note_contest(game.state)
        kit.pending_raids = engine.bombing_raids()
        ctx.contested_spaces = list(kit.pending_battles)  # what `contested()` reads
        for space in kit.pending_battles:
            kit.amphibious.setdefault(space, False)
    else:
        lost = engine.stranded_air()
        if lost:
            game.remove_units(lost, "no place to land")
