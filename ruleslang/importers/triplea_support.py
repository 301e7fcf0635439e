"""TripleA's support attachments (`unitSupportAttachment`), translated into the generated ruleset.

A support attachment is attached to the supporting unit type and says which unit types it
supports (`unitType`), by how much (`bonus`), how many units each supporter supports
(`number`), when (`side`: offence, defence), what it adds (`dice`: strength, the value a die
hits at, or roll, the dice a unit rolls), for whose units (`players`: the owners of the
supporting units) and in which group (`bonusType`: a unit gets at most one support of a group).

The importer overrides `supports_of(side)` of `triplea/battle@1`: for each attachment, the units
of a side it supports in the battle being fought (the supported units in battle order, up to
`number` for each supporting unit of the side, less those an earlier attachment of the same group
supports), then each unit's [strength, dice] summed over the attachments that support it; the
battle adds them to the unit's fire. Support of
enemy units (`faction` enemy) and support that improved artillery gives (`impArtTech`) are
reported and left out.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from ruleslang.base.safexml import XmlElement
from ruleslang.importers.triplea_names import quote

Note = Callable[[str, str, str, "XmlElement | None"], None]


@dataclass(frozen=True)
class Support:
    """One support attachment, as the battle ruleset plays it."""

    name: str
    giver: str             # ruleslang unit type name
    takers: tuple[str, ...]
    bonus: int
    number: int
    offence: bool
    defence: bool
    strength: bool
    rolls: bool
    kind: str
    players: tuple[str, ...]


def read_supports(attachments: list[XmlElement], unit_name: Callable[[str], str], units: set[str],
                  players: set[str], note: Note) -> list[Support]:
    """The support attachments the battle ruleset can play (the others reported by `note`)."""
    out = []
    for attachment in attachments:
        name, giver = attachment.attrs.get("name", ""), attachment.attrs.get("attachTo", "")
        options = {o.attrs.get("name", ""): (o.attrs.get("value", ""), o) for o in attachment.all("option")}
        value = lambda key, default="": options.get(key, (default,))[0]  # noqa: E731

        def skip(why: str) -> None:
            note("battle attachment", "UnitSupportAttachment", f"'{name}' attached to '{giver}': {why}; not played",
                 attachment)
        takers = [t for t in value("unitType").split(":") if t]
        sides, dice, faction = set(value("side").split(":")), set(value("dice").split(":")), value("faction", "allied")
        unknown = [t for t in [giver, *takers] if t not in units]
        owners = [p for p in value("players").split(":") if p]
        if unknown:
            skip(f"the unknown unit type '{unknown[0]}'")
        elif faction != "allied":
            skip(f"support of {faction} units (faction '{faction}')")
        elif value("impArtTech") == "true":
            skip("support that the improved artillery technology gives (impArtTech)")
        elif not takers or not {"strength", "roll"} & dice or not {"offence", "defence"} & sides:
            skip("no unit type, side or dice it supports")
        elif any(p not in players for p in owners):
            skip(f"the unknown player '{next(p for p in owners if p not in players)}'")
        elif not value("bonus").lstrip("-").isdigit() or not value("number", "0").isdigit():
            skip(f"the bonus '{value('bonus')}' or number '{value('number')}' is not a whole number")
        else:
            out.append(Support(name, unit_name(giver), tuple(unit_name(t) for t in takers), int(value("bonus")),
                               int(value("number", "0")), "offence" in sides, "defence" in sides,
                               "strength" in dice, "roll" in dice, value("bonusType") or name, tuple(owners)))
    return out


def support_lines(supports: list[Support]) -> list[str]:
    """The override of the battle ruleset's `supports_of(side)`: for each rule, in the file's order,
    the units of the side it supports (`got_N`: in battle order, `number` for each supporting unit
    of the side's players, less those an earlier rule of its bonus type supports); then each unit's
    [strength, dice] summed over the rules that support it."""
    if not supports:
        return []
    lines = ["", "# TripleA's support attachments (unitSupportAttachment), rule by rule: whom each supports in the",
             "# battle being fought (triplea/battle@1 adds the strength and dice to their fire).",
             "override formula supports_of(side: text) -> list of list of int:",
             "    let everyone = battle_units(side)"]
    for i, s in enumerate(supports, 1):
        owned = (" and v.owner in {" + ", ".join(f"player({quote(p)})" for p in s.players) + "}") if s.players else ""
        sides = [] if s.offence and s.defence else ['side == "attacker"' if s.offence else 'side == "defender"']
        counted = f"count(v for v in everyone where v.type == {s.giver}{owned})"
        given = f"if {sides[0]} then {counted} else 0" if sides else counted
        earlier = "".join(f" and not (v in got_{j})" for j, o in enumerate(supports[:i - 1], 1) if o.kind == s.kind)
        takers = " or ".join(f"v.type == {t}" for t in s.takers)
        lines += [f"    # {quote(s.name)}: {s.giver} gives {s.bonus:+d} "
                  f"{'/'.join(w for w, on in (('strength', s.strength), ('dice', s.rolls)) if on)} to "
                  f"{s.number} of {', '.join(s.takers)} ({'/'.join(w for w, on in (('attacking', s.offence), ('defending', s.defence)) if on)}; "
                  f"bonus type {quote(s.kind)})",
                  f"    let given_{i} = {given}",
                  # no supporting unit here: the list of whom it might support is not worked out
                  f"    let takers_{i} = [v for v in everyone where given_{i} > 0 and ({takers}){earlier}]",
                  f"    let got_{i} = [takers_{i}[k - 1] for k in 1..min(count(takers_{i}), given_{i} * {s.number})]"]
    parts = []
    for wanted in ("strength", "rolls"):
        terms = [f"(if u in got_{i} then {s.bonus} else 0)" for i, s in enumerate(supports, 1) if getattr(s, wanted)]
        parts.append(" + ".join(terms) if terms else "0")
    lines.append(f"    [[{parts[0]}, {parts[1]}] for u in everyone]")
    return lines
