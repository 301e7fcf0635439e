"""Semantic diff between two rulesets (or two revisions of one).

Compares definitions, not text: per name, what was added, removed or changed; for formulas the
sub-expressions that changed (a wrapper dropped or added is named as such), the definitions it
no longer or newly uses, and the changed definitions it depends on; for tables the rows and
columns; for modifier lists the terms; for units the attributes; for phases, steps, hooks and the
other blocks of statements, the lines that changed (as a unified diff of their text). An added or
removed definition is shown whole.
"""

from __future__ import annotations

import difflib
import textwrap
from dataclasses import dataclass, field, fields, replace

from ruleslang.lang.syntax import ast
from ruleslang.lang.syntax.expressions import Binary, BoolLit, DecimalLit, If, IntLit, Name, NoneLit, StringLit
from ruleslang.lang.syntax.declarations import (AttributeDecl, ConstantDecl, CounterDecl, DieTableDecl, EnumDecl,
                                                FormulaDecl, ModTerm, ModifiersDecl, OptionDecl, SequenceDecl,
                                                SideDecl, TableDecl, TableRow, TagDecl, UnitDecl)
from ruleslang.lang.compose.composition import Ruleset
from ruleslang.lang.compose.previous import extended, is_hidden_name
from ruleslang.lang.syntax.unparse import signature, unparse, unparse_type


@dataclass
class Change:
    name: str
    kind: str
    change: str  # "added", "removed", "changed"
    details: list[str] = field(default_factory=list)

    def to_json(self) -> dict:
        return {"name": self.name, "kind": self.kind, "change": self.change, "details": self.details}


@dataclass
class RulesetDiff:
    old: str
    new: str
    changes: list[Change]
    unchanged: int
    tests_added: list[str]
    tests_removed: list[str]
    header: list[str] = field(default_factory=list)  # a changed map or `uses`

    def to_json(self) -> dict:
        return {"from": self.old, "to": self.new, "header": self.header, "changes": [c.to_json() for c in self.changes],
                "unchanged": self.unchanged, "tests_added": self.tests_added, "tests_removed": self.tests_removed}

    def to_text(self) -> str:
        lines = [f"{self.old} -> {self.new}"]
        lines.extend(f"  {line}" for line in self.header)
        if not self.changes:
            lines.append("  no definition changed")
        for c in self.changes:
            # tags and attributes are filed as `tag NAME` (their own namespaces): the kind says it once
            name = c.name.removeprefix(c.kind + " ") if c.kind in ("tag", "attribute") else c.name
            lines.append(f"  {c.change} {c.kind} {name}")
            lines.extend(f"      {line}" for d in c.details for line in d.split("\n"))
        if self.unchanged:
            lines.append(f"  unchanged: {self.unchanged} definition(s)")
        for label, tests in (("added", self.tests_added), ("removed", self.tests_removed)):
            if len(tests) > 3:
                lines.append(f"  tests {label}: {len(tests)} (--format json lists them)")
            elif tests:
                lines.append(f"  tests {label}: " + "; ".join(tests))
        return "\n".join(lines)


def diff_rulesets(old: Ruleset, new: Ruleset) -> RulesetDiff:
    (a, extends_a), (b, extends_b) = _as_written(old), _as_written(new)
    changes: list[Change] = []
    changed_names: dict[str, str] = {}
    for name in list(a) + [n for n in b if n not in a]:
        da, db = a.get(name), b.get(name)
        if da is None:
            changes.append(Change(name, db.decl.kind, "added", _whole(db.decl)))
            changed_names[name] = "added"
        elif db is None:
            changes.append(Change(name, da.decl.kind, "removed", _whole(da.decl)))
            changed_names[name] = "removed"
        elif da.decl != db.decl or extends_a.get(name) != extends_b.get(name):
            changes.append(Change(name, db.decl.kind, "changed", _decl_details(da.decl, db.decl)))
            changed_names[name] = _short_change(da.decl, db.decl)
        else:
            continue
        if name in extends_b:
            origin = new.live()[extends_b[name]].origin
            changes[-1].details.append(f"previous: the {name} of {origin}, which this override extends")
    _add_dependency_notes(changes, a, b, changed_names)
    _still_used_through_previous(changes, new.live(), extends_b)
    unchanged = sum(1 for n in a if n in b and a[n].decl == b[n].decl)
    old_tests = {t.title for t in old.tests}
    new_tests = {t.title for t in new.tests}
    return RulesetDiff(old.ref, new.ref, changes, unchanged,
                       [t.title for t in new.tests if t.title not in old_tests],
                       [t.title for t in old.tests if t.title not in new_tests], _header_changes(old, new))


