"""Joining a scenario and option settings to a compiled program, in one place.

Every place where a scenario meets a composition of rulesets comes through here: the commands
(eval, call, explain: `make_context`), the rule tests, `ruleslang check`'s invariants and the
games of the runtime. The scenario is checked against the rulesets first (scenario_check.py), so
a mismatch is a located error; then its options and facts are set, then the `--set` values,
which win over the scenario's.
"""

from __future__ import annotations

import json
from typing import Any, Iterable, Sequence

from ruleslang.base.diagnostics import DiagnosticError, error
from ruleslang.base.errors import EvalError
from ruleslang.base.limits import MAX_NESTING, MAX_NUMBER_DIGITS
from ruleslang.base.source import Source, Span
from ruleslang.base.suggest import did_you_mean
from ruleslang.binding.scenario_check import check_scenario
from ruleslang.board.mapdata import load_map
from ruleslang.board.queries import BoardQueries
from ruleslang.board.scenario import Scenario, load_scenario
from ruleslang.board.state import GameState
from ruleslang.lang.compose.loader import Loader
from ruleslang.lang.eval.context import EvalContext
from ruleslang.lang.eval.host import Host


def load_scenario_for_map(map_name: str, roots: Sequence) -> Scenario:
    """The starting position of a map, as a scenario."""
    return Scenario.start_of(load_map(map_name, roots))


def default_map_of(compiled) -> str | None:
    """The name of the map the compiled rulesets are written for (None when they name none)."""
    ruleset_map = compiled.program.ruleset.map
    return ruleset_map[0] if ruleset_map else None


def scenario_or_start(name: str | None, roots: Sequence, default_map: str | None) -> Scenario | None:
    """The scenario `name` (a file or family/name), else the start of `default_map`, else None."""
    if name is not None:
        return load_scenario(name, roots, default_map=default_map)
    if default_map is not None:
        return load_scenario_for_map(default_map, roots)
    return None


def bind_scenario(ctx: EvalContext, scenario: Scenario, loader: Loader, *, options: dict | None = None) -> None:
    """Check `scenario` against the context's rulesets, then set its options and facts and then `options`.

    `options` are values already converted (`parse_settings`); they win over the scenario's.
    """
    check_scenario(ctx.compiled, scenario, loader)
    set_scenario_values(ctx, scenario, options=options)


def set_scenario_values(ctx: EvalContext, scenario: Scenario, *, options: dict | None = None) -> None:
    """The options and facts of a scenario already checked (`check_scenario`), then `options`."""
    compiled = ctx.compiled
    symbols = compiled.symbols
    for name, raw in (scenario.options or {}).items():
        value = raw.value if hasattr(raw, "value") else raw
        ctx.options[name] = compiled.convert_data(value, symbols[name].type, f"option {name}")
    for name, value in (scenario.facts or {}).items():
        sym = symbols.get(name)
        if sym is None or sym.kind != "fact":
            continue
        ctx.facts[name] = compiled.convert_data(value, sym.type, f"fact {name}")
    for name, value in (options or {}).items():
        ctx.options[name] = value


def make_context(compiled, loader: Loader, *, scenario: str | None = None, seed: int | None = None,
                 budget: int | None = None, settings: Iterable[str] = ()) -> EvalContext:
    """A context for a command: the scenario's board (or the map's start), its options and facts, and --set values.

    `scenario` is a file or family/name; `settings` are `NAME=VALUE` texts (`parse_setting`).
    """
    scn = scenario_or_start(scenario, loader.roots, default_map_of(compiled))
    state = board = None
    if scn is not None:
        state = GameState.from_scenario(scn)
        board = BoardQueries(state)
    host = Host(seed if seed is not None else 0)
    if budget is not None:
        host.reset_budget(budget)
    ctx = EvalContext(compiled, host, state=state, board=board)
    if scn is not None:
        bind_scenario(ctx, scn, loader)
    for text in settings:
        name, value = parse_setting(text, compiled)
        ctx.options[name] = value
    return ctx


def parse_settings(texts: Iterable[str], compiled) -> dict[str, Any]:
    """`NAME=VALUE` texts (--set) as option values by name, in order (a later one wins)."""
    return dict(parse_setting(text, compiled) for text in texts)


def parse_setting(text: str, compiled) -> tuple[str, Any]:
    """`NAME=VALUE` for --set: VALUE is JSON or a bare name, converted to the option's type."""
    source = Source("<--set>", text)
    if "=" not in text:
        raise DiagnosticError(error("U101", f"--set takes NAME=VALUE, found '{text}'", Span(source, 0, len(text))))
    name, raw = text.split("=", 1)
    sym = compiled.symbols.get(name.strip())
    if sym is None or sym.kind != "option":
        options = [n for n, s in compiled.symbols.items() if s.kind == "option"]
        raise DiagnosticError(error(
            "U102", f"'{name.strip()}' is not an option of these rulesets", Span(source, 0, len(name)),
            hint=did_you_mean(name.strip(), options, n=3) or
            ("options: " + ", ".join(options) if options else "these rulesets declare no options")))
    try:
        value = compiled.convert_data(parse_json_or_name(raw), sym.type, f"option {sym.name}")
    except EvalError as e:
        raise DiagnosticError(error("U103", e.message, Span(source, len(name) + 1, len(text))))
    return sym.name, value


def parse_json_or_name(text: str) -> Any:
    """A command-line value: JSON when it parses as JSON, otherwise the text itself (a name).

    Raises EvalError for a number written with too many digits (E509) and for JSON nested past
    the nesting limit (E510), which Python's JSON reader would meet as internal errors."""
    if _json_depth(text) > MAX_NESTING:
        raise EvalError("E510", f"the value nests deeper than {MAX_NESTING} levels")
    try:
        return json.loads(text, parse_int=_json_int, parse_float=_json_decimal)
    except json.JSONDecodeError:
        return text


def _json_depth(text: str) -> int:
    """How deep the brackets of a JSON text nest (brackets inside strings are counted too: an upper bound)."""
    depth = deepest = 0
    for ch in text:
        if ch in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif ch in "]}":
            depth -= 1
    return deepest


def _json_int(digits: str) -> int:
    _check_digits(digits)
    return int(digits)


def _json_decimal(digits: str) -> float:
    _check_digits(digits)
    return float(digits)


def _check_digits(text: str) -> None:
    count = sum(ch.isdigit() for ch in text)
    if count > MAX_NUMBER_DIGITS:
        raise EvalError("E509", f"number written with {count} digits; at most {MAX_NUMBER_DIGITS} are allowed")
