"""`ruleslang fmt`: one canonical layout that never changes what a file says.

The corpus is every shipped ruleset and every fixture ruleset. Properties: formatting keeps the
AST (spans aside), formatting twice changes nothing, and a file whose white space was disturbed
(deeper indentation, more spaces where there was one, trailing spaces, more blank lines) formats
to the same text as the original.
"""

import functools
import io
import random
from contextlib import redirect_stderr, redirect_stdout

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from ruleslang.base.diagnostics import DiagnosticError
from ruleslang.base.paths import packaged_root
from ruleslang.base.source import Source
from ruleslang.cli.app import main
from ruleslang.lang.syntax.formatter import format_source, layout
from ruleslang.lang.syntax.parser import parse_module

from conftest import FIXTURES

CORPUS = sorted(packaged_root().rglob("*.rules")) + sorted(FIXTURES.rglob("*.rules"))
TEXTS = {str(p): p.read_text(encoding="utf-8") for p in CORPUS}


def run(argv):
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        try:
            code = main(argv)
        except SystemExit as exc:
            code = exc.code
    return code, out.getvalue(), err.getvalue()


def parse(name, text):
    return parse_module(Source(name, text))


@functools.lru_cache(maxsize=None)
def original_ast(name):
    return parse(name, TEXTS[name])


def test_corpus_is_not_empty():
    assert len(CORPUS) > 20


@pytest.mark.parametrize("name", sorted(TEXTS))
def test_formatting_keeps_the_program_and_is_idempotent(name):
    text = TEXTS[name]
    once = layout(text)
    assert parse(name, once) == original_ast(name)
    assert layout(once) == once


def test_shipped_rulesets_are_formatted():
    """What CI runs: `ruleslang fmt --check` of the shipped rulesets."""
    code, out, err = run(["fmt", "--check", str(packaged_root())])
    assert (code, out, err) == (0, "", "")


@st.composite
def disturbed(draw):
    """A corpus file with its white space disturbed (but every token's space / no space kept)."""
    name = draw(st.sampled_from(sorted(TEXTS)))
    scale = draw(st.sampled_from([1, 2, 3]))
    rng = random.Random(draw(st.integers(0, 2**32)))  # one draw, not one a character: inputs stay small
    return name, disturb(TEXTS[name], scale, rng)


def disturb(text, scale, rng):
    """`text` with blocks indented `scale` times deeper and random extra white space."""
    lines = text.split("\n")
    out = []
    statement = (0, 0)  # (old, new) column of the statement a continuation line continues
    depth, continued = 0, False
    for line in lines:
        body = line.lstrip(" ")
        column = len(line) - len(body)
        if depth > 0 or continued:
            column = statement[1] + (column - statement[0])
        elif body.startswith("#"):
            column *= scale
        elif body:
            statement = (column, column * scale)
            column *= scale
        body = _wider(rng, body)
        if body:
            depth, continued = _brackets(body, depth)
        out.append(" " * max(column, 0) + body + " " * rng.randint(0, 2))
        if not body and rng.random() < 0.5:
            out.append("")
    return "\n".join(out)


def _brackets(body, depth):
    """The bracket depth after a line, and whether it ends in a backslash (strings and comments skipped)."""
    i, text = 0, body
    while i < len(text):
        ch = text[i]
        if ch == '"':
            i += 1
            while i < len(text) and text[i] != '"':
                i += 2 if text[i] == "\\" else 1
        elif ch == "#":
            break
        elif ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth = max(0, depth - 1)
        i += 1
    return depth, text.rstrip().endswith("\\") and "#" not in text


def _wider(rng, body):
    """A line with some of its single spaces (outside strings and comments) made two or three."""
    out, i = [], 0
    while i < len(body):
        ch = body[i]
        if ch == '"':
            j = i + 1
            while j < len(body) and body[j] != '"':
                j += 2 if body[j] == "\\" else 1
            out.append(body[i:j + 1])
            i = j + 1
            continue
        if ch == "#":
            out.append(body[i:])
            break
        if ch == " " and rng.random() < 0.25:
            out.append(" " * rng.randint(2, 3))
        else:
            out.append(ch)
        i += 1
    return "".join(out)


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(disturbed())
def test_disturbed_white_space_formats_back(case):
    name, text = case
    assert parse(name, text) == original_ast(name)
    assert layout(text) == layout(TEXTS[name])


def test_layout_examples():
    text = ("ruleset t/x@1\n"
            "formula  f( a : int )->int=if a>0 then -a else a*2   #  why\n"
            "table t(n: int) -> int:\n"
            "  1 -> -1\n"
            "  100..   -> 2\n"
            "\n\n\n"
            "test \"x\":\n"
            "  expect f(1)==-1 and probability(d6 == 1) == 1/6\n")
    assert format_source(Source("x.rules", text)) == (
        "ruleset t/x@1\n"
        "formula f(a: int) -> int = if a > 0 then -a else a * 2  #  why\n"
        "table t(n: int) -> int:\n"
        "    1     -> -1\n"
        "    100.. -> 2\n"
        "\n"
        "test \"x\":\n"
        "    expect f(1) == -1 and probability(d6 == 1) == 1/6\n")


def test_comments_keep_their_block():
    text = "ruleset t/x@1\nphase p:\n  # inside\n  log \"a\"\n    # still inside\n# outside\nconstant c = 1\n"
    assert format_source(Source("x.rules", text)) == (
        "ruleset t/x@1\nphase p:\n    # inside\n    log \"a\"\n    # still inside\n# outside\nconstant c = 1\n")


def test_a_file_that_does_not_parse_is_reported_and_left(tmp_path):
    bad = tmp_path / "bad.rules"
    bad.write_text("ruleset t/x@1\nformula f( = 1\n", encoding="utf-8")
    code, out, err = run(["fmt", str(bad)])
    assert code == 1 and "bad.rules:2:" in err and "P001" in err
    assert bad.read_text(encoding="utf-8") == "ruleset t/x@1\nformula f( = 1\n"
    with pytest.raises(DiagnosticError):
        format_source(Source("bad.rules", "ruleset t/x@1\nformula f( = 1\n"))


def test_check_lists_and_fmt_rewrites(tmp_path):
    (tmp_path / "sub").mkdir()
    messy = tmp_path / "sub" / "a@1.rules"
    messy.write_text("ruleset t/a@1\nconstant  c=1\n", encoding="utf-8")
    clean = tmp_path / "b@1.rules"
    clean.write_text("ruleset t/b@1\nconstant c = 1\n", encoding="utf-8")
    code, out, err = run(["fmt", "--check", str(tmp_path)])
    assert code == 1 and out == f"would reformat {messy}\n" and err == ""
    assert messy.read_text(encoding="utf-8") == "ruleset t/a@1\nconstant  c=1\n"
    code, out, err = run(["fmt", str(tmp_path), "--format", "json"])
    assert code == 0 and '"changed": [\n    "' + str(messy) in out
    assert messy.read_text(encoding="utf-8") == "ruleset t/a@1\nconstant c = 1\n"
    assert run(["fmt", "--check", str(tmp_path)])[0] == 0


def test_a_missing_path_is_a_usage_error(tmp_path):
    code, out, err = run(["fmt", str(tmp_path / "nothing")])
    assert code == 2 and "U130" in err


def test_help_explains():
    code, out, err = run(["fmt", "--help"])
    assert code == 0 and "--check" in out and "canonical layout" in out
