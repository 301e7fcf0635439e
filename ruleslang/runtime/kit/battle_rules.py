"""The battle settings of a composition (`BattleRules`): who fights and takes a territory, who
defends and who chooses casualties, whether and where the attacker may retreat and which units may
withdraw on their own, and when a battle no side can win is over; each a setting of the
`runtime battle` procedure (defaults in docs/runtime.md, "Kit settings"), asked by the runtime's
battles (kit/battle.py), the exact odds and the agents alike."""

from __future__ import annotations

from ruleslang.base.errors import EvalError
from ruleslang.runtime.config import ProcedureConfig


class BattleRules:
    """The battle policies of `runtime battle with {...}` as the battle reads them; a setting the
    ruleset leaves out has the runtime's default (each documented in docs/runtime.md):

        fights       u => bool     which enemy units in the space fight (default: all)
        captured     u => bool     which enemy units that did not fight change hands with the
                                   territory (default: none; the others are destroyed)
        captures     u => bool     which attacking units take a territory when their side wins
                                   (default: those whose move `domain` is "land")
        defender     t => player?  who defends the space (and so is `defender()`, who chooses the
                                   casualties the rules give it); default: `default_defender`
        retreats     bool          whether the attacker may retreat from this battle, evaluated in
                                   it (default: not after an amphibious landing)
        retreat_to   t => bool     which of the spaces the attacking land or sea units moved in
                                   from they may retreat to (default: a sea zone, or a territory
                                   the attacker's side holds)
        casualties_by u => player? who chooses the casualties among the units of one side: the
                                   player a step names (`hit N of UNITS by PLAYER`) decides how many
                                   of the hits fall on the units of each player this names, which
                                   that player then chooses among its own (default: PLAYER chooses all)
        withdraws    u => bool     which attacking units may leave the battle on their own where
                                   they stand (a retreat to the battle's own space), when the
                                   others may not retreat or every unit may (default: none)
        stays        u => bool     which attacking units do not retreat with the others: a
                                   retreat to another space moves the rest, and the battle goes
                                   on with these (asked of each unit when the retreat is offered
                                   and made; default: none, every attacking unit retreats)
        stalemate    bool          asked before each round: true ends the battle, the defender
                                   holding (no side can hit the other); default: only the
                                   runtime's guard of MAX_ROUNDS rounds (kit/battle.py) ends such a battle
        fought       t => bool     asked of each space the combat move left a battle in, as the
                                   battle phase comes to it: false leaves it unfought, its units
                                   sharing the space (a landing waiting for it is cancelled);
                                   default: every one is fought
        at_war       p => bool     asked with the attacker as `current_player()`: whether the
                                   units of player p, not on its side, are its enemies; units of
                                   a power at peace with it neither fight nor make a battle
                                   (default: every player not on its side)

    Settings on units are cached per unit type and owner for a phase (`KitState.battle_config`);
    the others are evaluated each time they are asked, in the battle (`attacker()`,
    `is_amphibious()`, ... answer them). The settings, and the `retreat_to` default, read the board
    through the settings' context (`config.ctx`): the exact chain hands them its step watch while a
    step runs (runtime/odds/steps.py), which notes what they read, so that a round transition
    shared between chains is checked against it (runtime/odds/shared.py). `stays` alone is asked
    with the game's context (docs/performance.md, "Session 14: what the battle settings read").
    """

    def __init__(self, game, config: ProcedureConfig | None):
        self.game = game
        self.config = config
        self.fights = config.predicate("fights") if config is not None else None
        self.captured = config.predicate("captured") if config is not None else None
        self._captures = config.predicate("captures") if config is not None else None
        self._defender = config.space_fn("defender") if config is not None else None
        self._retreat_to = config.space_fn("retreat_to") if config is not None else None
        self._retreats = config is not None and config.has("retreats")
        self._stalemate = config is not None and config.has("stalemate")
        self.withdraws = config.predicate("withdraws") if config is not None else None
        self.casualties_by = config.unit_fn("casualties_by") if config is not None else None
        self.stays_given = config is not None and config.has("stays")
        self._fought = config.space_fn("fought") if config is not None else None
        self._at_war = config.value_fn("at_war") if config is not None else None
        self._war_cache: dict[tuple[str, str], bool] = {}

    def fought(self, space: str) -> bool:
        """True when the battle the combat move left in `space` is fought (the `fought` setting,
        asked now, with the attacker as the current player)."""
        return self._fought is None or self._fought(space) is True

    def enemy(self, owner: str, attacker: str) -> bool:
        """True when units of `owner` are enemies of `attacker`: not on its side, and at war with
        it by the `at_war` setting (asked with the attacker as the current player; kept for the
        phase: a war is declared between turns)."""
        if self.game.allied(owner, attacker):
            return False
        if self._at_war is None:
            return True
        key = (owner, attacker)
        found = self._war_cache.get(key)
        if found is None:
            found = self._war_cache[key] = self._at_war(self.game.ctx.player_values[owner]) is True
        return found

    def enemies_at(self, space: str, attacker: str, units=None) -> list:
        """The units at `space` (or of `units`) that would defend it against `attacker`: the
        defence the exact odds and the agents' estimates count before the attack is made. At sea,
        its enemies (`enemy`, with `attacker` as the current player while the `at_war` setting is
        asked, as in its own battle): a power at peace sharing the zone is left out, as the battle
        leaves it out, since sailing in makes no war. On land, every unit not on its side: taking
        a territory from its holder is what the rules make war of (or refuse), so the war the
        board shows before the move does not say who will fight."""
        game = self.game
        # the index's own list (not a copy: only read here), each owner asked once (`owners_fighting`)
        pool = game.board.units_in(space) if units is None else units
        if game.board.is_land(space):
            return land_enemies(game, pool, attacker)
        return owners_fighting(pool, lambda owner: self._at_war_now(owner, attacker))

    def _at_war_now(self, owner: str, attacker: str) -> bool:
        """`enemy`, asked with `attacker` as the current player (as in its own battle)."""
        state = self.game.state
        current = state.current_player
        state.current_player = attacker
        try:
            return self.enemy(owner, attacker)
        finally:
            state.current_player = current

    def stays(self, unit) -> bool:
        """True when `unit` fights on while the other attackers retreat (the `stays` setting,
        asked now of this unit: it may read how the unit came, e.g. `carried_by(u)`)."""
        return self.stays_given and self.config.unit_answer("stays", unit, self.game.ctx) is True

    def captures(self, unit) -> bool:
        """True when `unit`, on the winning attacking side, takes the territory."""
        if self._captures is not None:
            return self._captures(unit)
        return self.game.domain(unit) == "land"

    def defender(self, battle, enemies: list) -> str | None:
        """The player defending `battle` (its enemy units there: `enemies`), by the `defender` setting."""
        if self._defender is None:
            return default_defender(self.game, battle.space, battle.attacker, enemies)
        chosen = self._defender(battle.space)
        name = getattr(chosen, "name", None)
        if name is not None and self.game.allied(name, battle.attacker):
            raise EvalError("E544", f"the battle's defender setting gives {name} to defend {battle.space} against "
                                    f"{battle.attacker}, who is on its side",
                            self.config.fields["defender"].span,
                            hint="the defender of a battle is an enemy of the attacker, or none")
        return name

    def may_retreat(self, battle) -> bool:
        """True when the attacker may retreat from `battle` now (the `retreats` setting)."""
        if not self._retreats:
            return not battle.amphibious
        return self.config.value("retreats") is True

    def stalemate(self) -> bool:
        """True when the `stalemate` setting, asked in the battle before a round, ends it."""
        return self._stalemate and self.config.value("stalemate") is True

    def retreat_to(self, battle, space: str) -> bool:
        """True when the attackers of `battle` may retreat to `space`, one they moved in from."""
        if self._retreat_to is not None:
            return self._retreat_to(space) is True
        # read where the settings read (the exact chain's step watch notes who holds it), not the game's own board
        board = (self.config.ctx if self.config is not None else self.game).board
        if board.is_sea(space):
            return True
        return self.game.allied(board.controller(space), battle.attacker)


