"""Exit codes, and diagnostics printed and turned into an exit code (the only place that does).

Exit codes: 0 clean, 1 errors (or failed tests), 2 usage (the command line itself was wrong).
"""

from __future__ import annotations

import sys

from ruleslang.base.diagnostics import Diagnostic, DiagnosticError, error, render_all_text, render_json
from ruleslang.base.fileio import file_problem, write_atomic
from ruleslang.lang.compose.composition import composition_lines

EXIT_OK, EXIT_ERRORS, EXIT_USAGE = 0, 1, 2


def report_diagnostics(diagnostics: list[Diagnostic], fmt: str) -> int:
    """Print `diagnostics` (JSON on stdout, text on stderr) and return the exit code they call for."""
    stream = sys.stdout if fmt == "json" else sys.stderr
    if fmt == "json":
        print(render_json(diagnostics), file=stream)
    elif diagnostics:
        print(render_all_text(diagnostics), file=stream)
    errors = [d for d in diagnostics if d.is_error]
    if errors and all(d.code.startswith("U") for d in errors):
        return EXIT_USAGE  # the command line itself was wrong (an unknown option, a bad argument)
    return EXIT_ERRORS if errors else EXIT_OK


def show_composition(ruleset, fmt: str) -> None:
    """--show-composition: the resolved composition as a tree (on stderr under --format json, so that
    standard output stays one JSON document)."""
    stream = sys.stderr if fmt == "json" else sys.stdout
    print("\n".join(composition_lines(ruleset)), file=stream)


def unwritable_output(path: str, problem: str) -> DiagnosticError:
    """U107: an output path the command cannot write, and why."""
    return DiagnosticError(error("U107", f"cannot write {path}: {problem}", file=path))


def check_output_file(path: str) -> None:
    """Refuse (U107) an output file that cannot be written, before any work is done."""
    problem = file_problem(path)
    if problem:
        raise unwritable_output(path, problem)


def write_output(path: str, text: str) -> None:
    """Write an output file atomically (never half-written); a failure is U107."""
    try:
        write_atomic(path, text)
    except OSError as exc:  # checked before the work; what is left is a full disk or a race
        raise unwritable_output(path, exc.strerror or str(exc)) from None
