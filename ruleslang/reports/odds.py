"""The HTML report of `ruleslang odds`, rendered from its JSON document alone (docs/reports.md).

The document is the one `odds --format json` prints (docs/odds.md): the battle, the chance of each
end, the chance the territory is taken, expected rounds, expected survivors and IPCs lost per side,
the distribution of what is left, and with `--sample` the 95% half-widths. `render_odds` turns it
into one page: the outcome table and chart, the survivors as charts, the expected losses, and
every end in a table. Exact fractions are shown beside their decimals.
"""

from __future__ import annotations

from ruleslang.reports.charts import Series, bar_panels, color, grouped_bars
from ruleslang.reports.html import Cell, Chart, Page, Table, Text
from ruleslang.reports.numbers import num, pct

SIDES = ("attacker", "defender")
# At most this many ends are listed one by one; the rest are summed on one line.
LISTED_ENDS = 60
# An exact fraction longer than this is shortened in the tables (the whole of it in the tooltip).
FRACTION_SHOWN = 24
NO_FRACTION = "—"
# The words beside each chart: what it shows and how to read it (docs/reports.md says the same).
EXPLAIN = {
    "outcomes": [
        "Each bar is the chance that the battle ends that way: the attacker destroys every "
        "defender, the defender destroys every attacker, both are destroyed in the same round, "
        "or (where shown) neither side can hit the other, the round limit is reached or the "
        "attacker retreats.",
    ],
    "sampled": ["The odds were estimated by fighting the battle many times: the whisker is the 95% interval "
                "of each chance."],
    "computed": ["The chances are computed, not sampled: they have no sampling error."],
    "survivor_counts": [
        "One panel per side: each bar is the chance that the side ends the battle with that "
        "many units (of any type, damaged or not).",
        "The bars of a side add up to 100%. A tall bar at 0 for the defender is a battle the "
        "attacker usually wins outright.",
    ],
    "survivor_types": [
        "For each unit type: grey, how many the side brought; coloured, how many are left on "
        "average at the end (over every way the battle can end).",
        "The gap between the two is the expected loss of that type; the casualty order "
        "decides which types go first.",
    ],
    "losses": [
        "Each bar is the value a side can expect to lose: each unit's cost times the chance "
        "it is destroyed, added up.",
        "An attack that wins often can still cost more than it destroys; compare the two bars "
        "with the value of the territory.",
    ],
}


def render_odds(document: dict) -> str:
    """The odds document as one self-contained HTML page (charts, explanations, tables)."""
    battle = document["battle"]
    page = Page(
        title=f"Battle odds at {battle['space']}",
        subtitle=[f"attacker {battle['attacker']}: {_initial(battle['attacking'], battle['attacker'])}; "
                  f"defender {battle['defender'] or 'nobody'}: {_initial(battle['defending'], battle['defender'])}",
                  f"computed: {_method(document)}"],
        footer="ruleslang odds report · from the document `ruleslang odds --format json` prints")
    _battle(page, document)
    _outcomes(page, document)
    _survivors(page, document)
    _losses(page, document)
    _ends(page, document)
    return page.render()


def _method(doc: dict) -> str:
    method = doc["battle"]["method"]
    if "battles_sampled" in doc:
        return f"{method}: estimated by fighting the real battle, 95% intervals beside each chance"
    if method == "exact":
        return "exact: every die of every step followed, chances as fractions"
    return f"{method}: every die of every step followed, in floating point"


def _initial(units: list[dict], main: str | None) -> str:
    return ", ".join(f"{u['count']} {u['type']}" + ("" if u["owner"] == main else f" ({u['owner']})")
                     for u in units) or "no units"


def _left(units: list[dict], main: str | None) -> str:
    return ", ".join(f"{u['count']} {u['type']}" + ("" if u["owner"] == main else f" ({u['owner']})")
                     + (f" damaged {u['hits']}" if u["hits"] else "") for u in units) or "nothing"


def _chance(number: dict, half: float | None = None) -> Cell:
    """A probability as a percentage, its exact fraction (when there is one) as the tooltip."""
    text = pct(number["float"], 2) + (f" ± {pct(half, 2)}" if half is not None else "")
    return Cell(text, title=number.get("fraction"), cls="num")