def _header_changes(old: Ruleset, new: Ruleset) -> list[str]:
    """The map and the rulesets used, where they differ (the other header lines are notes)."""
    out = []
    map_a, map_b = _map_of(old), _map_of(new)
    if map_a != map_b:
        out.append(f"map: {map_a or 'none'} -> {map_b or 'none'}")
    uses_a, uses_b = _uses_of(old), _uses_of(new)
    if uses_a != uses_b:
        out.append(f"uses: {', '.join(uses_a) or 'nothing'} -> {', '.join(uses_b) or 'nothing'}")
    return out


def _map_of(ruleset: Ruleset) -> str | None:
    """The map a ruleset is written for, its own or (a revision) the one of what it revises."""
    while ruleset is not None and ruleset.map is None:
        ruleset = ruleset.revises
    return ruleset.map[0] if ruleset is not None else None


def _uses_of(ruleset: Ruleset) -> list[str]:
    """The rulesets a ruleset uses, a revision's together with those of what it revises."""
    refs = _uses_of(ruleset.revises) if ruleset.revises is not None else []
    return refs + [r.ref for r in ruleset.uses if r.ref not in refs]


def _as_written(ruleset: Ruleset) -> tuple[dict, dict[str, str]]:
    """The definitions in force as their authors wrote them: the definitions an override replaced
    and still calls (kept under hidden names, lang/compose/previous.py) left out, and `previous`
    written again where an override names them; with, for each such override, the ruleset whose
    definition it extends."""
    live = ruleset.live()
    hidden = {n for n in live if is_hidden_name(n)}
    out, extends = {}, {}
    for name, d in live.items():
        if name in hidden:
            continue
        decl, target = extended(d.decl, hidden) if hidden else (d.decl, None)
        if target is not None:
            d = replace(d, decl=decl)
            extends[name] = target
        out[name] = d
    return out, extends


def _still_used_through_previous(changes: list[Change], live: dict, extends: dict[str, str]) -> None:
    """An override that calls `previous` still uses what the definition it extends uses."""
    for c in changes:
        if c.name not in extends:
            continue
        through = _uses(live[extends[c.name]].decl)
        details = []
        for d in c.details:
            if d.startswith("no longer uses: "):
                gone = [n for n in d[len("no longer uses: "):].split(", ") if n not in through]
                d = "no longer uses: " + ", ".join(gone) if gone else ""
            if d:
                details.append(d)
        c.details = details


def _describe(decl) -> str | None:
    if isinstance(decl, (ModifiersDecl, TableDecl, UnitDecl, DieTableDecl)) or _is_block(decl):
        return "\n".join(_text_lines(decl))
    if isinstance(decl, AttributeDecl):
        default = f" = {unparse(decl.default)}" if decl.default is not None else ""
        return f"{'space ' if decl.on_spaces else ''}attribute {decl.name.text}: {unparse_type(decl.type)}{default}"
    if isinstance(decl, CounterDecl):
        return "\n".join(_text_lines(decl))
    if isinstance(decl, TagDecl):
        return None  # the name is all a tag has
    if isinstance(decl, (FormulaDecl, ModifiersDecl, TableDecl, CounterDecl)):
        text = signature(decl)
        if isinstance(decl, FormulaDecl):
            text += " = " + unparse(decl.body)
        return text
    if isinstance(decl, ConstantDecl):
        return f"{decl.name.text} = {unparse(decl.value)}"
    if isinstance(decl, OptionDecl):
        return f"{decl.name.text}: {unparse_type(decl.type)} = {unparse(decl.default)}"
    return decl.name.text


def _whole(decl) -> list[str]:
    """An added or removed definition shown whole (a tag: by its name alone)."""
    text = _describe(decl)
    return [text] if text is not None else []


def _short_change(a, b) -> str:
    if isinstance(a, ConstantDecl) and isinstance(b, ConstantDecl):
        return f"{unparse(a.value)} -> {unparse(b.value)}"
    return "changed"


# ------------------------------------------------------------------------ declarations


