"""The HTML report of `ruleslang compare`, rendered from its JSON document alone (docs/reports.md).

The document is the one `compare --format json` prints (its shape: ruleslang/schemas/compare.json):
variants in command-line order, each with its outcomes, scores, curves per round and per-rule
accounting; the paired differences against the first variant; the agents' calibration; the
semantic diff; exact distributions. `render_compare` turns it into one page: for each figure a
chart, a plain-language explanation beside it and the table of its numbers.
"""

from __future__ import annotations

import statistics

from ruleslang.reports.charts import (Series, band_panels, bar_panels, color, grouped_bars, interval_panels,
                                      stacked_shares)
from ruleslang.reports.html import Cell, Chart, Lines, Page, Table, Text
from ruleslang.reports.numbers import interval, num, p_value, pct, pct_interval, signed

# Sides are not variants: the outcome bars give them colours of their own.
SIDE_COLORS = ("#2b6cb0", "#c0392b", "#7b5ea7", "#2f855a")
FORMAT = "ruleslang-compare"
VERSION = 1
# The words beside each chart: what it shows and how to read it (docs/reports.md says the same).
EXPLAIN = {
    "win_rates": [
        "Each bar is the share of games a side won under one variant; the whisker is the "
        "95% interval: with this many games, the true rate lies in it 19 times in 20.",
        "Bars whose whiskers overlap may still differ: the paired differences below "
        "say whether they do.",
        "The black diamond is the calibration: how often each side wins because of the "
        "agents alone. A variant's effect is the change from it, not the distance from 50%.",
    ],
    "endings": [
        "One bar per variant, split by how its games ended: a side won (strong colour), no "
        "side won but one was ahead when the rounds ran out (light colour), or neither "
        "(grey).",
        "A variant that only moves games from a win to a lead changes the game less than "
        "one that turns wins into losses.",
    ],
    "scores": [
        "Each bar is a side's mean score at the end of the game under one variant; the "
        "whisker is its 95% interval.",
        "Scores move before win rates do: a variant can shift the score while the "
        "winner stays the same.",
    ],
    "differences": [
        "One panel per measure. The coloured point is the difference (second variant "
        "minus the first) with its 95% interval from matched games; the grey whisker is "
        "the interval the same games would give unmatched.",
        "An interval that does not cross the dotted zero line is a difference the games "
        "show at the 5% level; the shorter coloured whisker is what pairing bought.",
    ],
    "income": [
        "One panel per power, in turn order. The line is the mean income collected in that "
        "round; the shaded band spans the 10th to 90th percentile of games.",
        "Curves that part from the first variant show whom a rule helps or hurts, and from "
        "which round; wide bands mean the games differ a lot from one another.",
    ],
    "activity": [
        "Left: battles fought in a round (all powers together). Right: territories whose "
        "controller changed in that round.",
        "A rule that makes attacks cheaper or riskier shows here first, even when the "
        "win rates hardly move.",
    ],
    "accounting": [
        "One panel per thing a rule did, named from its own events: the amount per round, "
        "mean and 10–90% band. A variant missing from a panel never did it.",
        "Negative amounts are taken away (IPCs removed by raids, say), positive ones given.",
    ],
    "distributions": [
        "One panel per changed formula and its arguments; each bar is the exact chance the "
        "formula gives that value under a variant.",
        "Where the bars of two variants differ, the rule's dice changed; the mean alone can "
        "hide a wider or a lopsided spread.",
    ],
}


def render_compare(document: dict) -> str:
    """The compare document as one self-contained HTML page (charts, explanations, tables)."""
    if document.get("format") != FORMAT or document.get("version") != VERSION:
        raise ValueError(f"not a {FORMAT} document of version {VERSION}: "
                         f"{document.get('format')!r} version {document.get('version')!r}")
    variants = document["variants"]
    colors = {v["name"]: color(i) for i, v in enumerate(variants)}
    settings = document["settings"]
    page = Page(
        title="Comparison of " + " vs ".join(v["name"] for v in variants),
        subtitle=[f"{v['name']}: {v['label']}" for v in variants]
        + [f"{settings['games']} games per variant (game i of every variant on the same seed), "
           f"at most {settings['rounds']} rounds, seed {settings['seed']}"],
        footer=f"ruleslang {document['ruleslang']} · {FORMAT} document version {VERSION}")
    _overview(page, document)
    _win_rates(page, document, colors)
    _scores(page, document, colors)
    _differences(page, document, colors)
    _income(page, document, colors)
    _activity(page, document, colors)
    _accounting(page, document, colors)
    _diff(page, document)
    _distributions(page, document, colors)
    return page.render()


