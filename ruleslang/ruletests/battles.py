"""Battles in rule tests: `battle at SPACE by PLAYER [from SEA_ZONE]` and the steps run in them.

A test's battle is set up as the runtime's battle procedure would find it after a combat move:
the attacker's units in the space against its enemies there that fight (the `fights` setting); with `from SEA_ZONE`, an amphibious
assault whose land units came ashore from the attacker's transports in that zone (recorded as the
movement engine records an unload) and whose ships there support it. Running the battle's start
step lets the units it brought into the space join the battle, as in a game.
"""

from __future__ import annotations

from ruleslang.base.errors import EvalError
from ruleslang.lang.eval.statements import run_procedure
from ruleslang.runtime.game import GameServices
from ruleslang.runtime.kit.battle import Battle, aboard
from ruleslang.runtime.kit.battle_rules import BattleRules
from ruleslang.runtime.kit.turn_state import KitState


class BattleHostForTests:
    """A battle host for rule tests: the test's state, casualties chosen cheapest first."""

    def __init__(self, ctx):
        self.__class__ = type("RuleTestGame", (BattleHostForTests, GameServices), {})
        self.ctx, self.compiled, self.state, self.board = ctx, ctx.compiled, ctx.state, ctx.board
        self.configs: dict = {}
        self.kit = KitState(self)
        self._init_services()

    def ask(self, decision, check, fallback):
        return fallback()


def start_battle(ctx, space: str, attacker: str, sea_zone: str | None = None, span=None):
    """The battle of a `battle at` line, in its first round; `ctx.battle` and `ctx.game` are set.
    Who defends is the `defender` setting's answer, as in a game."""
    host = BattleHostForTests(ctx)
    state = ctx.state
    carried = aboard(state, space)  # cargo at sea does not fight, as in a game
    attacking = [u.id for u in state.units if u.space == space and u.owner == attacker and u.id not in carried]
    enemies = [u for u in state.units if u.space == space and not host.allied(u.owner, attacker) and u.id not in carried]
    ctx.game = host  # procedures (and the battle's settings) that read the game find it here
    rules = BattleRules(host, host.kit.battle_config())
    # the enemy units that fight, as in a game (`fights`: an AA gun does not defend)
    defending = [u.id for u in enemies if rules.fights is None or rules.fights(u)]
    battle = Battle(host, space, attacker, None, attacking=attacking, defending=defending, rules=rules)
    battle.round = 1
    if sea_zone is not None:
        _land_from(host, battle, sea_zone, span)
    ctx.battle = battle
    try:
        battle.defender = battle.rules.defender(battle, enemies)
    except EvalError as e:
        raise e.at(span)
    return battle


def _land_from(host, battle, zone: str, span) -> None:
    """Make `battle` an amphibious assault from `zone`: the attacker's ships there support it, and
    its land units in the space came ashore from its transports there, which are filled in id
    order, each unit (by id) in the first with room for it; units that fit in none came overland."""
    board, state = host.board, host.state
    space = battle.space
    if not board.is_land(space) or not board.is_sea(zone) or zone not in board.neighbours(space):
        raise EvalError("E536", f"an amphibious assault on {space} comes from a sea zone bordering it; "
                                f"{zone} is not one", span,
                        hint="sea zones bordering it: " + ", ".join(board.neighbours(space, "sea"))
                        if board.is_land(space) else "an amphibious assault is on a land territory")
    rules = host.unit_rules()
    ships = [u for u in state.units if u.space == zone and u.owner == battle.attacker and host.domain(u) == "sea"]
    battle.amphibious = True
    battle.support = [u.id for u in ships]
    room = {}
    for ship in ships:
        if rules.transport_capacity(ship) > 0:
            aboard = sum(rules.transport_cost(host.unit_or_none(c)) for c in ship.cargo)
            room[ship.id] = rules.transport_capacity(ship) - aboard
    landed: dict[int, list[int]] = {}
    for uid in sorted(battle.attacking):
        unit = host.unit_or_none(uid)
        cost = rules.transport_cost(unit)
        if host.domain(unit) != "land" or cost <= 0:
            continue
        transport = next((t for t, left in room.items() if left >= cost), None)
        if transport is not None:
            room[transport] -= cost
            landed.setdefault(transport, []).append(uid)
    for transport, cargo in landed.items():
        # the flags the movement engine sets on an unload in combat move (carried_by reads them)
        state.update_units(cargo, combat_moved=True, unloaded=True, unloaded_from=transport, in_battle=True)
        state.update_units([transport], unloaded_to=space, unloaded_in="combat")
        battle.came_from.update({uid: zone for uid in cargo})


def run_battle_step(ctx, name: str, span=None) -> None:
    """Run a step in the test's battle; after the battle's start step (the `start` setting of
    `runtime battle`), the units the step brought into the space join the battle, as in a game."""
    battle = ctx.battle
    config = battle.game.kit.battle_config()
    if config is None or name != config.text("start"):
        run_procedure(ctx, name, span=span)
        return
    present = {u.id for u in ctx.state.units if u.space == battle.space}
    run_procedure(ctx, name, span=span)
    battle.join_arrivals(present)