def default_defender(game, space: str, attacker: str, enemies: list) -> str | None:
    """Who defends when the ruleset does not say: the space's controller when it is an enemy of
    the attacker, otherwise the enemy with the most units there (the first in the turn order of
    those with as many); none when no enemy is there."""
    controller = game.board.controller(space)
    if controller is not None and not game.allied(controller, attacker):
        return controller
    counts: dict[str, int] = {}
    for u in enemies:
        counts[u.owner] = counts.get(u.owner, 0) + 1
    if not counts:
        return None
    return sorted(counts, key=lambda p: (-counts[p], game.turn_position(p)))[0]


def land_enemies(game, pool, attacker: str) -> list:
    """The units of `pool` that defend a land territory against `attacker` (`BattleRules.enemies_at`:
    every unit not on its side; no battle setting is asked), in their order."""
    allied = game.allied
    return owners_fighting(pool, lambda owner: not allied(owner, attacker))


def owners_fighting(pool, fights) -> list:
    """The units of `pool` whose owner `fights(owner)` is true of, in their order, each owner asked
    once (a space holds the units of one or two owners: agents ask hundreds of spaces a game)."""
    answers: dict = {}
    out = []
    for u in pool:
        owner = u.owner
        found = answers.get(owner)
        if found is None:
            found = answers[owner] = fights(owner)
        if found:
            out.append(u)
    return out
