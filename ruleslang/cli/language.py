"""The commands of rule authors: list, check, test, eval, call, explain, diff."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from ruleslang.api import Outcome, Rules, check_each, list_rulesets, ruleset_diff, run_tests
from ruleslang.base.diagnostics import (Diagnostic, DiagnosticError, error, has_errors, render_all_text, render_text,
                                        sort_diagnostics)
from ruleslang.base.source import Source, Span
from ruleslang.cli.inputs import load_composition, open_workspace, refuse_folders, ruleset_folders, workspace_and_refs
from ruleslang.cli.output import EXIT_ERRORS, EXIT_OK, report_diagnostics, show_composition
from ruleslang.base.paths import default_roots
from ruleslang.board.mapdata import load_map
from ruleslang.lang.values import format_number, format_value, to_json


def cmd_list(args) -> int:
    """`ruleslang list`: every ruleset found, its reference and title."""
    ws = open_workspace(args)
    rows = [{"ref": r.ref, "title": "(does not parse: run ruleslang check " + r.ref + ")" if r.diagnostics else r.title,
             "path": str(r.path)} for r in list_rulesets(workspace=ws)]
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


def cmd_check(args) -> int:
    """`ruleslang check`: diagnostics of each ruleset, its invariants and its tests' scenarios."""
    ws, refs = workspace_and_refs(args)
    diagnostics: list[Diagnostic] = []
    # the composition is shown only when it was resolved: --show-composition checks afresh
    for checked in check_each(refs, workspace=ws, kept=not args.show_composition):
        diagnostics.extend(checked.diagnostics)
        if args.show_composition and checked.composition is not None:
            show_composition(checked.composition, args.format)
    code = report_diagnostics(diagnostics, args.format)
    if args.strict and code == EXIT_OK and diagnostics:
        return EXIT_ERRORS  # --strict: a warning fails the check as an error would
    return code


def cmd_test(args) -> int:
    """`ruleslang test`: run the rule tests, PASS / FAIL / ERROR each, then the summary line."""
    # start-up time: the rule-test machinery (and the runtime's kit it drives) loads for `test` alone
    from ruleslang.ruletests.runner import summary_line

    ws, refs = workspace_and_refs(args)
    # kept results (go test's cached runs) unless the tests must run: coverage, the composition
    run = run_tests(refs, keyword=args.keyword, coverage=args.coverage, workspace=ws,
                    kept=not args.coverage and not args.show_composition)
    results, load_errors, coverage = run.results, run.diagnostics, run.coverage
    cached = {id(results[i]) for i in run.cached}
    if args.show_composition:
        for composition in run.compositions:
            show_composition(composition, args.format)
    if args.format == "json":
        print(json.dumps(run.to_json(), indent=2))
    else:
        if load_errors:
            print(render_all_text(load_errors), file=sys.stderr)
        for r in results:
            if r.status == "pass":
                if not args.quiet:
                    print(f"PASS {r.ruleset}: {r.title}" + (" (cached)" if id(r) in cached else ""))
                continue
            where = f"{r.span.source.display_name}:{r.span.line}:{r.span.column}"
            print(f"{r.status.upper()} {where}: {r.ruleset}: {r.title}")
            print(f"    {r.message}")
            if r.expected is not None:
                print(f"    expected: {r.expected}")
                print(f"    actual:   {r.actual}")
            if r.rolls:
                shown = ", ".join(map(str, r.rolls[:40])) + (f", ... ({len(r.rolls)} dice)" if len(r.rolls) > 40 else "")
                print(f"    rolls:    {shown}")
            for d in sort_diagnostics(r.diagnostics):
                print("    " + render_text(d).replace("\n", "\n    "))
        if coverage is not None:
            print(coverage.to_text())
        if cached:
            kept_refs = sorted({r.ruleset for r in results if id(r) in cached})
            print(f"(cached) {len(cached)} results of {len(kept_refs)} rulesets unchanged since their tests last "
                  "passed; --no-cache runs them again")
        print(summary_line(results))
    return EXIT_OK if run.passed else EXIT_ERRORS


def _print_value(args, outcome: Outcome) -> None:
    dist = outcome.distribution
    if args.format == "json":
        if dist is not None:
            print(json.dumps({"distribution": [[to_json(v), format_number(p)] for v, p in dist.outcomes]}))
        else:
            print(json.dumps({"value": to_json(outcome.value)}))
        return
    if dist is not None:
        for v, p in dist.outcomes:
            print(f"{format_value(v)}\t{format_number(p)}\t({float(p):.4f})")
    else:
        print(format_value(outcome.value))


