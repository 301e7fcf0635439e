"""The difference between two maps, fact by fact: players, turn order, spaces (kind, owner,
values, neighbours), canals and the starting position (units, factories, treasuries).

`ruleslang diff MAP_A MAP_B` prints it; an imported game's two versions (or two games of one
family) are compared as the board they set up, not as YAML text.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ruleslang.board.mapdata import GameMap

MAP_SUFFIXES = (".yaml", ".yml")
_SPACE_FIELDS = ("kind", "owner", "original_owner", "impassable", "neutral", "island", "economy")
_PLAYER_FIELDS = ("side", "capital", "economies")


@dataclass
class MapDiff:
    """What changed from one map to another, section by section (each a list of lines)."""

    old: str
    new: str
    sections: dict[str, list[str]] = field(default_factory=dict)

    def to_json(self) -> dict:
        return {"from": self.old, "to": self.new, "sections": self.sections}

    def to_text(self) -> str:
        lines = [f"map {self.old} -> map {self.new}"]
        if not any(self.sections.values()):
            lines.append("  no difference")
        for title, items in self.sections.items():
            if items:
                lines.append(f"  {title}:")
                lines.extend(f"      {item}" for item in items)
        return "\n".join(lines)


def is_map_ref(ref: str) -> bool:
    """Whether a command-line REF names a map (a `.yaml` file, or a name without `/` that is not a
    `.rules` file) rather than a ruleset (`family/name@N`, a `.rules` file)."""
    return ref.endswith(MAP_SUFFIXES) or ("/" not in ref and not ref.endswith(".rules"))


def _value(v: object) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, dict):
        return ", ".join(f"{k} {_value(x)}" for k, x in v.items()) or "none"
    if isinstance(v, tuple):
        return "[" + ", ".join(map(str, v)) + "]"
    return "none" if v is None else str(v)


def _changes(label: str, a: dict, b: dict) -> list[str]:
    """`label key: old -> new` for every key whose value differs (absent: none)."""
    return [f"{label}{key}: {_value(a.get(key))} -> {_value(b.get(key))}"
            for key in list(a) + [k for k in b if k not in a] if a.get(key) != b.get(key)]


def _units_text(units: dict) -> str:
    return ", ".join(f"{n} {u}" for u, n in sorted(units.items())) or "nothing"


def diff_maps(old: GameMap, new: GameMap) -> MapDiff:
    """The facts of `new` that differ from `old`'s."""
    out = MapDiff(old.name, new.name)
    out.sections["header"] = _changes("", {"title": old.title, "source": old.source},
                                      {"title": new.title, "source": new.source})

    pa, pb = {p.name: p for p in old.players}, {p.name: p for p in new.players}
    players = [f"added {n}" + (f" (side {pb[n].side})" if pb[n].side else "") for n in pb if n not in pa]
    players += [f"removed {n}" for n in pa if n not in pb]
    for name in (n for n in pa if n in pb):
        players += _changes(f"{name} ", {f: getattr(pa[name], f) for f in _PLAYER_FIELDS},
                            {f: getattr(pb[name], f) for f in _PLAYER_FIELDS})
    if old.turn_order != new.turn_order:
        players.append(f"turn order: {', '.join(old.turn_order)} -> {', '.join(new.turn_order)}")
    out.sections["players"] = players

    sa, sb = {s.name: s for s in old.spaces}, {s.name: s for s in new.spaces}
    spaces = []
    for name in (n for n in sb if n not in sa):
        s = sb[name]
        facts = [s.kind] + ([f"owner {s.owner}"] if s.owner else [])
        facts += [f"{k} {_value(v)}" for k, v in sorted(s.attributes.items())]
        facts.append("next to " + (", ".join(new.adjacency.get(name, ())) or "nothing"))
        spaces.append(f"added {name} ({'; '.join(facts)})")
    spaces += [f"removed {n}" for n in sa if n not in sb]
    connections = []
    for name in (n for n in sa if n in sb):
        a, b = sa[name], sb[name]
        spaces += _changes(f"{name} ", {f: getattr(a, f) for f in _SPACE_FIELDS}, {f: getattr(b, f) for f in _SPACE_FIELDS})
        spaces += _changes(f"{name} ", dict(a.attributes), dict(b.attributes))
    pairs_a = {tuple(sorted((s, t))) for s, ns in old.adjacency.items() for t in ns}
    pairs_b = {tuple(sorted((s, t))) for s, ns in new.adjacency.items() for t in ns}
    connections += [f"added {s} - {t}" for s, t in sorted(pairs_b - pairs_a) if s in sa and t in sa]
    connections += [f"removed {s} - {t}" for s, t in sorted(pairs_a - pairs_b) if s in sb and t in sb]
    out.sections["spaces"] = spaces
    out.sections["connections"] = connections

    ca, cb = {c.name: c for c in old.canals}, {c.name: c for c in new.canals}
    canals = [f"added {n} ({', '.join(cb[n].sea_zones)}; held by {', '.join(cb[n].land) or 'no one'})"
              for n in cb if n not in ca]
    canals += [f"removed {n}" for n in ca if n not in cb]
    canals += [f"{n}: {', '.join(ca[n].sea_zones)} held by {', '.join(ca[n].land)} -> "
               f"{', '.join(cb[n].sea_zones)} held by {', '.join(cb[n].land)}"
               for n in ca if n in cb and (ca[n].sea_zones, ca[n].land) != (cb[n].sea_zones, cb[n].land)]
    out.sections["canals"] = canals

    start = []
    ua, ub = old.start.units, new.start.units
    for space in list(ua) + [s for s in ub if s not in ua]:
        owners_a, owners_b = ua.get(space, {}), ub.get(space, {})
        for owner in list(owners_a) + [o for o in owners_b if o not in owners_a]:
            units_a, units_b = dict(owners_a.get(owner, {})), dict(owners_b.get(owner, {}))
            if units_a != units_b:
                start.append(f"units in {space}, {owner}: {_units_text(units_a)} -> {_units_text(units_b)}")
    fa, fb = old.start.factories, new.start.factories
    for space in list(fa) + [s for s in fb if s not in fa]:
        a, b = fa.get(space), fb.get(space)
        if a != b:
            start.append(f"factory in {space}: {_value(a.owner if a else None)} -> {_value(b.owner if b else None)}"
                         + (f" ({b.kind})" if b and b.kind and (a is None or a.kind != b.kind) else ""))
    start += _changes("treasury ", {p: dict(v) for p, v in old.start.treasury.items()},
                      {p: dict(v) for p, v in new.start.treasury.items()})
    start += _changes("control ", dict(old.start.control), dict(new.start.control))
    out.sections["start"] = start
    return out
