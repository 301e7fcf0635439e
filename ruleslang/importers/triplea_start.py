"""TripleA's RandomStartDelegate, translated into a hook of the generated ruleset.

TripleA's delegate deals a Risk-like start before the first turn: the players who hold units
(`<heldUnits>` of `<initialize>`), in the player list's order, take turns each picking an empty
land territory no one owns (not impassable) and placing one held unit there, the cheapest
first; a player whose hand is empty drops out; once no such territory is left, the units still
held are placed one at a time in territories the player holds. With the game property
"Territories Are Assigned Randomly" the territory is drawn instead of picked: TripleA adds a
draw of 0 to N-1 (N: the territories open at the start) to a running position and takes the
open territory at that position modulo how many are open.

The order of the picks depends only on the hands, so the importer works it out here and writes
one pick after the other (`choose one of ... by PLAYER`, or a die of N sides through the host);
the rules that decide what is open are the ruleset's (`controller(t) == none`).
"""

from __future__ import annotations

from dataclasses import dataclass

from ruleslang.importers.triplea_names import quote

# TripleA's delegate and the property that makes its picks random draws.
RANDOM_START_DELEGATE = "RandomStartDelegate"
RANDOM_PROPERTY = "Territories Are Assigned Randomly"


@dataclass(frozen=True)
class Pick:
    """One placement of the start: `player` places one `unit` (ruleslang name); `open_land` is
    true while territories no one holds are left (TripleA's first stage), false afterwards."""

    player: str
    unit: str
    open_land: bool


def pick_order(hands: dict[str, list[str]], open_count: int) -> list[Pick]:
    """The placements in TripleA's order: `hands` maps each player (in the player list's order)
    to its held units, cheapest first; `open_count` is how many territories are open at the start."""
    left = {p: list(units) for p, units in hands.items()}
    players = [p for p in left if left[p]]
    picks: list[Pick] = []
    current: str | None = None
    while players:
        if current is None or current not in players:
            current = players[0]
        open_land = open_count > 0
        picks.append(Pick(current, left[current].pop(0), open_land))
        open_count -= open_land
        following = players[(players.index(current) + 1) % len(players)]
        if not left[current]:
            players.remove(current)
        current = following if players else None
    return picks


def random_start_lines(picks: list[Pick], open_spaces: list[str], factories: set[str], *, randomly: bool,
                       hook: str, phase: str, open_formula: str, step_name: str) -> list[str]:
    """The ruleset lines of the start: a formula of the open territories and a hook before `phase`
    of the first turn of the game. `factories`: the unit types the map keeps as factories (a
    placed one sets the territory's factory)."""
    spaces = ", ".join(f"space({quote(s)})" for s in open_spaces)
    how = ("drawn (\"Territories Are Assigned Randomly\": a die of as many sides as territories open "
           "at the start, added to a running position)" if randomly else "picked by the player")
    lines = [
        "",
        f"# TripleA's {RANDOM_START_DELEGATE} (the step {quote(step_name)}): before the first turn, the players",
        "# holding units take turns placing one each (the cheapest first) in an empty territory no one",
        f"# holds, {how}; once none is left, in a territory they hold.",
        f"formula {open_formula}() -> list of space = [t for t in [{spaces}] where controller(t) == none]",
        f"hook {hook} before {phase} when round() == 1 and turn_index(current_player()) == 1:",
    ]
    sides = len(open_spaces)
    for i, pick in enumerate(picks, 1):
        who = f"player({quote(pick.player)})"
        where = f"pick_{i}"
        if pick.open_land and randomly:
            previous = f"position_{i - 1} + " if i > 1 else ""
            lines += [f"    let position_{i} = {previous}d{sides} - 1",
                      f"    let open_{i} = {open_formula}()",
                      f"    let {where} = open_{i}[position_{i} - floor(position_{i} / count(open_{i})) * count(open_{i})]"]
        elif pick.open_land:
            lines.append(f"    let {where} = choose one of {open_formula}() by {who} "
                         f"{quote(f'{pick.player}: where does its {pick.unit} start?')}")
        else:
            own = f"[t for t in territories() where controller(t) == {who}]"
            lines.append(f"    if count({own}) > 0:")
            lines.append(f"        let {where} = choose one of {own} by {who} "
                         f"{quote(f'{pick.player}: where is its {pick.unit} placed?')}")
        indent = "    " if pick.open_land else "        "
        if pick.open_land:
            lines.append(f"{indent}set controller({where}) to {who}")
        if pick.unit in factories:
            lines += [f"{indent}set factory_owner({where}) to {who}",
                      f"{indent}set factory_kind({where}) to {quote(pick.unit)}"]
        else:
            lines.append(f"{indent}add 1 {pick.unit} at {where} for {who}")
        # the player's name as a literal (quote doubles its braces), the territory interpolated
        said = quote(f"{pick.player} places its {pick.unit} in ")[:-1] + "{" + where + "}\""
        lines.append(f"{indent}log {said}")
    return lines