def _rules(args) -> Rules:
    """The composition of the command's REF as the API's `Rules`, shown first under --show-composition."""
    ws = open_workspace(args)
    rules = Rules([args.ref], ws, load_composition(ws, [args.ref], kept=True))
    if args.show_composition:
        show_composition(rules.composition, args.format)
    return rules


def cmd_eval(args) -> int:
    """`ruleslang eval`: one expression, sampled (--seed) or as an exact distribution (--exact)."""
    outcome = _rules(args).evaluate(args.expr, exact=args.exact, scenario=args.scenario, seed=args.seed,
                                    settings=args.settings, budget=args.budget)
    _print_value(args, outcome)
    return EXIT_OK


def cmd_call(args) -> int:
    """`ruleslang call`: a definition with arguments from the command line."""
    outcome = _rules(args).invoke(args.name, args.args, texts=True, exact=args.exact, scenario=args.scenario,
                                  seed=args.seed, settings=args.settings, budget=args.budget)
    _print_value(args, outcome)
    return EXIT_OK


def cmd_explain(args) -> int:
    """`ruleslang explain`: a call of a modifier list or formula, term by term or part by part."""
    explanation = _rules(args).explain(args.expr, scenario=args.scenario, settings=args.settings)
    if args.format == "json":
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


def _diff_triplea(args, ws) -> int:
    """`ruleslang diff A.xml B.xml`: two TripleA game files, each imported (into a folder of its
    own, removed afterwards) and compared as rulesets (units, frontiers, turn, the game properties'
    table: a changed property is a changed row) and as maps."""
    # start-up time: the importer and the map diff load only for this use of diff
    from ruleslang.importers.triplea import run_import
    from ruleslang.board.mapdiff import diff_maps
    import tempfile

    with tempfile.TemporaryDirectory(prefix="ruleslang-diff-") as out:
        reports = []
        for i, xml in enumerate((args.old, args.new)):
            report, diagnostics = run_import(xml, Path(out) / str(i))
            if report is None or has_errors(diagnostics):
                return report_diagnostics(diagnostics, args.format)
            reports.append(report)
        rules = ruleset_diff(str(reports[0].ruleset_path), str(reports[1].ruleset_path), workspace=ws)
        board = diff_maps(load_map(str(reports[0].map_path), []), load_map(str(reports[1].map_path), []))
    if args.format == "json":
        print(json.dumps({"from": str(args.old), "to": str(args.new), "ruleset": rules.to_json(),
                          "map": board.to_json()}, indent=2))
    else:
        print(f"{args.old} -> {args.new} (TripleA game files, each imported)")
        print(rules.to_text())
        print(board.to_text())
    return EXIT_OK


def cmd_diff(args) -> int:
    """`ruleslang diff`: two rulesets compared definition by definition."""
    ws = open_workspace(args)
    if all(str(ref).lower().endswith(".xml") for ref in (args.old, args.new)):
        return _diff_triplea(args, ws)
    refuse_folders([args.old, args.new])
    # start-up time: for `diff` alone
    from ruleslang.board.mapdiff import diff_maps, is_map_ref

    kinds = {is_map_ref(args.old), is_map_ref(args.new)}
    if kinds == {True, False}:
        map_ref, ruleset_ref = (args.old, args.new) if is_map_ref(args.old) else (args.new, args.old)
        raise DiagnosticError(error("D690", f"diff compares two rulesets or two maps; expected two of a kind, found "
                                            f"the map '{map_ref}' and the ruleset '{ruleset_ref}'",
                                    Span(Source("<command line>", ruleset_ref), 0, len(ruleset_ref)),
                                    hint="a map is a name without '/' or a .yaml file; a ruleset is "
                                         "family/name@N or a .rules file"))
    if kinds == {True}:
        roots = default_roots(ruleset_folders(args))
        result = diff_maps(load_map(args.old, roots), load_map(args.new, roots))
    else:
        result = ruleset_diff(args.old, args.new, workspace=ws)
    if args.format == "json":
        print(json.dumps(result.to_json(), indent=2))
    else:
        print(result.to_text())
    return EXIT_OK
