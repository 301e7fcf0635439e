"""TripleA's production: which player may buy which unit types, at what price, in lots of how many.

A TripleA `productionRule` costs resources and yields units (`2 artillery for 7 PUs`); a
`productionFrontier` lists rules; `playerProduction` gives each player its frontier. The
importer turns them into one ruleset table, `frontier(p, u) -> (price, lot, RESOURCE...)`: a row
for each player and unit type its frontier offers, the money price of a lot, the lot (how many
units the rule yields: `2 artillery for 7 PUs` is a lot of 2 at 7) and what a lot costs in each
other resource (a column per resource, named as its counter). The purchase phase offers a player
only its rows (`runtime purchase` with `cost`, `lot`, `resources` and `resource_costs`): it
sells whole lots and charges the money and the player's stock of each resource.

What the runtime cannot charge is reported at its XML element and left out:

- a rule that yields a resource, or several kinds of unit, or costs a resource that has no
  counter: not offered;
- repair rules and frontiers no player starts with (given by technology or triggers).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from ruleslang.base.safexml import XmlElement
from ruleslang.importers.triplea_names import quote

Note = Callable[[str, str, str, "XmlElement | None"], None]
Fail = Callable[[str, "XmlElement | None"], None]
Whole = Callable[[XmlElement, str, int], "int | None"]

FRONTIER_TABLE = "frontier"
IN_FRONTIER = "in_frontier"


@dataclass(frozen=True)
class Offer:
    """One row of the frontier table: `player` may buy `unit` (TripleA's name) in lots of `lot`,
    a lot for `price` in money and `resources` (resource -> amount) in other resources."""

    player: str
    unit: str
    price: int
    lot: int
    resources: tuple[tuple[str, int], ...] = ()


@dataclass(frozen=True)
class _Rule:
    unit: str
    price: int
    lot: int
    resources: tuple[tuple[str, int], ...] = ()


def _rule(rule: XmlElement, money: str, units: set[str], stocks: set[str], whole: Whole,
          note: Note) -> _Rule | None:
    """What one production rule offers, or None (reported) when the runtime cannot charge it
    (`stocks`: the resources that have a counter)."""
    name = rule.attrs.get("name", "")
    cost, others = 0, []
    for element in rule.all("cost"):
        amount = whole(element, "quantity", 0)
        if amount is None:
            return None
        if element.attrs.get("resource") == money:
            cost += amount
        elif amount:
            others.append((element.attrs.get("resource", ""), amount))
    results = [(r.attrs.get("resourceOrUnit", ""), whole(r, "quantity", 1), r) for r in rule.all("result")]
    if any(count is None for _, count, _ in results):
        return None
    kinds = [(unit, count) for unit, count, _ in results if count]
    if len(kinds) != 1 or kinds[0][0] not in units:
        what = ", ".join(f"{count} {unit}" for unit, count in kinds) or "nothing"
        note("production", name, f"yields {what}: only rules that yield one kind of unit are translated; "
             "not offered", rule)
        return None
    unit, count = kinds[0]
    if count <= 0 or cost < 0 or any(amount < 0 for _, amount in others):
        note("production", name, f"{count} {unit} for {cost}: a quantity below 1 or a negative cost; not offered",
             rule)
        return None
    missing = [resource for resource, _ in others if resource not in stocks]
    if missing:
        note("production", name, f"{unit} also costs {', '.join(missing)}, which has no counter; not offered", rule)
        return None
    merged: dict[str, int] = {}
    for resource, amount in others:
        merged[resource] = merged.get(resource, 0) + amount
    return _Rule(unit, cost, count, tuple(merged.items()))


def read_frontiers(production: XmlElement, players: list[str], money: str, units: set[str], *,
                   stocks: set[str], whole: Whole, note: Note, fail: Fail) -> list[Offer]:
    """The frontier table's rows: per player (in the file's order of `playerProduction`), the unit
    types its frontier offers, in the frontier's order; a unit offered twice keeps its first rule."""
    rules: dict[str, _Rule | None] = {}
    rule_elements = {r.attrs.get("name", ""): r for r in production.all("productionRule")}
    frontiers = {f.attrs.get("name", ""): f for f in production.all("productionFrontier")}
    offers: list[Offer] = []
    used: set[str] = set()
    for element in production.all("playerProduction"):
        player, name = element.attrs.get("player", ""), element.attrs.get("frontier", "")
        if player not in players:
            fail(f"a production frontier is given to the unknown player '{player}'", element)
            continue
        frontier = frontiers.get(name)
        if frontier is None:
            fail(f"the player '{player}' is given the unknown production frontier '{name}'", element)
            continue
        used.add(name)
        offered: set[str] = set()
        for entry in frontier.all("frontierRules"):
            rule_name = entry.attrs.get("name", "")
            if rule_name not in rule_elements:
                fail(f"the production frontier '{name}' names the unknown production rule '{rule_name}'", entry)
                continue
            if rule_name not in rules:
                rules[rule_name] = _rule(rule_elements[rule_name], money, units, stocks, whole, note)
            rule = rules[rule_name]
            if rule is None:
                continue
            if rule.unit in offered:
                note("production", rule_name, f"'{name}' offers {rule.unit} by more than one rule; "
                     "the first is kept", entry)
                continue
            offered.add(rule.unit)
            offers.append(Offer(player, rule.unit, rule.price, rule.lot, rule.resources))
    for name, frontier in frontiers.items():
        if name not in used:
            note("production", name, "a production frontier no player starts with (given by technology or "
                 "triggers); not translated", frontier)
    for repair in production.all("repairRule"):
        note("production", repair.attrs.get("name", ""), "repair costs are not translated (an imported game "
             "has no repair phase)", repair)
    return offers


