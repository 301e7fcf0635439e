"""Where the grammar is, its text, and its tokens: the shipped `grammar/ruleslang.lark` (lark reads it
in `lalr`; the highlighter in `highlight` and the formatter in `formatter` take their tokens from it
through `grammar_terms`); nothing here loads lark."""

from __future__ import annotations

import functools
import re
from pathlib import Path

from ruleslang.base.paths import package_folder

GRAMMAR_PACKAGE = "ruleslang.grammar"
GRAMMAR_FILE = "ruleslang.lark"


def grammar_location() -> str:
    """Where the grammar is read from: the installed package, or a source checkout."""
    folder = package_folder(GRAMMAR_PACKAGE)
    if folder is not None and (folder / GRAMMAR_FILE).is_file():
        return str(folder / GRAMMAR_FILE)
    # Running from a source checkout that was never installed: grammar/ sits beside the package.
    # (this file is ruleslang/lang/syntax/grammar.py: the checkout is three folders up)
    checkout = Path(__file__).resolve().parents[3] / "grammar" / GRAMMAR_FILE
    return str(checkout)


def grammar_text() -> str:
    """The grammar's text (the installed package's, or a source checkout's)."""
    return Path(grammar_location()).read_text(encoding="utf-8")


# the grammar's named terminals other modules lex with (the rest are words and symbols)
NAMED_TERMINALS = ("COMMENT", "STRING", "REF", "DICE", "NAME", "DECIMAL", "INT")
_REGEX_TERMINAL = re.compile(r"^[A-Z_]+(?:\.\d+)?:\s*/")


@functools.lru_cache(maxsize=1)
def grammar_terms() -> dict:
    """The grammar's tokens: `keywords` (its quoted words, sorted), `symbols` (its quoted operators
    and punctuation, longest first, so that a lexer trying them in order takes `..` before `.`) and
    `patterns` (the regular expression of each of NAMED_TERMINALS)."""
    text = grammar_text()
    keywords = sorted(set(re.findall(r'"([a-z_]+)"', text)))
    # the quoted strings of rules and string terminals; not those inside a regular expression or a comment
    rule_lines = [line for line in text.splitlines()
                  if not line.lstrip().startswith("//") and not _REGEX_TERMINAL.match(line)]
    symbols = sorted(set(re.findall(r'"([^A-Za-z0-9_"\s\\]+)"', "\n".join(rule_lines))), key=lambda s: (-len(s), s))
    patterns = {}
    for name in NAMED_TERMINALS:
        found = re.search(rf"^{name}(?:\.\d+)?:\s*/(.*)/\s*$", text, re.M)
        patterns[name] = found.group(1) if found else None
    return {"keywords": keywords, "symbols": symbols, "patterns": patterns}
