"""The command line. `main(argv) -> int`: 0 clean, 1 errors (or failed tests), 2 usage.

Only this module turns diagnostics into output and exit codes.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Sequence

from ruleslang import __version__
from ruleslang.base.diagnostics import Diagnostic, DiagnosticError, has_errors, render_all_text, render_json

EXIT_OK, EXIT_ERRORS, EXIT_USAGE = 0, 1, 2

DESCRIPTION = """\
ruleslang: house rules for Axis & Allies-style games as versioned, checked, runnable data.

A REF names a ruleset: family/name@N, family/name (the newest version), or a path to a .rules
file. Rulesets are looked up in --rulesets folders, ./rulesets, and the rulesets shipped with
ruleslang (run `ruleslang list` to see them).
"""

EPILOG = """\
examples (FAMILY/RULE stands for a ruleset that `ruleslang list` shows):
  ruleslang list
  ruleslang check FAMILY/RULE@1
  ruleslang test
  ruleslang call FAMILY/RULE@1 some_formula "United Kingdom" --format json
  ruleslang eval FAMILY/RULE@1 'some_formula("UK")' --scenario aar/start
  ruleslang diff FAMILY/RULE@1 FAMILY/RULE@2
"""


class _Parser(argparse.ArgumentParser):
    json_errors = False  # set by main: the command line asks for --format json

    def error(self, message):  # usage errors exit 2 with a short hint, never a traceback
        if _Parser.json_errors:  # a script reading JSON gets its usage errors as JSON too
            from ruleslang.base.diagnostics import error

            print(render_json([error("U100", message)]))
            raise SystemExit(EXIT_USAGE)
        self.print_usage(sys.stderr)
        print(f"{self.prog}: error: {message}", file=sys.stderr)
        raise SystemExit(EXIT_USAGE)


def _wants_json(argv: Sequence[str]) -> bool:
    """True when the command line asks for `--format json` (checked before it is parsed)."""
    argv = list(argv)
    return "--format=json" in argv or any(a == "--format" and b == "json" for a, b in zip(argv, argv[1:]))


def _budget(text: str) -> int:
    """--budget: a positive whole number of evaluation steps."""
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"the budget is a positive whole number of steps, not '{text}'")
    return value


def _common(p: argparse.ArgumentParser, *, fmt: bool = True) -> None:
    p.add_argument("--rulesets", metavar="DIR", action="append", default=[],
                   help="a folder of rulesets to search first (repeatable)")
    if fmt:
        p.add_argument("--format", choices=["text", "json"], default="text", help="output format (default text)")


REF_HELP = "a ruleset: family/name@N, family/name (the newest version) or a path to a .rules file"
REFS_HELP = REF_HELP + " (repeatable; with none, every ruleset found)"


def _eval_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--scenario", metavar="FILE", help="a scenario YAML file or a named scenario (family/name); "
                                                      "default: the start of the ruleset's map")
    p.add_argument("--set", metavar="NAME=VALUE", action="append", default=[], dest="settings",
                   help="set an option (repeatable); VALUE is JSON or a name")
    mode = p.add_mutually_exclusive_group()
    mode.add_argument("--seed", type=int, help="sample dice with this seed (default 0)")
    mode.add_argument("--exact", action="store_true", help="give the exact distribution instead of one sample")
    p.add_argument("--budget", type=_budget, metavar="STEPS",
                   help="stop an evaluation after this many steps, a positive whole number (default 5,000,000)")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="ruleslang", description=DESCRIPTION, epilog=EPILOG,
                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--version", action="version", version=f"ruleslang {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)

    p = sub.add_parser("list", help="rulesets, versions, titles",
                       description="List every ruleset found (--rulesets folders, ./rulesets, the shipped ones): "
                                   "its reference family/name@N and its title.")
    _common(p)

    p = sub.add_parser("check", help="check rulesets; silent when clean; exit 0 clean, 1 errors",
                       description="Parse, resolve, type-check and evaluate the invariants of rulesets. "
                                   "With no REF, every ruleset found. Prints nothing when all is clean.")
    p.add_argument("refs", nargs="*", metavar="REF", help=REFS_HELP)
    _common(p)

    p = sub.add_parser("test", help="run the rule tests; the last line is 'N passed, N failed'",
                       description="Run the tests written in rulesets (with no REF, in every ruleset found).")
    p.add_argument("refs", nargs="*", metavar="REF", help=REFS_HELP)
    p.add_argument("-q", "--quiet", action="store_true", help="print only failures and the summary")
    _common(p)

    p = sub.add_parser("eval", help="evaluate an expression under a ruleset",
                       description="Evaluate EXPR with the definitions of REF, e.g. 'raid_cap(\"UK\")'.")
    p.add_argument("ref", metavar="REF", help=REF_HELP)
    p.add_argument("expr", metavar="EXPR", help="an expression of the language, quoted for the shell")
    _eval_options(p)
    _common(p)

    p = sub.add_parser("call", help="call a definition with arguments",
                       description="Call definition NAME of REF. Each ARG is a JSON value or a name "
                                   "(a territory, a player, ...); a record parameter takes a JSON object.")
    p.add_argument("ref", metavar="REF", help=REF_HELP)
    p.add_argument("name", metavar="NAME", help="a formula, modifier list, table, constant, counter, option or fact")
    p.add_argument("args", nargs="*", metavar="ARG", help="its arguments in order, each a JSON value or a name")
    _eval_options(p)
    _common(p)

    p = sub.add_parser("explain", help="a modifier list or formula, term by term",
                       description="Evaluate EXPR, a call of a modifier list or formula, and show each term "
                                   "(its reason, whether it applied, its value) or each part, then the total.")
    p.add_argument("ref", metavar="REF", help=REF_HELP)
    p.add_argument("expr", metavar="EXPR",
                   help="a call of a modifier list or formula, such as 'some_list({...})', quoted for the shell")
    p.add_argument("--scenario", metavar="FILE", help="a scenario YAML file or a named scenario (family/name) "
                                                      "to evaluate on; default: the start of the ruleset's map")
    p.add_argument("--set", metavar="NAME=VALUE", action="append", default=[], dest="settings",
                   help="set an option (repeatable); VALUE is JSON or a name")
    _common(p)

    p = sub.add_parser("diff", help="semantic diff between two rulesets or revisions",
                       description="Compare two rulesets definition by definition: what was added, removed or "
                                   "changed (a constant with its old and new value, a formula's old and new text), "
                                   "not a line diff. Exit 0 whether or not they differ.")
    p.add_argument("old", metavar="REF_A", help="the ruleset to compare from: family/name@N or a .rules file")
    p.add_argument("new", metavar="REF_B", help="the ruleset to compare to (often a later revision of REF_A)")
    _common(p)

    p = sub.add_parser("play", help="play a game (with no arguments: the default game of the rulesets)",
                       description="Play a game under a composition of rulesets. With no arguments: the game "
                                   "that `play:` of the rulesets' defaults.yaml describes (shipped: the embedded "
                                   "Revised map under its house rules, every player heuristic, 10 rounds).")
    p.add_argument("--ruleset", dest="refs", metavar="REF", action="append", default=[],
                   help="a ruleset of the composition (repeatable; default: the composition above)")
    p.add_argument("--scenario", metavar="FILE",
                   help="start from a scenario (default: the map's start); its `rulesets:` are the composition "
                        "when no --ruleset is given")
    p.add_argument("--players", metavar="P=AGENT,...", default="",
                   help="agents per player (random, heuristic, scripted or human), as PLAYER=AGENT,PLAYER=AGENT")
    p.add_argument("--agent", default=None, choices=["random", "heuristic", "scripted", "human"],
                   help="the agent of every player --players does not name (default heuristic)")
    p.add_argument("--orders", metavar="FILE", help="the YAML orders of scripted players")
    p.add_argument("--seed", type=int, default=None, help="the seed of the dice and the agents (default 1)")
    p.add_argument("--rounds", type=int, default=None, help="play at most this many rounds (default 10)")
    p.add_argument("--set", metavar="NAME=VALUE", action="append", default=[], dest="settings",
                   help="set an option (repeatable)")
    p.add_argument("--save", metavar="FILE", help="save the game after every round (written atomically)")
    p.add_argument("--resume", metavar="SAVE",
                   help="go on with a saved game: its rulesets, scenario, options and seed; --players, --agent "
                        "and --orders may give new agents for what comes after the save, --rounds more rounds")
    p.add_argument("--log", metavar="FILE", help="write every event, one JSON object a line")
    p.add_argument("--quiet", action="store_true", help="print only the result")
    _common(p)

    p = sub.add_parser("replay", help="re-run a recorded game and confirm it matches",
                       description="Play a saved or logged game again from its record (the same rulesets, "
                                   "scenario, seed and answers) and compare every event with the recorded ones. "
                                   "Exit 0 when all match, 1 at the first difference (which is printed).")
    p.add_argument("record", metavar="SAVE_OR_LOG",
                   help="a save written by play --save (JSON) or a log written by play --log (.jsonl or .log)")
    _common(p)

    p = sub.add_parser(
        "import-triplea", help="a TripleA game file as a ruleslang map + base ruleset",
        description="Translate a TripleA game file (XML) into DIR/maps/MAP.yaml and DIR/MAP/base@1.rules, so "
                    "that DIR works as a ruleset folder (--rulesets DIR). What cannot be translated (conditions, "
                    "triggers, technology, Java-coded properties, ...) is reported as D645/D646 warnings: by "
                    f"default the first {IMPORT_WARNINGS_SHOWN} on standard error and the whole list, grouped, "
                    "in the report on standard output.")
    p.add_argument("xml", metavar="GAME.xml", help="the TripleA game file (read without entities or DTDs)")
    p.add_argument("-o", "--output", metavar="DIR", default=".",
                   help="the folder to write into, made if missing (default: here); existing files of the same "
                        "names are replaced")
    noise = p.add_mutually_exclusive_group()
    noise.add_argument("-q", "--quiet", action="store_true",
                       help="print only the counts, the files written and the number of warnings")
    noise.add_argument("-v", "--verbose", action="store_true", help="print every warning, with its XML line")
    _common(p)

    p = sub.add_parser("map", help="maps: show a map or a scenario as a picture",
                       description="Work with maps. `ruleslang map show --help` tells more.")
    map_sub = p.add_subparsers(dest="map_command", metavar="SUBCOMMAND", parser_class=_Parser)
    show = map_sub.add_parser("show", help="draw the board as a graph (SVG or HTML)",
                              description="Draw a map (or a scenario on it) as a graph: land coloured by its "
                                          "controller, sea zones blue-grey, each space's units, a square for a "
                                          "factory.")
    show.add_argument("map", metavar="MAP", help="a map name (aar, aa50-1942, g40) or a map YAML file")
    show.add_argument("--scenario", metavar="FILE", help="colour by the control and units of a scenario")
    show.add_argument("-o", "--output", metavar="OUT",
                      help="write to OUT, an .svg picture or an .html page by its extension (default: SVG to stdout)")
    _common(show, fmt=False)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    _Parser.json_errors = _wants_json(sys.argv[1:] if argv is None else argv)
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return EXIT_USAGE
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 20_000))
    try:
        return _COMMANDS[args.command](args)
    except DiagnosticError as exc:
        return _report(exc.diagnostics, getattr(args, "format", "text"))
    except BrokenPipeError:
        return EXIT_OK
    except KeyboardInterrupt:
        print("ruleslang: interrupted", file=sys.stderr)
        return 130
    except RecursionError:
        print("ruleslang: error: evaluation nested too deeply", file=sys.stderr)
        return EXIT_ERRORS
    except Exception as exc:  # a bug in ruleslang itself: say so, without a traceback
        import os

        if os.environ.get("RULESLANG_DEBUG"):
            raise
        print(f"ruleslang: internal error ({type(exc).__name__}: {exc}). This is a bug in ruleslang, not in "
              "your rules; please report it with the command you ran (RULESLANG_DEBUG=1 shows the details).",
              file=sys.stderr)
        return EXIT_ERRORS


def _report(diagnostics: list[Diagnostic], fmt: str, *, stream=None) -> int:
    stream = stream or (sys.stdout if fmt == "json" else sys.stderr)
    if fmt == "json":
        print(render_json(diagnostics), file=stream)
    elif diagnostics:
        print(render_all_text(diagnostics), file=stream)
    errors = [d for d in diagnostics if d.is_error]
    if errors and all(d.code.startswith("U") for d in errors):
        return EXIT_USAGE  # the command line itself was wrong (an unknown option, a bad argument)
    return EXIT_ERRORS if errors else EXIT_OK


def _workspace(args):
    from ruleslang.workspace.compositions import Workspace

    return Workspace(_ruleset_folders(args))


def _ruleset_folders(args) -> list[str]:
    """The --rulesets folders; one that is not a folder is a usage error (the roots would skip it)."""
    from pathlib import Path

    from ruleslang.base.diagnostics import error

    for folder in args.rulesets:
        if not Path(folder).is_dir():
            why = "it is a file, not a folder" if Path(folder).exists() else "there is no such folder"
            raise DiagnosticError(error("U109", f"--rulesets {folder}: {why}", file=folder,
                                        hint="--rulesets takes a folder of rulesets laid out as family/name@N.rules"))
    return args.rulesets


def _folder_ref(ref: str) -> Diagnostic | None:
    """The diagnostic for a REF that names a folder (else None): a REF is a name or a .rules file."""
    from pathlib import Path

    from ruleslang.base.diagnostics import error
    from ruleslang.lang.compose.loader import parse_ref

    if parse_ref(ref) is not None or not Path(ref).is_dir():
        return None
    return error("S002", f"'{ref}' is a folder, not a .rules file", file=ref,
                 hint="a REF is family/name@N, family/name or a .rules file; --rulesets DIR searches a folder")


def _refuse_folders(refs) -> None:
    """Stop with S002 for every REF that names a folder."""
    folders = [d for d in map(_folder_ref, refs) if d is not None]
    if folders:
        raise DiagnosticError(folders)


def _load(ws, refs):
    _refuse_folders(refs)
    loaded = ws.load(refs)
    if not loaded.ok:
        raise DiagnosticError(loaded.diagnostics)
    return loaded


# ------------------------------------------------------------------------------ commands


def cmd_list(args) -> int:
    ws = _workspace(args)
    rows = []
    for ref, path in ws.loader.all_rulesets():
        title = ""
        try:
            title = ws.loader.load(path).module.header.title or ""
        except DiagnosticError:
            title = "(does not parse: run ruleslang check " + ref + ")"
        rows.append({"ref": ref, "title": title, "path": str(path)})
    if args.format == "json":
        print(json.dumps({"rulesets": rows}, indent=2))
        return EXIT_OK
    if not rows:
        print("no rulesets found in: " + ", ".join(str(r) for r in ws.roots))
        return EXIT_OK
    width = max(len(r["ref"]) for r in rows)
    for r in rows:
        print(f"{r['ref']:<{width}}  {r['title']}")
    return EXIT_OK


def _all_refs(ws) -> list[str]:
    return [ref for ref, _ in ws.loader.all_rulesets()]


def cmd_check(args) -> int:
    from ruleslang.ruletests.invariants import evaluate_checks

    ws = _workspace(args)
    refs = args.refs or _all_refs(ws)
    diagnostics: list[Diagnostic] = []
    for ref in refs:
        folder = _folder_ref(ref)
        if folder is not None:
            diagnostics.append(folder)
            continue
        loaded = ws.load([ref])
        diagnostics.extend(loaded.diagnostics)
        if loaded.ok:
            diagnostics.extend(evaluate_checks(loaded, ws))
    return _report(diagnostics, args.format)


def cmd_test(args) -> int:
    from ruleslang.ruletests.runner import TestRunner, results_json, summary_line
    from ruleslang.base.diagnostics import render_text, sort_diagnostics

    ws = _workspace(args)
    refs = args.refs or _all_refs(ws)
    runner = TestRunner(ws)
    results = []
    load_errors: list[Diagnostic] = []
    for ref in refs:
        folder = _folder_ref(ref)
        loaded = ws.load([ref]) if folder is None else None
        if loaded is None or not loaded.ok:
            problems = [folder] if loaded is None else loaded.diagnostics
            load_errors.extend(problems)
            results.append(_unloadable(ref, problems))
            continue
        results.extend(runner.run(loaded))
    if args.format == "json":
        out = results_json(results)
        if load_errors:
            out["diagnostics"] = [d.to_json() for d in sort_diagnostics(load_errors)]
        print(json.dumps(out, indent=2))
    else:
        if load_errors:
            print(render_all_text(load_errors), file=sys.stderr)
        for r in results:
            if r.status == "pass":
                if not args.quiet:
                    print(f"PASS {r.ruleset}: {r.title}")
                continue
            where = f"{r.span.source.display_name}:{r.span.line}:{r.span.column}"
            print(f"{r.status.upper()} {where}: {r.ruleset}: {r.title}")
            print(f"    {r.message}")
            if r.expected is not None:
                print(f"    expected: {r.expected}")
                print(f"    actual:   {r.actual}")
            for d in sort_diagnostics(r.diagnostics):
                print("    " + render_text(d).replace("\n", "\n    "))
        print(summary_line(results))
    failed = any(r.status != "pass" for r in results) or has_errors(load_errors)
    return EXIT_ERRORS if failed else EXIT_OK


def _unloadable(ref: str, diagnostics):
    """A ruleset that does not check: one failed 'test' in the summary, so it never reads as success."""
    from ruleslang.base.source import Source, Span
    from ruleslang.ruletests.runner import TestResult

    first = next((d for d in diagnostics if d.is_error), None)
    # an error with no place in a file (a missing file, a folder) points at the REF as typed
    span = first.span if first is not None and first.span is not None else \
        Span(Source("<command line>", ref), 0, len(ref))
    return TestResult(ref, "(the ruleset does not check; its tests did not run)", span, "error",
                      first.message if first is not None else "the ruleset does not check")


def _print_value(args, value=None, dist=None) -> None:
    from ruleslang.lang.values import format_number, format_value, to_json

    if args.format == "json":
        if dist is not None:
            print(json.dumps({"distribution": [[to_json(v), format_number(p)] for v, p in dist.outcomes]}))
        else:
            print(json.dumps({"value": to_json(value)}))
        return
    if dist is not None:
        for v, p in dist.outcomes:
            print(f"{format_value(v)}\t{format_number(p)}\t({float(p):.4f})")
    else:
        print(format_value(value))


def _evaluate(args, loaded, ctx, concrete, exact_fn, span=None) -> int:
    from ruleslang.base.errors import EvalError

    try:
        if args.exact:
            dist = exact_fn().to_dist()
            _print_value(args, dist=dist)
        else:
            _print_value(args, value=concrete())
    except EvalError as e:
        return _report([e.at(span).diagnostic()], args.format)
    return EXIT_OK


def cmd_eval(args) -> int:
    from ruleslang.workspace.session import compile_expression, make_context

    ws = _workspace(args)
    loaded = _load(ws, [args.ref])
    node, size = compile_expression(loaded, args.expr)
    ctx = make_context(loaded, ws, scenario=args.scenario, seed=args.seed, budget=args.budget,
                       settings=args.settings)
    env = [ctx] + [None] * (size - 1)
    compiled = loaded.compiled
    return _evaluate(args, loaded, ctx, lambda: compiled.expr_compiler.expr(node)(env),
                     lambda: compiled.exact_compiler.expr(node)(env))


_CALLABLE_KINDS = ("formula", "modifiers", "constant", "table", "die table", "counter", "option", "fact")


def cmd_call(args) -> int:
    from ruleslang.base.diagnostics import error
    from ruleslang.workspace.session import convert_argument, make_context
    from ruleslang.base.suggest import close_matches

    ws = _workspace(args)
    loaded = _load(ws, [args.ref])
    compiled = loaded.compiled
    sym = compiled.symbols.get(args.name)
    if sym is None or sym.kind not in _CALLABLE_KINDS:
        names = [n for n, s in compiled.symbols.items() if s.kind in _CALLABLE_KINDS]
        close = close_matches(args.name, names, n=3)
        raise DiagnosticError(error(
            "U110", f"{args.ref} has no formula, table or modifier list named '{args.name}'",
            hint=f"did you mean {', '.join(close)}?" if close else None))
    decl = sym.decl
    params = list(getattr(decl, "params", None) or ())
    if sym.kind in ("table", "die table"):
        types = list(sym.params_types)
        if sym.kind == "die table":
            from ruleslang.lang.syntax import ast as A

            params = [A.Param(A.Ident("roll", span=decl.name.span), A.NamedType("int", span=decl.name.span),
                              span=decl.name.span)]
    elif sym.kind in ("option", "fact"):
        types = []
    else:
        types = list(loaded.program.formula_types[args.name][0] or ())
    if len(args.args) != len(types):
        from ruleslang.lang.syntax.unparse import unparse_type

        want = ", ".join(f"{p.name.text}: {unparse_type(p.type)}" for p in params) or "no arguments"
        raise DiagnosticError(error(
            "U111", f"{args.name} takes {len(types)} argument{'' if len(types) == 1 else 's'} ({want}), "
                    f"found {len(args.args)}"))
    values = [convert_argument(compiled, text, i + 1, p, t)
              for i, (text, p, t) in enumerate(zip(args.args, params, types))]
    from ruleslang.base.source import Source, Span

    # an error with no place in rule text (a missing table key) points at the arguments
    where = Source("<arguments>", " ".join(args.args))
    arg_span = Span(where, 0, len(where.text))
    ctx = make_context(loaded, ws, scenario=args.scenario, seed=args.seed, budget=args.budget,
                       settings=args.settings)

    def concrete():
        if sym.kind == "option":
            return ctx.options[args.name]
        if sym.kind == "fact":
            return _fact_value(ctx, compiled, args.name)
        if sym.kind in ("table", "die table"):
            return compiled.table(args.name).lookup(ctx, tuple(values))
        return compiled.callable(args.name)(ctx, *values)

    def exact():
        from ruleslang.lang.eval import exact as X

        if sym.kind in _CALLABLE_KINDS[:3]:
            return compiled.exact_callable(args.name)(ctx, *values)
        return X.point(concrete())
    return _evaluate(args, loaded, ctx, concrete, exact, span=arg_span)


def _fact_value(ctx, compiled, name):
    from ruleslang.lang.eval.compile import _NO
    from ruleslang.base.errors import EvalError

    if name in ctx.facts:
        return ctx.facts[name]
    default = compiled.fact_default(name)
    if default is _NO:
        raise EvalError("E532", f"fact '{name}' has no value: give it in the scenario's facts")
    return default


def cmd_explain(args) -> int:
    from ruleslang.lang.syntax import ast
    from ruleslang.base.diagnostics import error
    from ruleslang.base.errors import EvalError
    from ruleslang.workspace.session import compile_expression, make_context
    from ruleslang.base.source import Source, Span
    from ruleslang.lang.values import format_value

    ws = _workspace(args)
    loaded = _load(ws, [args.ref])
    node, size = compile_expression(loaded, args.expr)
    compiled = loaded.compiled
    info = compiled.info.calls.get(id(node)) if isinstance(node, ast.Call) else None
    if info is None or info.kind not in ("modifiers", "formula"):
        src = Source("<expression>", args.expr)
        raise DiagnosticError(error("U105", "explain takes a call of a modifier list or formula, "
                                            "such as engagement_modifier({...})", Span(src, 0, len(args.expr))))
    ctx = make_context(loaded, ws, scenario=args.scenario, seed=None, budget=None, settings=args.settings)
    env = [ctx] + [None] * (size - 1)
    try:
        arg_fns = compiled.expr_compiler._ordered_args(node, info.symbol.decl)
        explanation = compiled.explainer(info.name)(ctx, *[f(env) for f in arg_fns])
    except EvalError as e:
        return _report([e.diagnostic()], args.format)
    if args.format == "json":
        from ruleslang.lang.values import to_json

        out = {"name": explanation.name, "total": to_json(explanation.total)}
        if explanation.parts is not None:
            out["parts"] = [{"expression": t, "value": to_json(v)} for t, v in explanation.parts]
        else:
            out["terms"] = [{"reason": t.reason, "applied": t.applied, "sign": t.sign,
                             "value": to_json(t.signed()) if t.value is not None else None}
                            for t in explanation.terms]
        print(json.dumps(out, indent=2))
        return EXIT_OK
    print(f"{explanation.name}:")
    if explanation.parts is not None:
        width = max([len(t) for t, _ in explanation.parts] + [5])
        for text, value in explanation.parts:
            print(f"  {text:<{width}}  = {format_value(value)}")
    else:
        for t in explanation.terms:
            value = "?" if t.value is None else format_value(t.signed())
            if not value.startswith("-"):
                value = "+" + value
            status = "applied" if t.applied else "not applied"
            print(f"  {value:>5}  {status:<11}  {t.reason}")
    print(f"  total {format_value(explanation.total)}")
    return EXIT_OK


def cmd_diff(args) -> int:
    from ruleslang.lang.diff import diff_rulesets

    ws = _workspace(args)
    _refuse_folders([args.old, args.new])
    old = ws.resolver.resolve_ref(args.old)
    new = ws.resolver.resolve_ref(args.new)
    result = diff_rulesets(old, new)
    if args.format == "json":
        print(json.dumps(result.to_json(), indent=2))
    else:
        print(result.to_text())
    return EXIT_OK


IMPORT_WARNINGS_SHOWN = 5  # warnings import-triplea prints without -v (the report lists them all, grouped)


def cmd_import(args) -> int:
    from ruleslang.importers.triplea import format_report, run_import
    from ruleslang.base.diagnostics import sort_diagnostics
    from ruleslang.base.fileio import folder_problem

    problem = folder_problem(args.output)
    if problem:  # refuse before translating, so nothing is half-written
        raise _unwritable_output(args.output, problem)
    try:
        report, diagnostics = run_import(args.xml, args.output)
    except OSError as exc:  # checked above; what is left is a file in the way, a full disk, a race
        why = "it is a file, not a folder" if isinstance(exc, FileExistsError) else exc.strerror or str(exc)
        raise _unwritable_output(exc.filename or args.output, why) from None
    if has_errors(diagnostics):
        return _report(diagnostics, args.format)
    diagnostics = sort_diagnostics(diagnostics)
    if args.format == "json":
        print(json.dumps({"report": report.to_json(), "diagnostics": [d.to_json() for d in diagnostics]}, indent=2))
        return EXIT_OK
    text = format_report(report)
    shown = [] if args.quiet else diagnostics if args.verbose else diagnostics[:IMPORT_WARNINGS_SHOWN]
    if shown:
        print(render_all_text(shown), file=sys.stderr)
    if len(shown) < len(diagnostics) and not args.quiet:
        print(f"... {len(diagnostics) - len(shown)} more warnings (-v shows them all)", file=sys.stderr)
    if args.quiet:
        # the counts and the files written; the list of untranslated items is left out
        text = text.split("\nuntranslated:")[0]
        if diagnostics:
            text += f"\n{len(diagnostics)} warnings about what was not translated (run without -q to see them)"
    print(text)
    return EXIT_OK


def cmd_map(args) -> int:
    if args.map_command != "show":
        print("ruleslang map: choose a subcommand: show", file=sys.stderr)
        return EXIT_USAGE
    from ruleslang.board.render import render_map
    from ruleslang.base.paths import default_roots

    roots = default_roots(_ruleset_folders(args))
    fmt = _picture_format(args.output)
    if args.scenario:
        from ruleslang.board.scenario import load_scenario
        from ruleslang.board.state import GameState

        target = GameState.from_scenario(load_scenario(args.scenario, roots, default_map=args.map))
    else:
        from ruleslang.board.mapdata import load_map

        target = load_map(args.map, roots)
    text = render_map(target, fmt=fmt)
    if args.output:
        from ruleslang.base.fileio import write_atomic

        try:
            write_atomic(args.output, text)
        except OSError as exc:  # checked above; what is left is a full disk or a race
            raise _unwritable_output(args.output, exc.strerror or str(exc)) from None
        print(f"wrote {args.output}")
    else:
        sys.stdout.write(text)
    return EXIT_OK


def _picture_format(output: str | None) -> str:
    """The picture format `-o OUT` asks for by its extension (svg without -o), checked before drawing."""
    from pathlib import PurePath

    from ruleslang.board.render import FORMATS
    from ruleslang.base.diagnostics import error
    from ruleslang.base.fileio import file_problem

    if output is None:
        return "svg"
    suffix = PurePath(output).suffix.lower()
    if suffix[1:] not in FORMATS:
        raise DiagnosticError(error("U108", f"-o {output}: a picture is written as .svg or .html, "
                                            f"not {suffix or 'a file with no extension'}", file=output))
    problem = file_problem(output)
    if problem:
        raise _unwritable_output(output, problem)
    return suffix[1:]


def _unwritable_output(path: str, problem: str) -> DiagnosticError:
    """U107: an output path the command cannot write, and why."""
    from ruleslang.base.diagnostics import error

    return DiagnosticError(error("U107", f"cannot write {path}: {problem}", file=path))


def play_defaults(roots) -> dict:
    """`play:` of the first `defaults.yaml` among the ruleset roots (the composition, rounds, agent)."""
    from ruleslang.base.source import Source
    from ruleslang.base.yamlio import load_yaml

    for root in roots:
        path = root / "defaults.yaml"
        if path.is_file():
            data, _ = load_yaml(Source(str(path), path.read_text(encoding="utf-8")))
            if isinstance(data, dict) and isinstance(data.get("play"), dict):
                return data["play"]
    return {}


def _parse_players(text: str) -> dict[str, str]:
    players: dict[str, str] = {}
    for item in [x.strip() for x in text.split(",") if x.strip()]:
        if "=" not in item:
            raise _Usage(f"--players takes PLAYER=AGENT pairs, found '{item}'")
        name, agent = (x.strip() for x in item.split("=", 1))
        if agent not in ("random", "heuristic", "scripted", "human"):
            raise _Usage(f"'{agent}' is not an agent: random, heuristic, scripted or human")
        players[name] = agent
    return players


class _Usage(Exception):
    pass


def cmd_play(args) -> int:
    from ruleslang.runtime import saves
    from ruleslang.runtime.report import RoundPrinter

    ws = _workspace(args)
    try:
        players = _parse_players(args.players)
    except _Usage as exc:
        print(f"ruleslang play: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    problem = _play_usage(args, players)
    if problem:
        print(f"ruleslang play: error: {problem}", file=sys.stderr)
        return EXIT_USAGE
    recorded = None
    scenario_text = None
    if args.resume:
        data = saves.read_save(args.resume)
        setup = saves.setup_of(data)
        if args.rounds is not None:
            setup.rounds = args.rounds
        # new agents for what comes after the record (the record answers everything before)
        setup.players.update(players)
        if args.agent:
            setup.default_agent = args.agent
        setup.orders = args.orders
        recorded = data["decisions"]
        scenario_text = data["scenario"]["text"]
        if not args.save:
            print(f"note: the resumed game is not saved; add --save {args.resume} to keep it", file=sys.stderr)
    else:
        defaults = play_defaults(ws.roots)
        scenario_text = _scenario_text(ws, args.scenario)
        # the rulesets: named on the command line, else those the scenario names, else the default game
        refs = args.refs or _scenario_rulesets(args.scenario, scenario_text) or list(defaults.get("rulesets") or [])
        if not refs:
            print("ruleslang play: error: name the rulesets (--ruleset REF); no defaults.yaml gives a default game",
                  file=sys.stderr)
            return EXIT_USAGE
        setup = saves.GameSetup(refs=refs, scenario=args.scenario, seed=1 if args.seed is None else args.seed,
                                rounds=args.rounds or int(defaults.get("rounds", 10)), players=players,
                                default_agent=args.agent or defaults.get("agent", "heuristic"),
                                settings=list(args.settings), orders=args.orders)
    game = saves.build_game(ws, setup, recorded=recorded, scenario_text=scenario_text)
    if args.resume:
        saves.check_rulesets_unchanged(game, data, args.resume)
    printer = RoundPrinter(sys.stdout, quiet=args.quiet, live=sys.stderr.isatty() and not args.quiet)
    # a resumed game re-runs the saved rounds; their events must be the saved ones before
    # anything is written over the save
    verify_after = data["rounds_played"] if args.resume else None

    def after_round(g, summary):
        nonlocal verify_after
        if verify_after is not None:
            done = len(g.summaries) >= verify_after
            saves.verify_resumed(data, g, args.resume, complete=done)
            if done:
                verify_after = None
        printer.round(g, summary)
        if args.save:
            saves.write_save(args.save, saves.save_data(g, scenario_text=scenario_text, finished=False))
        if args.log:
            _write_log(args.log, g, scenario_text)

    game.on_turn = printer.turn
    try:
        result = game.run(setup.rounds, progress=after_round)
    except saves.ReplayDivergence as exc:
        raise saves.divergence_error(exc, args.resume)
    if verify_after is not None:  # the re-run ended before the saved rounds did
        saves.verify_resumed(data, game, args.resume, complete=True)
    if args.save:
        saves.write_save(args.save, saves.save_data(game, scenario_text=scenario_text, finished=True))
    if args.log:
        _write_log(args.log, game, scenario_text)
    printer.result(game, result)
    if args.format == "json":
        print(json.dumps(result, indent=2))
    return EXIT_OK


def _play_usage(args, players: dict[str, str]) -> str | None:
    """What is wrong with the play command's options, before anything is played or written."""
    if args.rounds is not None and args.rounds < 1:
        return f"--rounds takes a number of rounds of at least 1, not {args.rounds}"
    if args.resume:
        fixed = [flag for flag, given in (("--ruleset", args.refs), ("--scenario", args.scenario),
                                          ("--set", args.settings), ("--seed", args.seed is not None)) if given]
        if fixed:
            return (f"--resume goes on with the saved game's own rulesets, scenario, options and seed; "
                    f"drop {', '.join(fixed)}")
    scripted = args.agent == "scripted" or "scripted" in players.values()
    if scripted and not args.orders:
        return "scripted players need their orders: --orders FILE (the format: ruleslang/runtime/agents/scripted.py)"
    for flag, path in (("--save", args.save), ("--log", args.log)):
        if path:
            from ruleslang.base.fileio import file_problem

            problem = file_problem(path)
            if problem:
                return f"{flag} {path}: {problem}"
    return None


