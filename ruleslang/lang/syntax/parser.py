"""Parsing, with the parse cache in front: what the rest of the package calls to turn text into an AST.

`parse_module` turns a ruleset file's text into an AST `Module` or raises `DiagnosticError` with
located parse diagnostics (codes P001-P009); `parse_expression` does the same for a lone expression.
The parsing itself is lark's (`lalr`, loaded only when a text is parsed).

A parsed ruleset is kept in the user's cache directory (`base/cache.py`: checked whole before it
is read, written atomically) as data (`astcodec`), under a name made from the text and everything
its parse depends on (the grammar, the code that builds the AST, lark's and Python's versions), so
the shipped rulesets are parsed once per installation rather than once per command, and a process
that finds all it needs there does not load lark. Only texts of some size are kept (a small one
parses in less time than an entry takes to read), and only the entries used last. A text that
does not parse is never kept: its diagnostics are computed every time.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.util
import sys
from pathlib import Path

from ruleslang.base.cache import read_cached, touch, write_cached
from ruleslang.base.source import Source
from ruleslang.lang.syntax import astcodec
from ruleslang.lang.syntax.expressions import Expr
from ruleslang.lang.syntax.declarations import Module
from ruleslang.lang.syntax.grammar import grammar_text

# Texts shorter than this are parsed, not looked up: their parse is quicker than a cache read.
MIN_CACHED_CHARS = 4000
# At most this many parsed texts are kept (the ones used last).
MAX_CACHED_MODULES = 256
# The modules whose code decides what AST a text parses to (read as files: importing them would load lark).
# tests/test_ast_cache.py checks every module lalr.py imports from here is listed.
_PARSING_MODULES = ("lalr.py", "transform.py", "transform_tokens.py", "transform_declarations.py",
                    "transform_rule_tests.py", "transform_statements.py", "transform_expressions.py",
                    "ast.py", "expressions.py", "statements.py", "declarations.py", "astcodec.py")
# the modules of ruleslang.base they read that decide the tree: the limits a text is held to (a
# lowered limit must refuse again what a tree cached under the old one was allowed) and the
# spans' lines and columns
_PARSING_BASE_MODULES = ("limits.py", "source.py")


@functools.lru_cache(maxsize=1)
def _module_cache_key() -> bytes:
    """What a parsed module depends on besides its text."""
    key = hashlib.sha256(grammar_text().encode("utf-8"))
    here = Path(__file__).resolve().parent
    for name in _PARSING_MODULES:
        key.update(hashlib.sha256((here / name).read_bytes()).digest())
    for name in _PARSING_BASE_MODULES:
        key.update(hashlib.sha256((here.parent.parent / "base" / name).read_bytes()).digest())
    # lark's version, from its package file without importing it
    spec = importlib.util.find_spec("lark")
    if spec is not None and spec.origin:
        key.update(hashlib.sha256(Path(spec.origin).read_bytes()).digest())
    key.update(f"{sys.version_info[0]}.{sys.version_info[1]}".encode())
    return key.digest()


def module_cache_name(text: str) -> str:
    """The cache file of the AST of `text`."""
    key = hashlib.sha256(_module_cache_key())
    key.update(text.encode("utf-8", "surrogatepass"))
    return f"ast-{key.hexdigest()[:40]}.json"


def parse_module(source: Source) -> Module:
    """Parse a whole ruleset file into its AST (read from the parse cache when this text was parsed before)."""
    name = module_cache_name(source.text) if len(source.text) >= MIN_CACHED_CHARS else None
    if name is not None:
        payload = read_cached(name)
        module = astcodec.decode(payload, source) if payload is not None else None
        if module is not None:
            touch(name)
            return module
    # start-up time: lark loads only when a text is parsed
    from ruleslang.lang.syntax import lalr

    module = lalr.parse_module(source)
    if name is not None:
        payload = astcodec.encode(module)
        if payload is not None:
            write_cached(name, payload, keep=MAX_CACHED_MODULES)
    return module


def parse_expression(source: Source) -> Expr:
    """Parse a lone expression (from the command line or an interpolation)."""
    # start-up time: lark loads only when a text is parsed
    from ruleslang.lang.syntax import lalr

    return lalr.parse_expression(source)
