"""The commands about boards: `map show` (a map or a scenario as a picture) and `import-triplea`."""

from __future__ import annotations

import json
import sys
from pathlib import PurePath

from ruleslang.base.diagnostics import DiagnosticError, error, has_errors, render_all_text, sort_diagnostics
from ruleslang.base.fileio import folder_problem
from ruleslang.base.paths import default_roots
from ruleslang.board.mapdata import load_map
from ruleslang.board.scenario import load_scenario
from ruleslang.board.state import GameState
from ruleslang.cli.inputs import open_workspace, ruleset_folders
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
        report, diagnostics = run_import(args.xml, args.output, args.map_folder)
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
    # what --map-folder gave is always said: the user asked for it (the rest are about the XML)
    positions = [d for d in diagnostics if d.code == "U143"]
    if positions:
        print(render_all_text(positions), file=sys.stderr)
    diagnostics = [d for d in diagnostics if d.code != "U143"]
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
    if (args.map is None) == (args.save is None):
        raise DiagnosticError(error("U140", "map show draws a MAP or a recorded game (--save SAVE_OR_LOG): "
                                            f"give one, {'not both' if args.map else 'found neither'}",
                                    hint="ruleslang map show aar, or ruleslang map show --save game.json"))
    if args.format == "json":
        if args.output:
            _json_output(args.output)
    else:
        # start-up time: drawing needs networkx, loaded only for this command
        from ruleslang.board.render import FORMATS, render_map
        fmt = _picture_format(args.output, FORMATS)
    if args.save:
        target = _saved_board(args)
    elif args.scenario:
        target = GameState.from_scenario(load_scenario(args.scenario, roots, default_map=args.map))
    else:
        target = load_map(args.map, roots)
    # start-up time: for `map show --format json` alone
    from ruleslang.board.document import board_json

    text = json.dumps(board_json(target), indent=2) + "\n" if args.format == "json" else render_map(target, fmt=fmt)
    if args.output:
        write_output(args.output, text)
        print(f"wrote {args.output}")
    else:
        sys.stdout.write(text)
    return EXIT_OK


def _saved_board(args) -> GameState:
    """The board at the end of a recorded game, replayed from its record (G710 when it replays otherwise)."""
    # start-up time: the runtime loads only when a recorded game is drawn
    from ruleslang.runtime import saves
    from ruleslang.runtime.pictures import final_state

    data = saves.read_record(args.save)
    result, state = final_state(open_workspace(args), data, args.save)
    if state is None or result.diverged is not None or result.difference is not None:
        why = result.diverged or (f"event {result.difference[0] + 1} differs" if result.difference else "no board")
        raise DiagnosticError(error("G710", f"{args.save} does not replay the same ({why}): its board is not drawn",
                                    file=args.save, hint="ruleslang replay shows where it differs"))
    return state


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