def _overview(page: Page, doc: dict) -> None:
    s = doc["settings"]
    agents = s["agents"]
    players = ", ".join(f"{p}: {a}" for p, a in agents.get("players", {}).items())
    section = page.section("overview", "What was compared",
                           "The variants, the settings every game was played with, and the exact rulesets "
                           "(content hashes) each variant composed.")
    section.add(Table(["setting", "value"], [
        ["games per variant", str(s["games"])],
        ["rounds (at most)", str(s["rounds"])],
        ["seed", str(s["seed"])],
        ["scenario", s["scenario"] or "the map's start"],
        ["agents", agents["default"] + (f" ({players})" if players else "")],
        ["precision asked (--precision)", "—" if s.get("precision") is None else str(s["precision"])],
        ["run on", f"{s['backend']}, {s['jobs']} jobs"],
        ["ruleslang", doc["ruleslang"]],
    ]))
    rows = []
    for v in doc["variants"]:
        hashes = "; ".join(f"{ref} {digest[:12]}" for ref, digest in v["rulesets"].items())
        rows.append([v["name"], v["label"], " + ".join(v["composition"]), Cell(str(v["games"]), cls="num"),
                     Cell(hashes, title="; ".join(f"{ref} sha256 {d}" for ref, d in v["rulesets"].items()))])
    section.add(Table(["variant", "label", "composition", "games", "rulesets (sha256, first 12)"], rows))


def _rate_cell(entry: dict) -> Cell:
    return Cell(f"{pct(entry['rate'])} ({pct_interval(entry['low'], entry['high'])})",
                title=f"{entry['count']} games", cls="num")


def _win_rates(page: Page, doc: dict, colors: dict) -> None:
    sides = doc["sides"]
    variants = doc["variants"]
    skew = doc["calibration"]["skew"]
    section = page.section("win-rates", "Who wins",
                           "Each side's share of games won, with its 95% interval (Wilson), for every variant; "
                           "the agents' own side skew beside it.")
    bars = [Series(v["name"], colors[v["name"]], list(sides),
                   [v["outcomes"][side]["win"]["rate"] for side in sides],
                   [v["outcomes"][side]["win"]["low"] for side in sides],
                   [v["outcomes"][side]["win"]["high"] for side in sides],
                   [f"{side} win {pct(v['outcomes'][side]['win']['rate'])}, 95% interval "
                    f"{pct_interval(v['outcomes'][side]['win']['low'], v['outcomes'][side]['win']['high'])} "
                    f"({v['outcomes'][side]['win']['count']} of {v['games']} games)" for side in sides])
            for v in variants]
    known = [s for s in sides if s in skew]
    calibration = Series("calibration: the agents' skew", "#222222", known, [skew[s] for s in known],
                         hover=[f"{s}: the agents win {pct(skew[s])} of games on their own" for s in known])
    section.add(Chart(grouped_bars("Win rate by side (95% intervals)", bars, "games won", percent=True,
                                   markers=[calibration]), EXPLAIN["win_rates"]))
    section.add(Text(["Calibration: " + "; ".join(f"{s} {pct(skew[s])}" for s in skew) + ".",
                      doc["calibration"]["note"] + "."], box=True))
    names = [v["name"] for v in variants]
    section.add(Chart(stacked_shares("How the games ended", names, _ending_parts(sides, variants)),
                      EXPLAIN["endings"]))
    rows = []
    for v in variants:
        for side in sides:
            rows.append([v["name"], side, _rate_cell(v["outcomes"][side]["win"]),
                         _rate_cell(v["outcomes"][side]["lead"]),
                         Cell(pct(skew[side]) if side in skew else "—", cls="num")])
        rows.append([v["name"], "neither (draw)", _rate_cell(v["outcomes"]["draw"]), "", ""])
    section.add(Table(["variant", "side", "won (95% interval)", "ahead, no winner (95% interval)",
                       "calibration"], rows,
                      caption="Rates with Wilson 95% intervals; hover a rate for its count of games."))


