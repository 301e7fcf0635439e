"""TripleA's victory conditions (its EndRoundDelegate), translated into a hook of the generated
ruleset that judges the game at the end of each round.

TripleA reads them from game properties: with "Total Victory", "Honorable Surrender" or
"Projection of Power" on, an alliance holding at least "ALLIANCE Total Victory VCs" (resp.
"... Honorable Victory VCs", "... Projection of Power VCs") victory cities wins (every victory city
of the map when the property does not say); with "Economic Victory" on, an alliance whose
territories produce at least "ALLIANCE Economic Victory" PUs together (their production values,
TripleA's count, not the money in hand) wins. Victory triggers (`victory` of a
TriggerAttachment, with "Triggered Victory" on) are translated with the other triggers
(triplea_triggers.py). A side here is the map's: a player's first alliance.
"""

from __future__ import annotations

import re

from ruleslang.importers.triplea_names import quote

# property that turns a condition on -> (the property giving an alliance's victory cities, what it is called)
VICTORY_CITY_RULES = {
    "Total Victory": ("Total Victory VCs", "total victory"),
    "Honorable Surrender": ("Honorable Victory VCs", "honorable surrender"),
    "Projection of Power": ("Projection of Power VCs", "projection of power"),
}
ECONOMIC = "Economic Victory"
# Game properties this module reads (no warning for them).
VICTORY_PROPERTIES = {*VICTORY_CITY_RULES, ECONOMIC, "Triggered Victory"}


def members(players: list[str]) -> str:
    """A set literal of players."""
    return "{" + ", ".join(f"player({quote(p)})" for p in players) + "}"


def is_victory_property(name: str) -> bool:
    """Whether the game property `name` is one this module (or the triggers) translates."""
    return name in VICTORY_PROPERTIES or any(name.endswith(" " + kind) for kind, _ in VICTORY_CITY_RULES.values()) \
        or name.endswith(" " + ECONOMIC)


def victory_lines(properties: dict[str, str], sides: dict[str, list[str]], victory_cities: int, last_phase: str,
                  last_turn: int, names: dict[str, str | None]) -> tuple[list[str], list[tuple[str, str, int]]]:
    """The hook judging the game after `last_phase` of the round's last turn (`last_turn`, a place
    in the turn order). `sides`: each alliance and its players (a player's first alliance, as
    the map's sides); `victory_cities`: how many the map has; `names`: what the ruleset calls
    the hook (`hook`) and the space attribute (`attribute`, declared here; None when the name is
    taken). No condition on: no lines.
    Returns the lines, and (switch property, count property, what the side needs here) for each
    count the file leaves to TripleA's built-in default."""
    counts_cities = names.get("attribute") is not None
    checks: list[str] = []
    missing: list[tuple[str, str, int]] = []
    for switch, (count_name, called) in VICTORY_CITY_RULES.items():
        if properties.get(switch) != "true" or not counts_cities or not victory_cities:
            continue
        for side in sides:
            needed = properties.get(f"{side} {count_name}", "")
            if not re.fullmatch(r"\d+", needed):
                # TripleA falls back on a number built into its Java; the side needs every city here.
                missing.append((switch, f"{side} {count_name}", victory_cities))
            needed_n = int(needed) if re.fullmatch(r"\d+", needed) else victory_cities
            reason = f"{side}: {called} (at least {needed_n} victory cities)"
            held = (f"count(t for t in territories() where t.{names['attribute']} and controller(t) in "
                    f"{members(sides[side])})")
            checks += [f"    if {held} >= {needed_n}:",
                       f"        win side({quote(side)}) {quote(reason)}"]
    if properties.get(ECONOMIC) == "true":
        for side in sides:
            needed = properties.get(f"{side} {ECONOMIC}", "")
            if not re.fullmatch(r"\d+", needed):
                continue
            reason = f"{side}: economic victory (territories producing at least {needed} PUs)"
            checks += [f"    if sum(t.ipc for t in territories() where controller(t) in {members(sides[side])}) >= {needed}:",
                       f"        win side({quote(side)}) {quote(reason)}"]
    if not checks:
        return [], missing
    lines = ["", "# TripleA's victory conditions (triplea_victory.py), judged at the end of each round."]
    if counts_cities and any(f"t.{names['attribute']} " in line for line in checks):
        lines.append(f"space attribute {names['attribute']}: bool = false    # TripleA's victoryCity, from the map")
    lines.append(f"hook {names['hook']} after {last_phase} when turn_index(current_player()) == {last_turn}:")
    return lines + checks, missing
