"""Highlighting made from the grammar: the Pygments lexer reads every shipped ruleset without an
error token, and the TextMate grammar in editors/vscode is the one the grammar gives today."""

import json
import re
from pathlib import Path

from pygments.lexers import get_lexer_by_name
from pygments.token import Error, Keyword, Name, Number, Operator, String

from ruleslang.lang.syntax.highlight import RulesLexer, grammar_terms, textmate_grammar

REPO = Path(__file__).parent.parent


def test_every_shipped_ruleset_lexes_without_errors():
    lexer = RulesLexer()
    files = sorted((REPO / "rulesets").rglob("*.rules"))
    assert files
    for path in files:
        bad = [value for token, value in lexer.get_tokens(path.read_text(encoding="utf-8")) if token in Error]
        assert not bad, (path, bad[:5])


def test_the_lexer_tells_keywords_references_dice_and_texts_apart():
    tokens = [(t, v) for t, v in RulesLexer().get_tokens('uses fam/name@2\nformula f(x: int) -> int = 2d6 + x / 2 '
                                                          '# c\ntitle "t"\n') if v.strip()]
    kinds = dict((v, t) for t, v in tokens)
    assert kinds["uses"] in Keyword and kinds["fam/name@2"] in Name.Namespace
    assert kinds["2d6"] in Number and kinds['"t"'] in String and kinds["f"] in Name.Function
    # a division is an operator between names, not a reference
    assert kinds["/"] in Operator and [v for t, v in tokens if t in Name.Namespace] == ["fam/name@2"]


def test_pygments_finds_the_lexer_by_its_entry_point():
    assert isinstance(get_lexer_by_name("ruleslang"), RulesLexer)


def test_the_keywords_are_the_grammars():
    grammar = (REPO / "grammar" / "ruleslang.lark").read_text(encoding="utf-8")
    assert grammar_terms()["keywords"] == sorted(set(re.findall(r'"([a-z_]+)"', grammar)))
    assert {"formula", "hook", "override", "expect"} <= set(grammar_terms()["keywords"])


def test_the_vscode_grammar_is_up_to_date():
    shipped = json.loads((REPO / "editors" / "vscode" / "syntaxes" / "ruleslang.tmLanguage.json").read_text())
    assert shipped == textmate_grammar(), "run: python -m ruleslang.lang.syntax.highlight editors/vscode/syntaxes"


def test_the_tokens_read_from_the_grammar_are_the_ones_lark_builds():
    """The formatter and the highlighters lex with grammar_terms(); lark's own terminals agree."""
    from ruleslang.lang.syntax.grammar import grammar_terms, grammar_text
    from ruleslang.lang.syntax.lalr import get_parser

    terms = grammar_terms()
    built = {t.name: t.pattern for t in get_parser().terminals}
    for name in ("STRING", "REF", "DICE", "NAME", "DECIMAL", "INT"):
        # lark reads `\n` in a pattern as the newline itself
        assert terms["patterns"][name].replace("\\n", "\n") == built[name].to_regexp(), name
    # COMMENT is folded into the parser's newline terminal; its pattern is inside that one
    assert terms["patterns"]["COMMENT"].replace("\\n", "\n") in built["_NL"].to_regexp()
    symbols = {p.value for p in built.values() if p.type == "str" and not re.fullmatch(r"[A-Za-z_]+", p.value)}
    # the operators lark builds from the rules' strings (and its SIGN, MUL_OP, COMP_OP terminals)
    for name in ("SIGN", "MUL_OP", "COMP_OP"):
        symbols |= set(re.findall(r'"([^"]+)"', next(line for line in grammar_text().splitlines()
                                                     if line.startswith(name + ":"))))
    assert set(terms["symbols"]) == symbols
    assert terms["symbols"].index("..") < terms["symbols"].index(".")  # longest first
