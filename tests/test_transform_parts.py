"""The lark tree -> AST transform is one class composed of parts in their own modules
(lang/syntax/transform*.py). lark's `@v_args(meta=True)` on a class reaches only the methods
written in that class, so a part without its own decorator would have its callbacks called
without the node's meta: these tests fail if any part's rule loses its meta or its span, or if a
tree the grammar can build has no callback."""

from __future__ import annotations

from lark import Transformer

from ruleslang.base.source import Source
from ruleslang.lang.syntax.lalr import get_parser
from ruleslang.lang.syntax.parser import parse_module
from ruleslang.lang.syntax.transform import ToAst
from ruleslang.lang.syntax.transform_declarations import DeclarationTransform
from ruleslang.lang.syntax.transform_expressions import ExpressionTransform
from ruleslang.lang.syntax.transform_rule_tests import RuleTestTransform
from ruleslang.lang.syntax.transform_statements import StatementTransform

PARTS = (ToAst, DeclarationTransform, RuleTestTransform, StatementTransform, ExpressionTransform)


def _callbacks() -> dict[str, type]:
    """Every grammar callback of the transform, with the class that writes it."""
    found = {}
    for cls in PARTS:
        for name in vars(cls):
            if not name.startswith("_") and not hasattr(Transformer, name):
                assert name not in found, f"{name} is written in {found.get(name)} and {cls}"
                found[name] = cls
    return found


def _tree_names() -> set[str]:
    """The names of the trees lark's parser can build from the grammar (rules inlined by `_name`,
    or by `?name` over a single child, build none)."""
    names = set()
    for rule in get_parser().rules:
        name = rule.alias or rule.origin.name
        if name.startswith("_"):
            continue
        kept = [s for s in rule.expansion if not (s.is_term and s.filter_out)]
        if rule.options.expand1 and not rule.alias and len(kept) == 1 and not kept[0].name.startswith("_"):
            continue
        names.add(str(name))
    return names


def test_every_part_writes_callbacks_and_each_gets_larks_meta():
    callbacks = _callbacks()
    assert set(callbacks.values()) == set(PARTS)
    meta_wrapper = vars(ToAst)["start"].visit_wrapper       # the composed class's own decorator
    assert meta_wrapper is not None
    missing = sorted(name for name in callbacks if getattr(getattr(ToAst, name), "visit_wrapper", None)
                     is not meta_wrapper)
    assert missing == []


def test_every_tree_the_grammar_builds_has_a_callback():
    names = _tree_names()
    assert len(names) > 100                                 # the grammar's, not an empty list
    assert sorted(names - set(_callbacks())) == []


TEXT = '''ruleset t/parts@1
player A
formula twice(n: int) -> int = n * 2
phase tally:
    let p = twice(3)
    log "{p + 1} counted"
test "twice doubles":
    expect twice(2) == 4
'''


def test_a_node_from_each_part_has_its_span():
    module = parse_module(Source("parts.rules", TEXT))
    header, (player, formula, phase, test) = module.header, module.items
    assert header.span.text == "ruleset t/parts@1"                          # transform.ToAst
    assert (player.span.text, formula.span.text) == ("player A", "formula twice(n: int) -> int = n * 2")
    assert formula.body.span.text == "n * 2"                                # expressions
    let, log = phase.procedure.body.stmts                                   # statements
    assert (let.span.text, log.span.text) == ("let p = twice(3)", 'log "{p + 1} counted"')
    interpolated = log.message.parts[0]                                     # a fragment: its offset
    assert (interpolated.span.text, interpolated.span.line, interpolated.span.column) == ("p + 1", 6, 11)
    (expect,) = test.lines                                                  # rule tests
    assert expect.span.text == "expect twice(2) == 4"
    assert (expect.expr.span.line, expect.expr.span.column) == (8, 12)
