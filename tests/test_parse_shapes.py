"""Parse shapes as one-line AST dumps: `tests/cases/parse_shapes.txt` holds `expr` / `=>` pairs."""

from pathlib import Path

import pytest

from ruleslang.lang.syntax.ast import dump
from ruleslang.lang.syntax.parser import parse_expression, parse_module
from ruleslang.base.source import Source

CASES = Path(__file__).parent / "cases" / "parse_shapes.txt"


def _cases():
    text = CASES.read_text(encoding="utf-8")
    pairs, source = [], None
    for line in text.splitlines():
        if line.startswith("expr: "):
            source = line[len("expr: "):]
        elif line.startswith("=> "):
            pairs.append((source, line[3:]))
            source = None
    return pairs


@pytest.mark.parametrize("source,expected", _cases())
def test_expression_shape(source, expected):
    assert dump(parse_expression(Source("<case>", source))) == expected


def test_declarations_keep_their_spans():
    text = 'ruleset t/x@1\nformula f(a: int) -> int = a + 1\n'
    module = parse_module(Source("x.rules", text))
    decl = module.items[0]
    assert (decl.name.span.line, decl.name.span.column) == (2, 9)
    body = decl.body
    assert body.span.text == "a + 1"
    assert (body.right.span.line, body.right.span.column) == (2, 32)


def test_several_players_on_one_line_are_several_declarations():
    module = parse_module(Source("x.rules", "ruleset t/x@1\nplayer A, B, C\n"))
    assert [d.name.text for d in module.items] == ["A", "B", "C"]