def _scenario_rulesets(name: str | None, text: str | None) -> list[str]:
    """The `rulesets:` a scenario names (checked against the workspace when the game is built)."""
    if not text:
        return []
    from ruleslang.base.source import Source
    from ruleslang.base.yamlio import load_yaml

    data, _ = load_yaml(Source(name or "<scenario>", text))
    found = data.get("rulesets") if isinstance(data, dict) else None
    return [str(r) for r in found] if isinstance(found, list) else []


def _scenario_text(ws, ref: str | None) -> str | None:
    if ref is None:
        return None
    from ruleslang.board.scenario import find_scenario

    path = find_scenario(ref, ws.roots)
    return path.read_text(encoding="utf-8") if path is not None else None


def _write_log(path: str, game, scenario_text) -> None:
    from ruleslang.base.fileio import write_atomic
    from ruleslang.runtime.game import dumps_event
    from ruleslang.runtime.saves import save_data

    header = save_data(game, scenario_text=scenario_text, finished=False)
    header = {k: v for k, v in header.items() if k not in ("events", "decisions")}
    header["kind"] = "game"
    lines = [dumps_event(header)] + [dumps_event(e) for e in game.state.events]
    write_atomic(path, "\n".join(lines) + "\n")


def cmd_replay(args) -> int:
    from ruleslang.runtime import saves

    ws = _workspace(args)
    data = _read_record(args.record)
    setup = saves.setup_of(data)
    game = saves.build_game(ws, setup, recorded=data["decisions"], scenario_text=data["scenario"]["text"])
    saves.check_rulesets_unchanged(game, data, args.record)
    for agent in game.agents.values():
        agent.after = None  # a replay only answers from the record
    try:
        game.run(data["rounds_played"])
    except saves.ReplayDivergence as exc:
        print(f"replay of {args.record}: diverged: {exc}")
        return EXIT_ERRORS
    found = saves.first_divergence(data["events"], game.state.events)
    if found is None:
        print(f"replay of {args.record}: all {len(game.state.events)} events match")
        return EXIT_OK
    index, recorded, replayed = found
    print(f"replay of {args.record}: diverges at event {index + 1}")
    print(f"  recorded: {json.dumps(recorded)}")
    print(f"  replayed: {json.dumps(replayed)}")
    return EXIT_ERRORS