def _decl_details(a, b) -> list[str]:
    if type(a) is not type(b):
        return [f"was a {a.kind}, now a {b.kind}", f"was: {_describe(a)}", f"now: {_describe(b)}"]
    out: list[str] = []
    if isinstance(a, (FormulaDecl, ModifiersDecl, TableDecl, CounterDecl)):
        sa, sb = signature(a), signature(b)
        if sa != sb:
            out.append(f"signature: {sa} -> {sb}")
    if isinstance(a, ConstantDecl):
        out.append(f"{unparse(a.value)} -> {unparse(b.value)}")
    elif isinstance(a, OptionDecl):
        if a.default != b.default:
            out.append(f"default: {unparse(a.default)} -> {unparse(b.default)}")
        if a.type != b.type:
            out.append(f"type: {unparse_type(a.type)} -> {unparse_type(b.type)}")
    elif isinstance(a, FormulaDecl):
        out.extend(_formula_details(a, b))
    elif isinstance(a, ModifiersDecl):
        out.extend(_modifier_details(a, b))
    elif isinstance(a, (TableDecl, DieTableDecl)):
        out.extend(_table_details(a, b))
    elif isinstance(a, UnitDecl):
        out.extend(_unit_details(a, b))
    elif isinstance(a, SequenceDecl):
        out.append(f"{', '.join(i.text for i in a.items)} -> {', '.join(i.text for i in b.items)}")
    elif isinstance(a, (EnumDecl, SideDecl)):
        ma, mb = [m.text for m in a.members], [m.text for m in b.members]
        out.append(f"{', '.join(ma)} -> {', '.join(mb)}")
    elif _is_block(a):
        out.extend(_block_details(a, b))
    if not out:
        out.append("definition changed")
    return out


def _is_block(decl) -> bool:
    """A definition written as a block of statements (a phase, step, hook, constraint, advice ...)."""
    return not isinstance(decl, (FormulaDecl, ModifiersDecl, TableDecl, DieTableDecl, UnitDecl,
                                 ConstantDecl, OptionDecl, CounterDecl, SequenceDecl, EnumDecl,
                                 SideDecl)) and decl.span is not None and "\n" in _text(decl)


def _text(decl) -> str:
    span = decl.span
    return span.source.text[span.start:span.end]


def _text_lines(decl) -> list[str]:
    """A definition as written, its comments and blank lines at the end left out."""
    lines = textwrap.dedent(_text(decl)).rstrip().splitlines()
    while lines and lines[-1].strip().startswith("#"):
        lines.pop()
    return lines


def _block_details(a, b) -> list[str]:
    """The lines of a block of statements that changed, as a unified diff (one line of context)."""
    diff = difflib.unified_diff(_text_lines(a), _text_lines(b), lineterm="", n=1)
    lines = [line for line in diff if not line.startswith(("---", "+++"))]
    return lines or ["its text is the same; what changed is where it sits or a comment"]


def _formula_details(a: FormulaDecl, b: FormulaDecl) -> list[str]:
    out = []
    la = {l.name.text: l for l in a.lets}
    lb = {l.name.text: l for l in b.lets}
    for name in la:
        if name not in lb:
            out.append(f"let {name} removed (was {unparse(la[name].value)})")
        elif la[name].value != lb[name].value:
            out.append(f"let {name}: {unparse(la[name].value)} -> {unparse(lb[name].value)}")
    for name in lb:
        if name not in la:
            out.append(f"let {name} added: {unparse(lb[name].value)}")
    if a.body != b.body:
        out.append(f"was: {unparse(a.body)}")
        out.append(f"now: {unparse(b.body)}")
        out.extend(diff_expr(a.body, b.body))
    return out


def _modifier_details(a: ModifiersDecl, b: ModifiersDecl) -> list[str]:
    out = []
    ta = {t.reason.plain if t.reason.is_plain else unparse(t.reason): t for t in a.items if isinstance(t, ModTerm)}
    tb = {t.reason.plain if t.reason.is_plain else unparse(t.reason): t for t in b.items if isinstance(t, ModTerm)}
    for reason, t in ta.items():
        if reason not in tb:
            out.append(f"term removed: {_term(t)}")
        elif t != tb[reason]:
            out.append(f"term changed: {_term(t)} -> {_term(tb[reason])}")
    for reason, t in tb.items():
        if reason not in ta:
            out.append(f"term added: {_term(t)}")
    return out


def _term(t: ModTerm) -> str:
    text = f"{t.sign}{unparse(t.value)}"
    if t.condition is not None:
        text += f" when {unparse(t.condition)}"
    return f"{text} \"{t.reason.plain if t.reason.is_plain else unparse(t.reason)}\""


def _row_key(row: TableRow) -> str:
    return ", ".join(unparse(k) for k in row.keys)


