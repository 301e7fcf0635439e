"""The comparison document (`--format json`; the HTML report's only input) built from the stored
games, and the short table `ruleslang compare` prints. Its shape: ruleslang/schemas/compare.json;
every figure: docs/compare.md."""

from __future__ import annotations

import textwrap
from dataclasses import dataclass

from ruleslang.base.version import VERSION
from ruleslang.compare import stats
from ruleslang.compare.accounting import label as accounting_label

DOCUMENT_FORMAT = "ruleslang-compare"
DOCUMENT_VERSION = 1
CALIBRATION_NOTE = ("the agents' own side skew under variant {}: the share of games each side won or led at the "
                    "end; read a variant's effect against it")


@dataclass(frozen=True)
class VariantInfo:
    """What the document says of a variant besides its games."""

    name: str
    label: str
    composition: list[str]
    rulesets: dict[str, str]  # ref -> sha256 of its text


def outcome_rates(records: list[dict], sides: list[str]) -> dict:
    """Each side's win and lead rates and the draw rate of a variant's games, with Wilson intervals."""
    n = len(records)
    out = {}
    for side in sides:
        out[side] = {"win": stats.rate(sum(r["winner"] == side for r in records), n),
                     "lead": stats.rate(sum(r["winner"] is None and r["ahead"] == side for r in records), n)}
    out["draw"] = stats.rate(sum(r["winner"] is None and r["ahead"] is None for r in records), n)
    return out


def _score(record: dict, side: str) -> float | None:
    value = record["scores"].get(side)
    return value if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def on_top(record: dict, side: str) -> bool:
    """Whether `side` won the game, or led it when the rounds ran out."""
    return record["winner"] == side or (record["winner"] is None and record["ahead"] == side)


def _per_round(series: list[list]) -> list[dict]:
    """A band for each round, over the games that have a number for it."""
    out = []
    for index in range(max((len(s) for s in series), default=0)):
        values = [s[index] for s in series if index < len(s) and s[index] is not None]
        if values:
            out.append({"round": index + 1, **stats.band(values)})
    return out


def _accounting(records: list[dict], powers: list[str]) -> list[dict]:
    keys = sorted({k for r in records for k in r["accounting"]})
    out = []
    for key in keys:
        books = [r["accounting"].get(key, {}) for r in records]
        totals = [sum(sum(v) for v in book.values()) for book in books]
        named = [p for p in powers if any(p in book for book in books)]
        named += sorted({p for book in books for p in book} - set(named))
        by_power = {p: sum(sum(book.get(p, [])) for book in books) / len(records) for p in named}
        # a round's figure over the games that played it (0 where the rule did nothing)
        per_round = _per_round([[sum(v[i] for v in book.values()) for i in range(r["rounds"])]
                                for book, r in zip(books, records)])
        text, unit = accounting_label(key)
        out.append({"key": key, "label": text, "unit": unit, "total_mean": sum(totals) / len(records),
                    "by_power": by_power, "per_round": per_round})
    return out


def variant_figures(info: VariantInfo, records: list[dict], sides: list[str], powers: list[str]) -> dict:
    """Every figure of one variant from its games' records."""
    return {
        "name": info.name, "label": info.label, "composition": list(info.composition),
        "rulesets": dict(info.rulesets), "games": len(records),
        "outcomes": outcome_rates(records, sides),
        "score": {side: stats.mean([s for r in records if (s := _score(r, side)) is not None]) for side in sides},
        "length": stats.mean([r["rounds"] for r in records]),
        "income": {p: _per_round([r["income"].get(p, []) for r in records]) for p in powers},
        "battles_per_round": _per_round([r["battles"] for r in records]),
        "control_changes_per_round": _per_round([r["control_changes"] for r in records]),
        "accounting": _accounting(records, powers),
    }


def _differences(a: VariantInfo, b: VariantInfo, ra: list[dict], rb: list[dict], sides: list[str]) -> list[dict]:
    out = []

    def add(measure: str, xs, ys, binary: bool) -> None:
        out.append({"a": a.name, "b": b.name, "measure": measure, **stats.paired_difference(xs, ys, binary=binary)})

    for side in sides:
        add(f"{side} win", [float(r["winner"] == side) for r in ra], [float(r["winner"] == side) for r in rb], True)
    for side in sides:
        add(f"{side} win or lead", [float(on_top(r, side)) for r in ra], [float(on_top(r, side)) for r in rb], True)
    for side in sides:
        pairs = [(x, y) for r, q in zip(ra, rb) if (x := _score(r, side)) is not None
                 and (y := _score(q, side)) is not None]
        if pairs:
            add(f"{side} score", [x for x, _ in pairs], [y for _, y in pairs], False)
    add("length", [r["rounds"] for r in ra], [r["rounds"] for r in rb], False)
    return out