def _read_record(path: str) -> dict:
    """A save (JSON), or a log (JSON lines whose first line describes the game)."""
    from ruleslang.base.diagnostics import error
    from ruleslang.runtime import saves

    if not path.endswith((".jsonl", ".log")):
        return saves.read_save(path)
    try:
        lines = open(path, encoding="utf-8").read().splitlines()
        header = json.loads(lines[0])
        events = [json.loads(line) for line in lines[1:] if line.strip()]
    except (OSError, IndexError, json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise DiagnosticError(error("D661", f"the log cannot be read (truncated or corrupt): {exc}", file=path))
    if header.get("kind") != "game" or header.get("format") != saves.SAVE_KIND:
        raise DiagnosticError(error("D662", "this is not a ruleslang game log", file=path))
    # the runtime's record of each answer (a rule's own `choose` also logs one, with its id)
    decisions = [{"kind": e["decision"], "player": e["player"], "answer": e["answer"]}
                 for e in events if e.get("kind") == "decision" and "decision" in e]
    header.update(events=events, decisions=decisions)
    return header


_COMMANDS = {
    "list": cmd_list,
    "check": cmd_check,
    "test": cmd_test,
    "eval": cmd_eval,
    "call": cmd_call,
    "explain": cmd_explain,
    "diff": cmd_diff,
    "play": cmd_play,
    "replay": cmd_replay,
    "import-triplea": cmd_import,
    "map": cmd_map,
}
