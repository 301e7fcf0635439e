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


from ruleslang.base.diagnostics import Diagnostic, DiagnosticError, error, render_all_text, render_json
from ruleslang.base.fileio import file_problem, write_atomic
from ruleslang.lang.compose.composition import composition_lines