def _ending_parts(sides: list[str], variants: list[dict]) -> list[Series]:
    """The shares of the outcome bars, mirrored: the first side's wins and leads, draws, then each
    other side's leads and wins, so the two sides meet at the draws."""
    names = [v["name"] for v in variants]
    draws = Series("draws", "#9a9a9a", names, [v["outcomes"]["draw"]["rate"] for v in variants],
                   hover=[f"no side ahead in {pct(v['outcomes']['draw']['rate'])} of games" for v in variants])
    parts = []
    for k, side in enumerate(sides):
        if k == 1:
            parts.append(draws)
        for kind in (("win", "lead") if k == 0 else ("lead", "win")):
            strength = 1.0 if kind == "win" else 0.5
            parts.append(Series(f"{side} {kind}s", _shade(SIDE_COLORS[k % len(SIDE_COLORS)], strength), names,
                                [v["outcomes"][side][kind]["rate"] for v in variants],
                                hover=[f"{side} {'won' if kind == 'win' else 'was ahead at the end'} in "
                                       f"{pct(v['outcomes'][side][kind]['rate'])} of games" for v in variants]))
    if len(sides) < 2:
        parts.append(draws)
    return parts


def _shade(hex_color: str, strength: float) -> str:
    """`hex_color` mixed with white: `strength` 1 is the colour itself, 0 white."""
    r, g, b = (int(hex_color[i:i + 2], 16) for i in (1, 3, 5))
    return "#" + "".join(f"{round(c * strength + 255 * (1 - strength)):02x}" for c in (r, g, b))


def _scores(page: Page, doc: dict, colors: dict) -> None:
    sides = doc["sides"]
    variants = doc["variants"]
    section = page.section("scores", "Final score and game length",
                           "The mean final score of each side (as the rules score a game) and the mean "
                           "length of a game in rounds, with 95% intervals.")
    bars = [Series(v["name"], colors[v["name"]], list(sides), [v["score"][s]["mean"] for s in sides],
                   [v["score"][s]["low"] for s in sides], [v["score"][s]["high"] for s in sides],
                   [f"{s}: mean score {num(v['score'][s]['mean'])} "
                    f"({interval(v['score'][s]['low'], v['score'][s]['high'], 2)})" for s in sides])
            for v in variants]
    section.add(Chart(grouped_bars("Mean final score by side (95% intervals)", bars, "score"),
                      EXPLAIN["scores"]))
    rows = [[v["name"], *[_mean_cell(v["score"][s]) for s in sides], _mean_cell(v["length"])] for v in variants]
    section.add(Table(["variant", *[f"{s} score (95% interval)" for s in sides], "rounds played (95% interval)"],
                      rows))


def _mean_cell(mean: dict) -> Cell:
    """A mean with its 95% interval: '40.20 (39.10 to 41.30)'."""
    return Cell(f"{num(mean['mean'])} ({interval(mean['low'], mean['high'], 2)})", cls="num")


def _narrowing(d: dict) -> str:
    """How much pairing narrowed a difference's interval, in words."""
    paired, unpaired = d["paired_halfwidth"], d["unpaired_halfwidth"]
    if not unpaired or not paired:
        return "—"
    if paired >= unpaired:
        return f"pairing did not narrow it (±{num(paired, 3)} paired, ±{num(unpaired, 3)} unpaired)"
    return (f"{round(100 * (1 - paired / unpaired))}% narrower than unpaired (±{num(paired, 3)} instead of "
            f"±{num(unpaired, 3)}): as precise as {num((unpaired / paired) ** 2, 1)} times as many unmatched games")


