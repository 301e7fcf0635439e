"""The battle's built-in functions: what is contested, and the battle being fought.

They read the battle the runtime sets on the evaluation context (`ctx.battle`, `ctx.contested_spaces`).
"""

from __future__ import annotations

from ruleslang.lang import types as T
from ruleslang.base.errors import EvalError
from ruleslang.lang.builtins.spec import SPACES, Builtin, registrar, signature

BUILTINS: dict[str, Builtin] = {}
builtin = registrar(BUILTINS)


def _battle(ctx):
    battle = ctx.battle
    if battle is None:
        raise EvalError("E535", "there is no battle here: this is only known during a battle step")
    return battle


builtin("contested", "contested(): the spaces where battles are to be fought this combat phase")(
    (signature([], SPACES), lambda ctx: ctx.spaces(tuple(ctx.contested_spaces))))
builtin("battle_space", "battle_space(): where the current battle is fought")(
    (signature([], T.SPACE), lambda ctx: ctx.space_values[_battle(ctx).space]))
builtin("attacker", "attacker(): the player attacking in the current battle")(
    (signature([], T.PLAYER), lambda ctx: ctx.player_values[_battle(ctx).attacker]))
builtin("defender", "defender(): the player defending in the current battle (none when the space is empty)")(
    (signature([], T.OptionalType(T.PLAYER)),
     lambda ctx: ctx.player_value(_battle(ctx).defender)))


def _battle_units(ctx, side, tag=None):
    battle = ctx.battle  # (`_battle` in line: asked for every unit a formula looks at)
    if battle is None:
        _battle(ctx)
    if side not in ("attacker", "defender"):
        raise EvalError("E506", f"a battle side is \"attacker\" or \"defender\", not {side!r}")
    if tag is not None:
        # asked of the battle, which can then tell what was read (the exact odds' watch: only these units)
        found = battle.tagged_units(side, tag.name)
        return tuple(map(ctx.unit_value, found)) if found else ()
    # a battle that keeps its sides' values (kit/battle.py `Battle.unit_values`), asked of its
    # class: a view of the battle (the exact odds' watch) answers every other name of its own
    kept = getattr(type(battle), "unit_values", None)
    if kept is not None:
        return kept(battle, side, ctx)
    return tuple(ctx.unit_value(u) for u in battle.units(side))


builtin("battle_units", "battle_units(\"attacker\" | \"defender\", tag: g): the units still fighting on that "
        "side (with tag g)", kwargs=("tag",))(
    (signature([T.TEXT], T.ListType(T.UNIT), kw={"tag": T.TAG}), _battle_units))
builtin("battle_round", "battle_round(): the round of the current battle, from 1")(
    (signature([], T.INT), lambda ctx: _battle(ctx).round))
builtin("is_amphibious", "is_amphibious(): true when the current battle is an amphibious assault")(
    (signature([], T.BOOL), lambda ctx: bool(_battle(ctx).amphibious)))
builtin("support_units", "support_units(): the attacker's ships offshore of an amphibious assault (they may bombard)")(
    (signature([], T.ListType(T.UNIT)), lambda ctx: tuple(ctx.unit_value(u) for u in _battle(ctx).support_units())))
builtin("retreat_options", "retreat_options(): where the attackers may retreat to")(
    (signature([], SPACES), lambda ctx: ctx.spaces(tuple(_battle(ctx).retreat_options()))))
