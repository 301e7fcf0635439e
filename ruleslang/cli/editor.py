"""`ruleslang lsp`: the language server an editor starts (docs/editors.md)."""

from __future__ import annotations

import argparse

from ruleslang.cli.output import EXIT_OK


def add_parser(sub, common) -> None:
    """The `lsp` command's parser."""
    p = sub.add_parser("lsp", help="the language server for editors (LSP over stdin/stdout)",
                       description="Serve the Language Server Protocol over standard input and output: "
                                   "diagnostics as you type, hover, go to definition, references, completion "
                                   "and a code lens running each rule test. An editor starts it (see "
                                   "docs/editors.md); it is not meant to be typed at.")
    common(p, fmt=False)


def cmd_lsp(args: argparse.Namespace) -> int:
    """Serve one editor until it exits."""
    # start-up time: pygls and the whole pipeline load only for this command, not for every other one
    from ruleslang.lsp.server import serve
    serve(args.rulesets)
    return EXIT_OK
