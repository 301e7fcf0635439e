"""Where the grammar is and its text: the shipped `grammar/ruleslang.lark` (lark reads it in `lalr`,
the highlighter in `highlight`); nothing here loads lark."""

from __future__ import annotations

import importlib.resources
from pathlib import Path

GRAMMAR_PACKAGE = "ruleslang.grammar"
GRAMMAR_FILE = "ruleslang.lark"


def grammar_location() -> str:
    """Where the grammar is read from: the installed package, or a source checkout."""
    try:
        resource = importlib.resources.files(GRAMMAR_PACKAGE) / GRAMMAR_FILE
        if resource.is_file():
            return str(resource)
    except ModuleNotFoundError:
        pass
    # Running from a source checkout that was never installed: grammar/ sits beside the package.
    # (this file is ruleslang/lang/syntax/grammar.py: the checkout is three folders up)
    checkout = Path(__file__).resolve().parents[3] / "grammar" / GRAMMAR_FILE
    return str(checkout)


def grammar_text() -> str:
    """The grammar's text (the installed package's, or a source checkout's)."""
    try:
        return (importlib.resources.files(GRAMMAR_PACKAGE) / GRAMMAR_FILE).read_text(encoding="utf-8")
    except (ModuleNotFoundError, FileNotFoundError):
        return Path(grammar_location()).read_text(encoding="utf-8")