def _exact(number: dict) -> Cell:
    """The exact fraction; a long one shortened to its leading digits, all of it in the tooltip."""
    fraction = number.get("fraction")
    if fraction is None:
        return Cell(NO_FRACTION, cls="num")
    top, _, bottom = fraction.partition("/")
    if len(fraction) <= FRACTION_SHOWN:
        return Cell(fraction, cls="num")
    return Cell(f"{top[:6]}…/{bottom[:6]}… ({len(top)}/{len(bottom)} digits)", title=fraction, cls="num")


def _with_exact(table: Table) -> Table:
    """`table` without its last column ("exact") when no row has a fraction (float or sampled odds)."""
    if any(row[-1].text != NO_FRACTION for row in table.rows):
        return table
    return Table(table.headers[:-1], [row[:-1] for row in table.rows], table.caption)


def _battle(page: Page, doc: dict) -> None:
    b = doc["battle"]
    section = page.section("battle", "The battle", "Where it is fought, who fights with what, and how the odds "
                                                    "were computed.")
    rows = [["where", b["space"]],
            ["attacker", f"{b['attacker']}: {_initial(b['attacking'], b['attacker'])}"],
            ["defender", f"{b['defender'] or 'nobody'}: {_initial(b['defending'], b['defender'])}"]]
    if b.get("amphibious_from"):
        rows.append(["amphibious assault from", b["amphibious_from"]])
    rows.append(["computed", _method(doc)])
    if "battles_sampled" in doc:
        rows.append(["battles fought", str(doc["battles_sampled"])])
    section.add(Table(["", "the battle"], rows))


def _outcomes(page: Page, doc: dict) -> None:
    outcomes = doc["outcomes"]
    halves = doc.get("interval_95", {})
    names = list(outcomes)
    # The first three ends (attacker wins, defender holds, both destroyed) always show; the others
    # only when they happen.
    shown = [n for i, n in enumerate(names) if i < 3 or outcomes[n]["float"] > 0]
    section = page.section("outcomes", "How the battle ends",
                           f"The chance of each end; the attacker takes the territory in "
                           f"{pct(doc['territory_taken']['float'], 2)} of battles, and a battle lasts "
                           f"{num(doc['expected_rounds']['float'])} rounds on average.")
    values = [outcomes[n]["float"] for n in shown]
    low = high = None
    if halves:
        low = [max(0.0, v - halves.get(n, 0.0)) for n, v in zip(shown, values)]
        high = [min(1.0, v + halves.get(n, 0.0)) for n, v in zip(shown, values)]
    bars = Series("chance", color(0), shown, values, low, high,
                  [f"{n}: {pct(v, 2)}" + (f" ± {pct(halves[n], 2)}" if n in halves else "")
                   for n, v in zip(shown, values)])
    explanation = EXPLAIN["outcomes"] + EXPLAIN["sampled" if halves else "computed"]
    section.add(Chart(grouped_bars("The chance of each end", [bars], "chance", percent=True, height=360),
                      explanation))
    rows = [[n, _chance(outcomes[n], halves.get(n)), _exact(outcomes[n])] for n in names]
    rows.append(["the attacker takes the territory", _chance(doc["territory_taken"]),
                 _exact(doc["territory_taken"])])
    rows.append(["expected rounds", Cell(num(doc["expected_rounds"]["float"]), cls="num"),
                 _exact(doc["expected_rounds"])])
    section.add(_with_exact(Table(["end", "chance", "exact"], rows)))


def _count_distribution(doc: dict, side: str) -> dict[int, float]:
    """The chance that `side` has k units left, for each k from none to all it brought."""
    brought = sum(u["count"] for u in doc["battle"]["attacking" if side == "attacker" else "defending"])
    out = {k: 0.0 for k in range(brought + 1)}
    for end in doc["distribution"]:
        k = sum(u["count"] for u in end[side])
        out[k] = out.get(k, 0.0) + end["probability"]["float"]
    return out


