"""`ruleslang test --coverage`: the formulas, modifier lists, hooks, phases, steps and table rows of
the tested rulesets that no rule test reaches.

Each composition's tests run on a program compiled with a `Coverage` (lang/eval/coverage.py),
which records the names called and the table rows read; a name is traced back to the ruleset that
wrote its definition (a definition an override replaced and calls through `previous` counts for
the ruleset that wrote it). What a ruleset wrote counts as reached when any test run reaches it.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from ruleslang.lang.compose.previous import is_hidden_name
from ruleslang.lang.eval.coverage import Coverage
from ruleslang.lang.eval.program import CompiledProgram
from ruleslang.lang.syntax import ast
from ruleslang.lang.syntax.declarations import (CustomProcedure, DieTableDecl, FormulaDecl, HookDecl, ModifiersDecl,
                                                PhaseDecl, StepDecl, TableDecl)
from ruleslang.lang.syntax.unparse import unparse

# What is counted, by the word the report uses for it.
KINDS = ("formula", "hook", "procedure", "table row")


@dataclass(frozen=True)
class Item:
    """One thing a test may reach: a definition, or one row of a table."""

    kind: str  # one of KINDS
    origin: str  # the ruleset that wrote it
    name: str
    row: int | None  # a table row's index (0 for the first), else None
    file: str
    line: int
    text: str  # how it reads: the definition's kind and name, or the row

    def to_json(self) -> dict:
        out = {"kind": self.kind, "ruleset": self.origin, "name": self.name, "file": self.file, "line": self.line,
               "text": self.text}
        if self.row is not None:
            out["row"] = self.row + 1
        return out


def _real_name(name: str) -> str:
    """The name a ruleset wrote (a definition kept for `previous` is filed as NAME@ORIGIN)."""
    return name.split("@", 1)[0] if is_hidden_name(name) else name


def _items_of(name: str, decl, origin: str) -> list[Item]:
    span = decl.name.span
    where = (span.source.display_name, span.line)
    name = _real_name(name)
    if isinstance(decl, (FormulaDecl, ModifiersDecl)):
        return [Item("formula", origin, name, None, *where, f"{decl.kind} {name}")]
    if isinstance(decl, HookDecl):
        return [Item("hook", origin, name, None, *where, f"hook {name}")]
    if isinstance(decl, (PhaseDecl, StepDecl)) and isinstance(decl.procedure, CustomProcedure):
        return [Item("procedure", origin, name, None, *where, f"{decl.kind} {name}")]
    if isinstance(decl, (TableDecl, DieTableDecl)):
        return [Item("table row", origin, name, i, row.span.source.display_name, row.span.line,
                     f"{name}: " + ", ".join(_key_text(k) for k in row.keys) + " -> "
                     + ", ".join(unparse(v) for v in row.values))
                for i, row in enumerate(decl.rows)]
    return []


def _key_text(key) -> str:
    return unparse(key) if isinstance(key, ast.Node) else str(key)


class CoverageReport:
    """What the tests of several rulesets reach, gathered run by run."""

    def __init__(self):
        self.items: dict[tuple, Item] = {}
        self.reached: set[tuple] = set()

    def run(self, runner, loaded, keyword: str | None = None) -> list:
        """Run the tests of `loaded` (through `runner`) recording what they reach; their results."""
        ruleset = loaded.ruleset
        for name, d in ruleset.live().items():
            if d.origin == ruleset.ref and not is_hidden_name(name):
                for item in _items_of(name, d.decl, d.origin):
                    self.items.setdefault(_key(item), item)
        coverage = Coverage()
        results = runner.run(replace(loaded, compiled=CompiledProgram(loaded.program, coverage)), keyword)
        defs = ruleset.definitions
        for name in coverage.reached:
            d = defs.get(name)
            if d is not None:
                self.reached.add((d.origin, _real_name(name), None))
        for name, row in coverage.rows:
            d = defs.get(name)
            if d is not None:
                self.reached.add((d.origin, _real_name(name), row))
        return results

    def missed(self) -> list[Item]:
        """What no test reached, file by file in the order written."""
        return sorted((i for k, i in self.items.items() if k not in self.reached),
                      key=lambda i: (i.file, i.line, i.row or 0))

    def counts(self) -> dict[str, dict[str, int]]:
        out = {kind: {"reached": 0, "total": 0} for kind in KINDS}
        for key, item in self.items.items():
            out[item.kind]["total"] += 1
            out[item.kind]["reached"] += key in self.reached
        return out

    def to_json(self) -> dict:
        return {"counts": self.counts(), "not_reached": [i.to_json() for i in self.missed()]}

    def to_text(self) -> str:
        counts = self.counts()
        parts = [f"{c['reached']} of {c['total']} {kind}s" for kind, c in counts.items() if c["total"]]
        lines = ["coverage: " + (", ".join(parts) if parts else "nothing to reach") + " reached by the rule tests"]
        missed = self.missed()
        if missed:
            lines.append("not reached:")
            lines.extend(f"  {i.file}:{i.line}: {i.text}" for i in missed)
        return "\n".join(lines)


def _key(item: Item) -> tuple:
    return (item.origin, item.name, item.row)
