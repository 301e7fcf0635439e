"""A scenario against the rulesets it is used with: one map, declared unit types, known refs.

A scenario is checked against its map when it is loaded (board/scenario.py). Where it meets a
composition of rulesets — eval, call, explain, a rule test, `ruleslang check` of a test's
scenario, a game — `scenario_problems` checks it against those rulesets too, before anything
is evaluated, so a mismatch is a located error and not a failed lookup inside some query.

    G703 the scenario is on another map than the rulesets
    D633 an option the rulesets do not declare, or a value of the wrong type
    D670 a unit type no ruleset declares
    D671 a `rulesets:` entry that names no ruleset
"""

from __future__ import annotations

from pathlib import Path

from ruleslang.lang.syntax.declarations import RefLit
from ruleslang.base.diagnostics import Diagnostic, DiagnosticError, Related, error
from ruleslang.base.errors import EvalError
from ruleslang.lang.compose.loader import Loader, parse_ref, without_mark
from ruleslang.base.suggest import did_you_mean
from ruleslang.base.yamlio import format_path


def scenario_problems(compiled, scenario, loader: Loader) -> list[Diagnostic]:
    """Every way `scenario` does not fit the compiled rulesets (empty when it fits)."""
    program = compiled.program
    return [*_map_problems(program.ruleset.map, scenario),
            *_unit_problems(list(program.scope.enums["unittype"].by_name), scenario),
            *_ruleset_problems(scenario, loader),
            *_option_problems(compiled, scenario)]


def check_scenario(compiled, scenario, loader: Loader) -> None:
    """Raise `DiagnosticError` with every problem of `scenario_problems`, if there is one."""
    problems = scenario_problems(compiled, scenario, loader)
    if problems:
        raise DiagnosticError(problems)


def _map_problems(ruleset_map, scenario) -> list[Diagnostic]:
    if ruleset_map is None or scenario.map.name == ruleset_map[0]:
        return []
    name, span = ruleset_map
    where = scenario.name_spans.get(("map",))
    return [error("G703", f"map: the scenario is on the map '{scenario.map.name}', but the rulesets are "
                          f"written for the map '{name}'", where,
                  related=[Related(span, f"the rulesets name the map '{name}' here")],
                  hint=f"use a scenario on the map '{name}', or rulesets written for '{scenario.map.name}'",
                  file=None if where is not None else _file_of(scenario))]


def _unit_problems(declared: list[str], scenario) -> list[Diagnostic]:
    out = []
    for key, span in scenario.name_spans.items():
        if key[0] != "units" or key[3] in declared:
            continue
        unit_type = key[3]
        hint = did_you_mean(unit_type, declared) or (
            "unit types of these rulesets: " + ", ".join(declared) if declared else
            "these rulesets declare no unit types")
        out.append(error("D670", f"{format_path(key)}: '{unit_type}' is not a unit type of these rulesets",
                         span, hint=hint, file=None if span is not None else _file_of(scenario)))
    return out


def _ruleset_problems(scenario, loader: Loader) -> list[Diagnostic]:
    out = []
    folder = scenario.path.parent if scenario.path is not None else None
    for i, text in enumerate(scenario.rulesets):
        span = scenario.name_spans.get(("rulesets", i))
        try:
            ref = without_mark(text)
            loader.locate(RefLit(ref, parse_ref(ref) is None, span=span), folder)
        except DiagnosticError as exc:
            found = exc.diagnostics[0]
            # a missing version is best answered by the versions there are
            close = None if found.code == "S003" else did_you_mean(text, _known_refs(loader))
            out.append(error("D671", f"rulesets[{i}]: {found.message}", span,
                             hint=close or found.hint,
                             file=None if span is not None else _file_of(scenario)))
    return out


def _known_refs(loader: Loader) -> list[str]:
    refs = loader.known_refs()
    return refs + sorted({r.split("@")[0] for r in refs})


def _option_problems(compiled, scenario) -> list[Diagnostic]:
    out = []
    options = [n for n, s in compiled.symbols.items() if s.kind == "option"]
    for name, raw in (scenario.options or {}).items():
        sym = compiled.symbols.get(name)
        span = getattr(raw, "span", None)
        if sym is None or sym.kind != "option":
            out.append(error("D633", f"the scenario sets '{name}', which is not an option of these rulesets", span,
                             hint=did_you_mean(name, options)))
            continue
        try:
            compiled.convert_data(getattr(raw, "value", raw), sym.type, f"option {name}")
        except EvalError as e:
            out.append(error("D633", e.message, span))
    return out


def _file_of(scenario) -> str | None:
    return str(scenario.path) if isinstance(scenario.path, Path) else None