def build_document(*, settings: dict, sides: list[str], powers: list[str], variants: list[VariantInfo],
                   records: list[list[dict]], diff: list[dict], distributions: dict | None = None) -> dict:
    """The comparison document: `records[v]` are variant v's games in game order (the same games,
    by seed, for every variant); `diff` the semantic diff lines of each variant against the first;
    `distributions` the exact distributions of the changed formulas with dice and what was skipped
    (compare/distributions.py)."""
    first = variants[0]
    figures = [variant_figures(info, recs, sides, powers) for info, recs in zip(variants, records)]
    differences = [d for info, recs in zip(variants[1:], records[1:])
                   for d in _differences(first, info, records[0], recs, sides)]
    skew = {side: sum(on_top(r, side) for r in records[0]) / len(records[0]) for side in sides}
    return {
        "format": DOCUMENT_FORMAT, "version": DOCUMENT_VERSION, "ruleslang": VERSION,
        "settings": settings, "sides": sides, "powers": powers, "variants": figures,
        "differences": differences,
        "calibration": {"skew": skew, "note": CALIBRATION_NOTE.format(first.name)},
        "diff": diff, "distributions": (distributions or {}).get("distributions", []),
        "distributions_skipped": (distributions or {}).get("skipped", []),
    }


# ---------------------------------------------------------------- the text table

def _interval(r: dict) -> str:
    return f"{r['rate']:.2f} [{r['low']:.2f},{r['high']:.2f}]"


def render_text(doc: dict) -> str:
    """The table a person reads in a terminal (80 columns): each variant's side win rates with
    their intervals, the draws and the mean length; then each difference against the first
    variant, whether it is significant, and the agents' own side skew."""
    sides = doc["sides"]
    s = doc["settings"]
    lines = [f"{len(doc['variants'])} variants, {s['games']} games each, the same seeds for every variant; "
             f"at most {s['rounds']} round{'' if s['rounds'] == 1 else 's'}", ""]
    for v in doc["variants"]:
        lines += textwrap.wrap(f"{v['name']} = {v['label']}", 78, initial_indent="  ", subsequent_indent="      ",
                               break_on_hyphens=False, break_long_words=False)
    lines.append("")
    head = f"{'':<4}" + "".join(f"{side + ' win':<19}" for side in sides) + f"{'draw':<7}{'rounds':>6}"
    lines.append(head.rstrip())
    for v in doc["variants"]:
        row = f"{v['name']:<4}" + "".join(f"{_interval(v['outcomes'][side]['win']):<19}" for side in sides)
        row += f"{v['outcomes']['draw']['rate']:<7.2f}{v['length']['mean']:>6.1f}"
        lines.append(row)
    lines.append(f"{'':<4}" + "".join(f"{side + ' lead':<19}" for side in sides).rstrip()
                 + "   (no winner: ahead on score at the end)")
    for v in doc["variants"]:
        lines.append(f"{v['name']:<4}" + "".join(f"{_interval(v['outcomes'][side]['lead']):<19}"
                                                 for side in sides).rstrip())
    if doc["differences"]:
        lines += ["", "Differences against A: 95% interval, p-value (* significant at 5%),",
                  "and the interval's half-width had the games not been matched"]
        for d in doc["differences"]:
            mark = "*" if d["significant"] else " "
            lines.append(f"  {d['b']}-{d['a']} {d['measure']:<19}{d['diff']:+7.3f} [{d['low']:+.3f},{d['high']:+.3f}]"
                         f" p={d['p_value']:.3f}{mark} (unmatched ±{d['unpaired_halfwidth']:.3f})")
    skew = ", ".join(f"{side} {rate:.2f}" for side, rate in doc["calibration"]["skew"].items())
    lines += ["", f"Agents' side skew under A (won or led at the end): {skew}",
              "(read the differences against it)"]
    stopped = s.get("stopped")
    if stopped:
        lines.append(stopped)
    return "\n".join(lines)