def _differences(page: Page, doc: dict, colors: dict) -> None:
    diffs = doc["differences"]
    gains = [1 - d["paired_halfwidth"] / d["unpaired_halfwidth"] for d in diffs
             if d["unpaired_halfwidth"] and d["paired_halfwidth"]]
    lead = ("Each variant played the same games as the first (the same seeds, agents and scenario), so a "
            "difference is measured on matched games: each is the second variant minus the first, with its "
            "95% interval and p-value.")
    if gains:
        lead += (f" Pairing narrowed the intervals by {round(100 * min(gains))}% to {round(100 * max(gains))}% "
                 f"(median {round(100 * statistics.median(gains))}%) against the same games taken as unmatched.")
    section = page.section("differences", "Differences between the variants", lead)
    if not diffs:
        section.add(Text(["There is only one variant: no difference to measure."]))
        return
    measures: list[str] = []
    for d in diffs:
        if d["measure"] not in measures:
            measures.append(d["measure"])
    panels = []
    for measure in measures:
        rows = [d for d in diffs if d["measure"] == measure]
        pairs = [f"{d['b']} − {d['a']}" for d in rows]
        paired = Series("paired (matched games)", [colors.get(d["b"], color(1)) for d in rows],
                        [d["diff"] for d in rows],
                        [f"{p}, paired" for p in pairs], [d["low"] for d in rows], [d["high"] for d in rows],
                        [f"{measure}: {signed(d['diff'])}, 95% interval {interval(d['low'], d['high'])}, "
                         f"p = {p_value(d['p_value'])}" for d in rows])
        unpaired = Series("as if unmatched", "#a0a0a0", [d["diff"] for d in rows], [f"{p}, unmatched" for p in pairs],
                          [d["diff"] - d["unpaired_halfwidth"] for d in rows],
                          [d["diff"] + d["unpaired_halfwidth"] for d in rows],
                          [f"{measure}: the same difference ± {num(d['unpaired_halfwidth'], 3)} if the games "
                           f"were not matched" for d in rows])
        panels.append((measure, [paired, unpaired]))
    if panels:
        section.add(Chart(interval_panels("Paired differences with 95% intervals", panels, "difference"),
                          EXPLAIN["differences"]))
    rows = [[f"{d['b']} − {d['a']}", d["measure"], Cell(signed(d["diff"]), cls="num"),
             Cell(interval(d["low"], d["high"]), cls="num"), Cell(p_value(d["p_value"]), cls="num"),
             Cell("yes" if d["significant"] else "no", cls="yes" if d["significant"] else None),
             Cell(f"±{num(d['paired_halfwidth'], 3)}", cls="num"),
             Cell(f"±{num(d['unpaired_halfwidth'], 3)}", cls="num"), _narrowing(d), d["method"]]
            for d in diffs]
    section.add(Table(["difference", "measure", "value", "95% interval", "p-value", "significant (5%)",
                       "paired ±", "unpaired ±", "what pairing did", "method"], rows))


def _curve(v: dict, points: list[dict], colors: dict, what: str, unit: str = "") -> Series:
    """A variant's per-round figure as a series of means with its 10-90% band."""
    return Series(v["name"], colors[v["name"]], [p["round"] for p in points], [p["mean"] for p in points],
                  [p["p10"] for p in points], [p["p90"] for p in points],
                  [f"round {p['round']}: {what} {num(p['mean'])}{unit} on average, 10–90% of games "
                   f"{num(p['p10'], 1)} to {num(p['p90'], 1)}" for p in points])


def _income(page: Page, doc: dict, colors: dict) -> None:
    section = page.section("income", "Income per power",
                           "Each power's income per round: the mean over the games, and the band where the "
                           "middle 80% of games fall (10th to 90th percentile).")
    panels = [(power, [_curve(v, v["income"].get(power, []), colors, "income", " IPCs")
                       for v in doc["variants"]]) for power in doc["powers"]]
    section.add(Chart(band_panels("Income per round (mean, 10–90% band)", panels, "IPCs"),
                      EXPLAIN["income"]))


def _activity(page: Page, doc: dict, colors: dict) -> None:
    section = page.section("activity", "Battles and control changes",
                           "How much fighting each round saw: the battles fought and the territories that "
                           "changed hands, mean and 10–90% band.")
    panels = [("battles per round", [_curve(v, v["battles_per_round"], colors, "battles")
                                     for v in doc["variants"]]),
              ("control changes per round", [_curve(v, v["control_changes_per_round"], colors,
                                                    "control changes")
                                             for v in doc["variants"]])]
    section.add(Chart(band_panels("Battles and control changes per round", panels, "per round"),
                      EXPLAIN["activity"]))


