"""`ruleslang fmt`: ruleset files rewritten in the canonical layout, or (`--check`) listed."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from ruleslang.base.diagnostics import Diagnostic, DiagnosticError, error, sort_diagnostics
from ruleslang.base.source import Source
from ruleslang.cli.output import EXIT_ERRORS, EXIT_OK, report_diagnostics, write_output

DESCRIPTION = """\
Rewrite ruleset files in the one canonical layout (like gofmt): four spaces a block level, one
space between tokens (none inside brackets or before a call's parenthesis), a table's cells lined
up in columns, trailing comments two spaces after the code, one blank line at most, one newline at
the end. Your line breaks and comments are kept. A file is rewritten only when the result parses
to the same program as before (spans aside). A PATH is a .rules file or a folder (its .rules files,
recursively); with none, the current folder.

With --check nothing is written: the files that would change are listed, and the exit code is 1
if there is any (for CI). A file that does not parse is reported (its syntax errors) and left as
it is; the exit code is then 1.
"""


def rules_files(paths: list[str]) -> tuple[list[Path], list[Diagnostic]]:
    """The .rules files named by `paths` (files, or folders searched recursively), sorted, and U130
    for a path that is neither."""
    files, problems = [], []
    for name in paths or ["."]:
        path = Path(name)
        if path.is_dir():
            files.extend(sorted(p for p in path.rglob("*.rules") if p.is_file()))
        elif path.is_file():
            files.append(path)
        else:
            problems.append(error("U130", f"{name} is neither a .rules file nor a folder", file=name))
    return files, problems


def cmd_fmt(args) -> int:
    """`ruleslang fmt [--check] [PATH ...]`."""
    # start-up time: the formatter loads the parser (lark) only for this command
    from ruleslang.lang.syntax.formatter import format_source

    files, diagnostics = rules_files(args.paths)
    if diagnostics:
        return report_diagnostics(diagnostics, args.format)
    changed: list[str] = []
    for path in files:
        text = path.read_text(encoding="utf-8")
        try:
            formatted = format_source(Source(str(path), text))
        except DiagnosticError as exc:
            diagnostics.extend(exc.diagnostics)
            continue
        if formatted != text:
            changed.append(str(path))
            if not args.check:
                write_output(str(path), formatted)
    if args.format == "json":
        print(json.dumps({"check": args.check, "files": len(files), "changed": changed,
                          "diagnostics": [d.to_json() for d in sort_diagnostics(diagnostics)]}, indent=2))
    else:
        verb = "would reformat" if args.check else "reformatted"
        for name in changed:
            print(f"{verb} {name}")
        report_diagnostics(diagnostics, "text")
    if diagnostics or (args.check and changed):
        return EXIT_ERRORS
    return EXIT_OK


def add_parser(sub) -> None:
    """The `fmt` command's arguments."""
    p = sub.add_parser("fmt", help="rewrite ruleset files in the canonical layout (--check: list, for CI)",
                       description=DESCRIPTION, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("paths", nargs="*", metavar="PATH", help="a .rules file or a folder (default: the current folder)")
    p.add_argument("--check", action="store_true",
                   help="write nothing; list the files that would change and exit 1 if there is any")
    p.add_argument("--format", choices=["text", "json"], default="text", help="output format (default text)")