def first_prices(offers: list[Offer]) -> dict[str, int]:
    """Unit type -> its money price a unit (at least 1) in the first frontier that offers it (the
    unit's `cost` attribute: what a unit is worth where no player is asked, e.g. in a count of
    losses)."""
    prices: dict[str, int] = {}
    for offer in offers:
        prices.setdefault(offer.unit, max(1, offer.price // offer.lot))
    return prices


def frontier_lines(offers: list[Offer], unit_name: Callable[[str], str], names: dict[str, str],
                   counters: dict[str, str]) -> list[str]:
    """The frontier table and the formula the purchase phase asks. `names` maps the generic names
    above to the names this ruleset gives them (clear of its units, attributes and tags);
    `counters` maps each resource besides money to its counter, a column of the table."""
    table, member = names[FRONTIER_TABLE], names[IN_FRONTIER]
    columns = "".join(f", {c}: int" for c in counters.values())
    lines = [
        "# What each player may buy: TripleA's production frontiers. A rule of 2 units for 7 is a lot",
        "# of 2 at 7 (the purchase sells whole lots); the other columns are what a lot costs in each",
        "# resource besides money. A unit type's `cost` is its price a unit in the first frontier",
        "# that offers it.",
        f"table {table}(p: player, u: unittype) -> (price: int, lot: int{columns}):",
    ]
    for o in offers:
        amounts = dict(o.resources)
        extra = "".join(f", {amounts.get(r, 0)}" for r in counters)
        lines.append(f"    {quote(o.player)}, {unit_name(o.unit)} -> {o.price}, {o.lot}{extra}")
    lines.append(f"formula {member}(p: player, u: unittype) -> bool = {{p: p, u: u}} in keys({table})")
    lines.append("")
    return lines


def purchase_settings(names: dict[str, str], counters: dict[str, str]) -> str:
    """The `runtime purchase` settings that offer the current player its frontier's rows: a lot's
    price, the lot, and what it costs in each resource's counter. The runtime also asks `cost` of a
    unit no frontier of the player holds (what it is worth, for a bot weighing losses): that is
    the unit type's `cost`."""
    table, member = names[FRONTIER_TABLE], names[IN_FRONTIER]
    row = f"{table}(current_player(), u)"
    settings = [f"cost: u => if {member}(current_player(), u) then {row}.price else u.cost",
                f"lot: u => if {member}(current_player(), u) then {row}.lot else 1",
                f"buyable: u => {member}(current_player(), u)"]
    if counters:
        settings.append("resources: [" + ", ".join(f'"{c}"' for c in counters.values()) + "]")
        settings.append(f"resource_costs: u => if {member}(current_player(), u) then ["
                        + ", ".join(f"{row}.{c}" for c in counters.values()) + "] else ["
                        + ", ".join("0" for _ in counters) + "]")
    return "{" + ", ".join(settings) + "}"