def _table_details(a, b) -> list[str]:
    out = []
    if isinstance(a, TableDecl) and a.columns != b.columns:
        ca = [c.name.text for c in a.columns or ()]
        cb = [c.name.text for c in b.columns or ()]
        removed = [c for c in ca if c not in cb]
        added = [c for c in cb if c not in ca]
        if removed:
            out.append("columns removed: " + ", ".join(removed))
        if added:
            out.append("columns added: " + ", ".join(added))
    ra = {_row_key(r): r for r in a.rows}
    rb = {_row_key(r): r for r in b.rows}
    cols = [c.name.text for c in (getattr(b, "columns", None) or ())] or None
    for key, row in ra.items():
        if key not in rb:
            out.append(f"row removed: {key} -> {', '.join(unparse(v) for v in row.values)}")
        elif row.values != rb[key].values:
            if cols and len(row.values) == len(rb[key].values) == len(cols):
                parts = [f"{c} {unparse(x)} -> {unparse(y)}" for c, x, y in zip(cols, row.values, rb[key].values)
                         if x != y]
                out.append(f"row {key}: " + "; ".join(parts))
            else:
                out.append(f"row {key}: {', '.join(unparse(v) for v in row.values)} -> "
                           f"{', '.join(unparse(v) for v in rb[key].values)}")
    for key, row in rb.items():
        if key not in ra:
            out.append(f"row added: {key} -> {', '.join(unparse(v) for v in row.values)}")
    return out


def _unit_details(a: UnitDecl, b: UnitDecl) -> list[str]:
    out = []
    if a.title != b.title:
        out.append(f"title: {a.title or '(none)'} -> {b.title or '(none)'}")
    aa = {i.text: v for i, v in a.attributes}
    ab = {i.text: v for i, v in b.attributes}
    for name in list(aa) + [n for n in ab if n not in aa]:
        x, y = aa.get(name), ab.get(name)
        if x != y:
            out.append(f"{name}: {unparse(x) if x is not None else '(default)'} -> "
                       f"{unparse(y) if y is not None else '(default)'}")
    ta = [t.text for t in a.tags or ()]
    tb = [t.text for t in b.tags or ()]
    if ta != tb:
        gained, lost = [t for t in tb if t not in ta], [t for t in ta if t not in tb]
        if gained or lost:
            out.append("tags: " + "; ".join(f"{label} {', '.join(ts)}" for label, ts in (("added", gained),
                                                                                      ("removed", lost)) if ts))
        else:
            out.append(f"tags: order {', '.join(ta)} -> {', '.join(tb)}")
    return out


# -------------------------------------------------------------------------- expressions


def _subtrees(node):
    for n in ast.walk(node):
        if isinstance(n, ast.Node) and not isinstance(n, ast.Ident):
            yield n


def _replace(node, target, hole):
    """`node` with the subtree `target` (by identity) replaced by `hole`, as text."""
    def rebuild(n):
        if n is target:
            return hole
        if not isinstance(n, ast.Node):
            if isinstance(n, tuple):
                return tuple(rebuild(x) for x in n)
            return n
        values = {}
        for f in fields(n):
            if f.name == "span":
                continue
            values[f.name] = rebuild(getattr(n, f.name))
        return type(n)(**values, span=n.span)
    return unparse(rebuild(node))


def _same_shape(a, b) -> bool:
    if type(a) is not type(b):
        return False
    for f in fields(a):
        if f.name == "span":
            continue
        x, y = getattr(a, f.name), getattr(b, f.name)
        if isinstance(x, tuple) and isinstance(y, tuple):
            if len(x) != len(y):
                return False
            continue
        if isinstance(x, ast.Node) or isinstance(y, ast.Node):
            continue
        if x != y:
            return False
    return True


def _branches(node) -> list[tuple]:
    """An if / else if chain as [(condition, value), ..., (None, final else)]."""
    out = []
    while isinstance(node, If):
        out.append((node.cond, node.then))
        node = node.else_
    out.append((None, node))
    return out


def _branch_text(cond, value) -> str:
    return f"if {unparse(cond)} then {unparse(value)}" if cond is not None else f"else {unparse(value)}"


def _diff_branches(a, b) -> list[str]:
    """Conditional chains compared branch by branch, branches matched by their condition."""
    ba, bb = _branches(a), _branches(b)
    conds_b = [c for c, _ in bb]
    conds_a = [c for c, _ in ba]
    out = []
    for cond, value in ba:
        if cond is not None and cond not in conds_b:
            out.append(f"branch removed: {_branch_text(cond, value)}")
    for i, (cond, value) in enumerate(bb):
        if cond is not None and cond not in conds_a:
            where = "first" if i == 0 else f"after {_branch_text(*bb[i - 1])}"
            out.append(f"branch added ({where}): {_branch_text(cond, value)}")
    for cond, value in ba:
        if cond is None:
            continue
        for cond2, value2 in bb:
            if cond2 == cond and value2 != value:
                out.append(f"when {unparse(cond)}: {unparse(value)} -> {unparse(value2)}")
    if ba[-1][1] != bb[-1][1]:
        out.append(f"otherwise: {unparse(ba[-1][1])} -> {unparse(bb[-1][1])}")
    return out