def _survivors(page: Page, doc: dict) -> None:
    b = doc["battle"]
    section = page.section("survivors", "What survives",
                           "How many units each side keeps: the chance of each number of survivors, and the "
                           "expected survivors of each unit type against what it brought.")
    panels = []
    for k, side in enumerate(SIDES):
        dist = _count_distribution(doc, side)
        counts = sorted(dist)
        panels.append((f"{side} ({b[side] or 'nobody'})",
                       [Series(f"{side} units left", color(k), [str(c) for c in counts], [dist[c] for c in counts],
                               hover=[f"{side}: {c} units left in {pct(dist[c], 2)} of battles" for c in counts])]))
    section.add(Chart(bar_panels("The chance of each number of survivors", panels, "chance", "units left",
                                 percent=True), EXPLAIN["survivor_counts"]))
    expected = []
    for k, side in enumerate(SIDES):
        brought = {(u["type"], u["owner"]): u["count"] for u in b["attacking" if side == "attacker" else "defending"]}
        left = {(u["type"], u["owner"]): u for u in doc["expected_survivors"][side]}
        keys = list(brought) + [key for key in left if key not in brought]
        names = [t + ("" if o == b[side] else f" ({o})") for t, o in keys]
        expected.append((f"{side} ({b[side] or 'nobody'})", [
            Series("at the start", "#b8bcc6", names, [brought.get(key, 0) for key in keys],
                   hover=[f"{n}: {brought.get(key, 0)} at the start" for n, key in zip(names, keys)]),
            Series("left on average", color(k), names, [left[key]["float"] if key in left else 0.0 for key in keys],
                   hover=[f"{n}: {num(left[key]['float'] if key in left else 0.0)} left on average"
                          for n, key in zip(names, keys)])]))
    section.add(Chart(bar_panels("Expected survivors by unit type", expected, "units", "unit type"),
                      EXPLAIN["survivor_types"]))
    rows = [[side, t + ("" if o == b[side] else f" ({o})"), Cell(num(u["float"]), title=u.get("fraction"), cls="num")]
            for side in SIDES for u in doc["expected_survivors"][side] for t, o in [(u["type"], u["owner"])]]
    section.add(Table(["side", "unit type", "left on average"], rows))


def _losses(page: Page, doc: dict) -> None:
    b = doc["battle"]
    lost = doc["expected_ipc_lost"]
    section = page.section("losses", "Expected IPCs lost",
                           "The expected value of the units each side loses, at their purchase cost.")
    bars = [Series("IPCs lost", [color(0), color(1)], [f"{side} ({b[side] or 'nobody'})" for side in SIDES],
                   [lost[side]["float"] for side in SIDES],
                   hover=[f"{side} loses {num(lost[side]['float'])} IPCs on average" for side in SIDES])]
    section.add(Chart(grouped_bars("Expected IPCs lost", bars, "IPCs", height=340), EXPLAIN["losses"]))
    section.add(_with_exact(Table(["side", "IPCs lost (expected)", "exact"],
                                  [[side, Cell(num(lost[side]["float"]), cls="num"), _exact(lost[side])]
                                   for side in SIDES])))


def _ends(page: Page, doc: dict) -> None:
    b = doc["battle"]
    ends = sorted(doc["distribution"], key=lambda e: -e["probability"]["float"])
    section = page.section("ends", "Every end of the battle",
                           "Each distinct way the battle can end, most likely first: how it ended and what "
                           "each side has left.")
    rows = [[_chance(e["probability"]), e["end"], _left(e["attacker"], b["attacker"]),
             _left(e["defender"], b["defender"])]
            for e in ends[:LISTED_ENDS]]
    section.add(Table(["chance", "end", "attacker left", "defender left"], rows,
                      caption="Hover a chance for its exact fraction." if any("fraction" in e["probability"]
                                                                            for e in ends) else None))
    rest = ends[LISTED_ENDS:]
    if rest:
        section.add(Text([f"{len(rest)} more ends, together {pct(sum(e['probability']['float'] for e in rest), 2)}; "
                          "`ruleslang odds --format json` lists them all."]))
