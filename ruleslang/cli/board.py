"""The commands about boards: `map show` (a map or a scenario as a picture) and `import-triplea`."""

from __future__ import annotations

import json
import sys
from pathlib import PurePath

from ruleslang.base.diagnostics import DiagnosticError, error, has_errors, render_all_text, sort_diagnostics
from ruleslang.base.fileio import folder_problem
from ruleslang.base.paths import default_roots
from ruleslang.board.document import board_json
from ruleslang.board.mapdata import load_map
from ruleslang.board.scenario import load_scenario
from ruleslang.board.state import GameState
from ruleslang.cli.inputs import ruleset_folders
from ruleslang.cli.output import (EXIT_OK, EXIT_USAGE, check_output_file, report_diagnostics, unwritable_output,
                                   write_output)

IMPORT_WARNINGS_SHOWN = 5  # warnings import-triplea prints without -v (the report lists them all, grouped)


def cmd_import(args) -> int:
    """`ruleslang import-triplea`: a TripleA game file as a map and a base ruleset, with a report."""
    # start-up time: the importer loads only for this command
    from ruleslang.importers.triplea import format_report, run_import

    problem = folder_problem(args.output)
    if problem:  # refuse before translating, so nothing is half-written
        raise unwritable_output(args.output, problem)
    try:
        report, diagnostics = run_import(args.xml, args.output)
    except OSError as exc:  # checked above; what is left is a file in the way, a full disk, a race
        why = "it is a file, not a folder" if isinstance(exc, FileExistsError) else exc.strerror or str(exc)
        raise unwritable_output(exc.filename or args.output, why) from None
    if has_errors(diagnostics):
        return report_diagnostics(diagnostics, args.format)
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
    """`ruleslang map show`: a map, or a scenario on it, drawn as an SVG picture or an HTML page."""
    if args.map_command != "show":
        print("ruleslang map: choose a subcommand: show", file=sys.stderr)
        return EXIT_USAGE
    roots = default_roots(ruleset_folders(args))
    if args.format == "json":
        if args.output:
            _json_output(args.output)
    else:
        # start-up time: drawing needs networkx, loaded only for this command
        from ruleslang.board.render import FORMATS, render_map
        fmt = _picture_format(args.output, FORMATS)
    if args.scenario:
        target = GameState.from_scenario(load_scenario(args.scenario, roots, default_map=args.map))
    else:
        target = load_map(args.map, roots)
    text = json.dumps(board_json(target), indent=2) + "\n" if args.format == "json" else render_map(target, fmt=fmt)
    if args.output:
        write_output(args.output, text)
        print(f"wrote {args.output}")
    else:
        sys.stdout.write(text)
    return EXIT_OK


def _json_output(output: str) -> None:
    """`-o OUT` with --format json: a .json file, checked before any work."""
    if PurePath(output).suffix.lower() != ".json":
        raise DiagnosticError(error("U108", f"-o {output}: with --format json the output is a .json file",
                                    file=output))
    check_output_file(output)


def _picture_format(output: str | None, formats) -> str:
    """The picture format `-o OUT` asks for by its extension (svg without -o), checked before drawing."""
    if output is None:
        return "svg"
    suffix = PurePath(output).suffix.lower()
    if suffix[1:] not in formats:
        raise DiagnosticError(error("U108", f"-o {output}: a picture is written as .svg or .html, "
                                            f"not {suffix or 'a file with no extension'}", file=output))
    check_output_file(output)
    return suffix[1:]
