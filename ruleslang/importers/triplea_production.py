"""TripleA's production: which player may buy which unit types, at what price, in lots of how many.

A TripleA `productionRule` costs resources and yields units (`2 artillery for 7 PUs`); a
`productionFrontier` lists rules; `playerProduction` gives each player its frontier. The
importer turns them into one ruleset table, `frontier(p, u) -> (price, lot)`: a row for each
player and unit type its frontier offers, the price of one unit in money and the lot (how many
the rule yields). The purchase phase offers a player only its rows, at their prices, and a
constraint keeps each count a whole number of lots.

What the runtime cannot charge is reported at its XML element and left out or kept in part:

- a rule whose money cost is not a whole number per unit (`2 for 7`): not offered;
- a rule that also costs other resources: offered at its money price, the other costs not charged;
- a rule that yields a resource, or several kinds of unit: not offered;
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
BOUGHT = "bought"
LOTS_CONSTRAINT = "frontier_lots"


@dataclass(frozen=True)
class Offer:
    """One row of the frontier table: `player` may buy `unit` (TripleA's name) at `price` each,
    in lots of `lot`."""

    player: str
    unit: str
    price: int
    lot: int


@dataclass(frozen=True)
class _Rule:
    unit: str
    price: int
    lot: int


def _rule(rule: XmlElement, money: str, units: set[str], whole: Whole, note: Note) -> _Rule | None:
    """What one production rule offers, or None (reported) when the runtime cannot charge it."""
    name = rule.attrs.get("name", "")
    cost, others = 0, []
    for element in rule.all("cost"):
        amount = whole(element, "quantity", 0)
        if amount is None:
            return None
        if element.attrs.get("resource") == money:
            cost += amount
        elif amount:
            others.append(f"{amount} {element.attrs.get('resource', '')}")
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
    if count < 0 or cost < 0:
        note("production", name, f"{count} {unit} for {cost}: a negative quantity; not offered", rule)
        return None
    if cost % count:
        note("production", name, f"{count} {unit} for {cost} {money}: the purchase procedure charges a whole "
             "price per unit, so this rule is not offered", rule)
        return None
    if others:
        note("production", name, f"{unit} also costs {', '.join(others)}: resources other than {money} are "
             "not charged (only the money price is)", rule)
    return _Rule(unit, cost // count, count)


def read_frontiers(production: XmlElement, players: list[str], money: str, units: set[str], *,
                   whole: Whole, note: Note, fail: Fail) -> list[Offer]:
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
                rules[rule_name] = _rule(rule_elements[rule_name], money, units, whole, note)
            rule = rules[rule_name]
            if rule is None:
                continue
            if rule.unit in offered:
                note("production", rule_name, f"'{name}' offers {rule.unit} by more than one rule; "
                     "the first is kept", entry)
                continue
            offered.add(rule.unit)
            offers.append(Offer(player, rule.unit, rule.price, rule.lot))
    for name, frontier in frontiers.items():
        if name not in used:
            note("production", name, "a production frontier no player starts with (given by technology or "
                 "triggers); not translated", frontier)
    for repair in production.all("repairRule"):
        note("production", repair.attrs.get("name", ""), "repair costs are not translated (an imported game "
             "has no repair phase)", repair)
    return offers


def first_prices(offers: list[Offer]) -> dict[str, int]:
    """Unit type -> its price in the first frontier that offers it (the unit's `cost` attribute:
    what a unit is worth where no player is asked, e.g. in a count of losses)."""
    prices: dict[str, int] = {}
    for offer in offers:
        prices.setdefault(offer.unit, offer.price)
    return prices


def frontier_lines(offers: list[Offer], unit_name: Callable[[str], str], names: dict[str, str]) -> list[str]:
    """The frontier table, the formulas the purchase phase asks, and (when a rule yields more than
    one unit) the constraint that keeps purchases in whole lots. `names` maps the generic names
    above to the names this ruleset gives them (clear of its units, attributes and tags)."""
    table, member, bought, lots = (names[k] for k in (FRONTIER_TABLE, IN_FRONTIER, BOUGHT, LOTS_CONSTRAINT))
    lines = [
        "# What each player may buy, at what price a unit and in lots of how many: TripleA's production",
        "# frontiers (a rule of 2 units for 6 is a lot of 2 at 3 each). A unit type's `cost` is its price",
        "# in the first frontier that offers it.",
        f"table {table}(p: player, u: unittype) -> (price: int, lot: int):",
    ]
    lines += [f"    {quote(o.player)}, {unit_name(o.unit)} -> {o.price}, {o.lot}" for o in offers]
    lines.append(f"formula {member}(p: player, u: unittype) -> bool = {{p: p, u: u}} in keys({table})")
    if any(o.lot > 1 for o in offers):
        lines += [
            f"formula {bought}(buying: list of unittype, u: unittype) -> int = count(x for x in buying where x == u)",
            f"constraint {lots} on purchase(p, buying):",
            f"    require all(floor({bought}(buying, u) / {table}(p, u).lot) * {table}(p, u).lot == {bought}(buying, u) "
            f"for u in unit_types() where {member}(p, u))",
            "        else \"{p} buys units in whole lots of their production rules\"",
        ]
    lines.append("")
    return lines


def purchase_settings(names: dict[str, str]) -> str:
    """The `runtime purchase` settings that offer the current player its frontier's rows. The
    runtime also asks `cost` of a unit no frontier of the player holds (what it is worth, for a
    bot weighing losses): that is the unit type's `cost`."""
    table, member = names[FRONTIER_TABLE], names[IN_FRONTIER]
    return (f"{{cost: u => if {member}(current_player(), u) then {table}(current_player(), u).price else u.cost, "
            f"buyable: u => {member}(current_player(), u)}}")