def _substantial(node) -> bool:
    """Big enough that "the rest was dropped around it" says something (not a lone number or name)."""
    return not isinstance(node, (IntLit, DecimalLit, BoolLit, NoneLit, StringLit, Name))


def diff_expr(a, b) -> list[str]:
    """What changed between two expressions, as readable lines."""
    if a == b:
        return []
    if isinstance(a, If) and isinstance(b, If):
        return _diff_branches(a, b)
    hole = Name("_", span=a.span)
    inner = next((n for n in _subtrees(a) if n is not a and n == b), None) if _substantial(b) else None
    if inner is not None:
        return [f"dropped: {_replace(a, inner, hole)} (kept {unparse(b)})"]
    inner = next((n for n in _subtrees(b) if n is not b and n == a), None) if _substantial(a) else None
    if inner is not None:
        return [f"added: {_replace(b, inner, hole)} (around {unparse(a)})"]
    if _same_shape(a, b):
        out: list[str] = []
        for f in fields(a):
            if f.name == "span":
                continue
            x, y = getattr(a, f.name), getattr(b, f.name)
            if isinstance(x, ast.Node) and isinstance(y, ast.Node):
                out.extend(diff_expr(x, y))
            elif isinstance(x, tuple):
                for xi, yi in zip(x, y):
                    if isinstance(xi, ast.Node) and isinstance(yi, ast.Node):
                        out.extend(diff_expr(xi, yi))
                    elif isinstance(xi, tuple) and isinstance(yi, tuple):
                        for p, q in zip(xi, yi):
                            if isinstance(p, ast.Node) and isinstance(q, ast.Node):
                                out.extend(diff_expr(p, q))
        if out:
            return out
    if isinstance(a, Binary) and isinstance(b, Binary) and a.op != b.op:
        return [f"operator {a.op} -> {b.op} in {unparse(b)}"]
    return [f"changed: {unparse(a)} -> {unparse(b)}"]


# --------------------------------------------------------------------------- dependencies


def _uses(decl) -> set[str]:
    return {n.id for n in ast.walk(decl) if isinstance(n, Name)}


def _add_dependency_notes(changes: list[Change], a: dict, b: dict, changed: dict[str, str]) -> None:
    """For each changed or unchanged formula, the changed definitions it uses (directly or through others)."""
    by_name = {c.name: c for c in changes}
    for name, d in b.items():
        decl = d.decl
        if not isinstance(decl, (FormulaDecl, ModifiersDecl, ConstantDecl, TableDecl)):
            continue
        old = a.get(name)
        direct_new = {n for n in _uses(decl) if n in b}
        if old is not None and old.decl != decl:
            direct_old = {n for n in _uses(old.decl) if n in a}
            note = by_name[name]
            gone = sorted(direct_old - direct_new)
            new = sorted(direct_new - direct_old)
            if gone:
                note.details.append("no longer uses: " + ", ".join(gone))
            if new:
                note.details.append("now uses: " + ", ".join(new))
        affected = _affected_by(name, b, changed, set())
        affected = [x for x in affected if x[0] != name]
        if not affected:
            continue
        text = "affected by: " + "; ".join(
            f"{dep} ({changed[dep]})" + (f" via {via}" if via != name else "") for dep, via in affected)
        if name in by_name:
            by_name[name].details.append(text)
        elif old is not None:
            c = Change(name, decl.kind, "affected", [text])
            changes.append(c)
            by_name[name] = c


def _affected_by(name: str, defs: dict, changed: dict[str, str], seen: set, via: str | None = None):
    """Changed definitions reachable from `name` through what it uses: [(dep, first hop)]."""
    out = []
    d = defs.get(name)
    if d is None or name in seen:
        return out
    seen.add(name)
    for dep in sorted(_uses(d.decl)):
        if dep == name or dep not in defs:
            continue
        hop = via or name
        if dep in changed and dep != name:
            out.append((dep, hop if via else name))
        out.extend(_affected_by(dep, defs, changed, seen, hop if via else dep))
    return out