def _accounting(page: Page, doc: dict, colors: dict) -> None:
    variants = doc["variants"]
    section = page.section("accounting", "What each rule did",
                           "Per-rule accounting, read from the rules' own log events and counters: what each "
                           "hook or procedure moved, counted per round (mean and 10–90% band) and over the game.")
    keys: dict[str, dict] = {}
    for v in variants:
        for entry in v["accounting"]:
            keys.setdefault(entry["key"], entry)
    if not keys:
        section.add(Text(["No rule of these variants logged an event or counter to account for."]))
        return
    panels = []
    for key, first in keys.items():
        series = []
        for v in variants:
            entry = next((e for e in v["accounting"] if e["key"] == key), None)
            if entry is not None:
                series.append(_curve(v, entry["per_round"], colors, first["label"], f" {first['unit']}"))
        panels.append((f"{first['label']} ({first['unit']})", series))
    section.add(Chart(band_panels("Per-rule accounting per round (mean, 10–90% band)", panels, "per round"),
                      EXPLAIN["accounting"]))
    rows = []
    for key, first in keys.items():
        for v in variants:
            entry = next((e for e in v["accounting"] if e["key"] == key), None)
            if entry is None:
                rows.append([first["label"], key, v["name"], Cell("—", cls="num"), "never happened"])
                continue
            by_power = ", ".join(f"{p} {num(x)}" for p, x in entry["by_power"].items())
            rows.append([first["label"], key, v["name"], Cell(f"{num(entry['total_mean'])} {entry['unit']}", cls="num"),
                         by_power or "—"])
    section.add(Table(["what", "key", "variant", "per game (mean)", "by power (mean per game)"], rows))


def _diff(page: Page, doc: dict) -> None:
    section = page.section("diff", "How the rules differ",
                           "The semantic difference between the first variant's rulesets and each other's "
                           "(as `ruleslang diff` prints it): the definitions that changed, not the lines of text.")
    if not doc["diff"]:
        section.add(Text(["The variants have no rule difference."]))
    for entry in doc["diff"]:
        section.add(Lines(entry["lines"] or ["(no difference)"], heading=f"{entry['a']} → {entry['b']}"))


def _distributions(page: Page, doc: dict, colors: dict) -> None:
    found = doc.get("distributions") or []
    section = page.section("distributions", "Exact distributions of the changed formulas",
                           "For each changed formula that rolls dice, the exact chance of each value it can "
                           "give, computed from the dice (not sampled), under each variant that has it.")
    skipped = [f"{s['definition']}" + (f"({', '.join(str(a) for a in s['args'])})" if s.get("args") else "")
               + (f" under {s['variant']}" if s.get("variant") else "") + f": {s['reason']}"
               for s in doc.get("distributions_skipped") or []]
    if skipped:
        section.add(Text(["Changed formulas with dice that are not shown: " + "; ".join(skipped) + "."]))
    if not found:
        if not skipped:
            section.add(Text(["No changed formula rolls dice, so there is no distribution to show."]))
        return
    groups: dict[str, list[dict]] = {}
    for d in found:
        name = f"{d['definition']}({', '.join(str(a) for a in d['args'])})"
        groups.setdefault(name, []).append(d)
    panels = []
    rows = []
    for name, entries in groups.items():
        values = _value_order([item["value"] for d in entries for item in d["values"]])
        series = []
        for d in entries:
            chance = {_value_key(item["value"]): item["p"] for item in d["values"]}
            ps = [chance.get(_value_key(x), 0.0) for x in values]
            series.append(Series(d["variant"], colors.get(d["variant"], color(0)), [str(x) for x in values], ps,
                                 hover=[f"{name} = {x}: {pct(p, 2)}" for x, p in zip(values, ps)]))
            rows.extend([name, d["variant"], str(item["value"]), Cell(pct(item["p"], 2), cls="num")]
                        for item in d["values"])
        panels.append((name, series))
    section.add(Chart(bar_panels("Exact distributions (chance of each value)", panels, "chance", "value",
                                 percent=True), EXPLAIN["distributions"]))
    section.add(Table(["formula", "variant", "value", "chance"], rows))


def _value_key(value) -> str:
    return repr(value)


def _value_order(values: list) -> list:
    """The distinct values, in numeric order when all are numbers, else in order of appearance."""
    seen: dict[str, object] = {}
    for x in values:
        seen.setdefault(_value_key(x), x)
    distinct = list(seen.values())
    if all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in distinct):
        return sorted(distinct)
    return distinct
