"""Battles asked before their units meet: whether the rules' `stalemate` setting (kit/battle_rules.py:
a battle no side can win is over, asked before each round) would end at once a battle of some
units against one other, wherever on the board they stand now. The heuristic agent asks it of
an attack at sea (attack_planning.py, the part "hittable" of heuristic.py's SPARE): of each of
its air units against each defender (a pair the rules call a stalemate is one the quick
simulation, which lets every unit hit every other, gets wrong), and of the whole attack against
each defender (a defender no unit of the attack can hit is never destroyed: the attack cannot win).
"""

from __future__ import annotations

from ruleslang.base.errors import EvalError
from ruleslang.runtime.kit.battle import Battle
from ruleslang.runtime.kit.battle_rules import BattleRules


class _Meeting(Battle):
    """A battle at a space of units that stand anywhere on the board (an attack not yet moved):
    its sides are its lists' units wherever they are, where a battle's own are those in its space.
    Only asked (its settings, by the rules' built-ins), never fought."""

    def units(self, side: str) -> list:
        """The units of a side: those of its list still on the board, wherever they stand."""
        ids = self.attacking if side == "attacker" else self.defending
        return [u for u in map(self.game.unit_or_none, ids) if u is not None]


class Stalemates:
    """Whether the `stalemate` setting ends at once a battle of some units against one other
    (`at_once`), asked of a game's board in one phase and kept by the units' types and owners: the
    setting reads what the units are (the shipped rules: their tags), not where they stand.
    `rules`: the game's battle rules for the phase, when the caller has them (made at the first
    question otherwise)."""

    def __init__(self, game, rules: BattleRules | None = None):
        self.game = game
        self._rules = rules
        self._kept: dict[tuple, bool | None] = {}

    def at_once(self, space: str, attacker: str, units: list, enemy) -> bool | None:
        """True when a battle at `space` of `units` (of `attacker`) against `enemy` alone is a
        stalemate before its first round (no side can hit the other, by the rules); None when the
        rules have no `stalemate` setting or it cannot be asked of these units (an error)."""
        key = (tuple(sorted((u.type, u.owner) for u in units)), enemy.type, enemy.owner)
        if key in self._kept:
            return self._kept[key]
        found = self._kept[key] = self._ask(space, attacker, units, enemy)
        return found

    def _ask(self, space: str, attacker: str, units: list, enemy) -> bool | None:
        game = self.game
        rules = self._rules
        if rules is None:
            rules = self._rules = BattleRules(game, game.kit.battle_config())
        config = rules.config
        if config is None or not config.has("stalemate"):
            return None
        meeting = _Meeting(game, space, attacker, enemy.owner, attacking=[u.id for u in units],
                           defending=[enemy.id], rules=rules)
        meeting.round = 1
        ctx = config.ctx
        saved = ctx.battle
        ctx.battle = meeting  # (the rules' battle built-ins read the battle set on the context)
        try:
            return rules.stalemate()
        except EvalError:
            return None
        finally:
            ctx.battle = saved
