"""The exact distributions of the formulas a variant changed, where they roll dice.

A comparison's games show what a rule does in play; the distributions show what it does on one
roll. For every formula the semantic diff names as changed, added or affected between the first
variant and another, and that rolls dice, each variant that has it is evaluated exactly (every
outcome with its probability, the same evaluator as `eval --exact`) on the variant's scenario.

Which arguments: a formula with parameters is evaluated with the arguments its rulesets' own rule
tests call it with, where those arguments are written as plain values (numbers, texts, lists and
records of them). Those are the cases the authors chose to illustrate the rule; enumerating every
space or unit instead would be large and arbitrary. A formula no test calls with plain values, or
whose distribution is too large for the exact evaluator, is listed in `skipped` with the reason.
"""

from __future__ import annotations

from ruleslang.base.diagnostics import DiagnosticError
from ruleslang.base.errors import EvalError
from ruleslang.lang.compose.composition import composition_rulesets_of
from ruleslang.lang.syntax import ast
from ruleslang.lang.syntax.expressions import (BoolLit, Call, DecimalLit, IntLit, ListLit, Name, NoneLit, RecordLit,
                                               SetLit, StringLit, Unary)
from ruleslang.lang.syntax.unparse import unparse
from ruleslang.lang.values import to_json
from ruleslang.workspace.session import compile_expression, make_context

# At most this many argument lists per formula: the report draws one panel per call.
MAX_CALLS_PER_FORMULA = 4
CHANGES = ("changed", "added", "affected")
PLAIN = (IntLit, DecimalLit, BoolLit, NoneLit, ListLit, SetLit, RecordLit,
         ast.Ident, Unary)


def _is_plain(node) -> bool:
    """A value written out: literals, lists, sets and records of them, a sign; no name, call or die."""
    for n in ast.walk(node):
        if isinstance(n, StringLit):
            if not n.is_plain:
                return False
        elif not isinstance(n, PLAIN):
            return False
    return True


def arguments_in_tests(loaded, name: str) -> list[tuple[str, ...]]:
    """The argument lists, as text, that the rule tests of `loaded`'s rulesets call `name` with, in the
    order the tests are written, each list once."""
    found: list[tuple[str, ...]] = []
    for ruleset in composition_rulesets_of(loaded.ruleset):
        for test in ruleset.tests:
            for node in ast.walk(test):
                if (isinstance(node, Call) and isinstance(node.func, Name) and node.func.id == name
                        and not node.kwargs and all(_is_plain(a) for a in node.args)):
                    args = tuple(unparse(a) for a in node.args)
                    if args not in found:
                        found.append(args)
    return found


def _random_formula(loaded, name: str) -> tuple | None:
    """The parameter types of `name` when it is a formula of `loaded` that rolls dice, else None."""
    types = loaded.program.formula_types.get(name)
    if types is None or not types[2]:
        return None
    return tuple(types[0] or ())


def changed_names(diff_json: dict) -> list[str]:
    """The names the diff reports as changed, added or affected, in its order."""
    return [c["name"] for c in diff_json["changes"] if c["change"] in CHANGES]


def _exact(loaded, workspace, text: str, scenario: str | None) -> list[dict]:
    node, size = compile_expression(loaded, text)
    ctx = make_context(loaded, workspace, scenario=scenario, seed=None, budget=None, settings=[])
    dist = loaded.compiled.exact_compiler.expr(node)([ctx] + [None] * (size - 1)).to_dist()
    return [{"value": to_json(value), "p": float(p)} for value, p in dist.outcomes]


def distributions(workspace, variants: list[tuple[str, object, str | None]], names: list[str]) -> dict:
    """`variants` are (name, loaded composition, scenario path or None); `names` the definitions the
    diffs named. Returns {"distributions": [...], "skipped": [...]} for the compare document."""
    out: list[dict] = []
    skipped: list[dict] = []
    for name in dict.fromkeys(names):
        having = [(v, loaded, scenario) for v, loaded, scenario in variants
                  if _random_formula(loaded, name) is not None]
        if not having:
            continue
        calls: list[tuple[str, ...]] = []
        for _, loaded, _ in having:
            params = _random_formula(loaded, name)
            for args in ([()] if not params else arguments_in_tests(loaded, name)):
                if len(args) == len(params) and args not in calls:
                    calls.append(args)
        if not calls:
            skipped.append({"definition": name, "reason": "no rule test calls it with plain values"})
            continue
        for args in calls[:MAX_CALLS_PER_FORMULA]:
            text = f"{name}({', '.join(args)})"
            for v, loaded, scenario in having:
                try:
                    values = _exact(loaded, workspace, text, scenario)
                except (DiagnosticError, EvalError) as exc:
                    message = exc.diagnostics[0].message if isinstance(exc, DiagnosticError) else exc.message
                    skipped.append({"definition": name, "variant": v, "args": list(args), "reason": message})
                    continue
                out.append({"variant": v, "definition": name, "args": list(args), "values": values})
    return {"distributions": out, "skipped": skipped}
