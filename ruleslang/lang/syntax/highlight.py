"""Syntax highlighting of rules: a Pygments lexer, and a TextMate grammar for editors.

Both are made from the lark grammar itself (its keywords and its terminals for references, dice,
numbers and texts), so they cannot drift from what the parser reads. Pygments finds the lexer by
the `pygments.lexers` entry point (`pygmentize -l ruleslang FILE.rules`); the TextMate grammar is
written into editors/vscode/ by `python -m ruleslang.lang.syntax.highlight editors/vscode/syntaxes`.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from pygments.lexer import RegexLexer, bygroups, words
from pygments.token import Comment, Keyword, Name, Number, Operator, Punctuation, String, Text, Whitespace

from ruleslang.lang.syntax.grammar import grammar_terms

# words of the grammar that begin a declaration (highlighted as declarations, the rest as keywords)
_DECLARATIONS = ("ruleset", "uses", "revises", "map", "title", "source", "note", "unit", "tag", "tags", "attribute",
                 "formula", "modifiers", "table", "die", "constant", "counter", "option", "fact", "player", "side",
                 "enum", "type", "phase", "step", "hook", "sequence", "constraint", "advice", "check", "test",
                 "override", "remove")
_CONSTANTS = ("true", "false", "none")


def _versioned(ref_pattern: str) -> str:
    """The grammar's REF pattern with its `@N` required."""
    return ref_pattern.replace("(?:@[0-9]+)?", "@[0-9]+")


def _tokens() -> dict:
    terms = grammar_terms()
    pattern = terms["patterns"]
    plain = [k for k in terms["keywords"] if k not in _DECLARATIONS and k not in _CONSTANTS]
    return {"root": [
        (r"\s+", Whitespace),
        (r"#[^\n]*", Comment.Single),
        (pattern["STRING"], String.Double),
        # a reference with its version (`uses fam/name@1`); without one, `a/b` reads as a division
        (_versioned(pattern["REF"]), Name.Namespace),
        (pattern["DICE"], Number.Integer),
        (pattern["DECIMAL"], Number.Float),
        (pattern["INT"], Number.Integer),
        (words(_DECLARATIONS, suffix=r"\b"), Keyword.Declaration),
        (words(_CONSTANTS, suffix=r"\b"), Keyword.Constant),
        (words(plain, suffix=r"\b"), Keyword),
        (r"(\w+)(\s*)(\()", bygroups(Name.Function, Text, Punctuation)),
        (r"[A-Za-z_]\w*", Name),
        (r"->|=>|==|!=|<=|>=|\.\.|[-+*/^<>=!]", Operator),
        (r"[()\[\]{}:,.@|?]", Punctuation),
        (r".", Text),
    ]}


class RulesLexer(RegexLexer):
    """Pygments lexer for ruleslang rulesets (`.rules`)."""

    name = "ruleslang"
    aliases = ["ruleslang", "rules"]
    filenames = ["*.rules"]
    tokens = _tokens()


def textmate_grammar() -> dict:
    """A TextMate grammar (JSON) of the language, for VS Code and the editors that read TextMate grammars."""
    terms = grammar_terms()
    pattern = terms["patterns"]

    def keyword_match(names, scope):
        return {"match": r"\b(" + "|".join(sorted(names, key=lambda n: (-len(n), n))) + r")\b", "name": scope}

    plain = [k for k in terms["keywords"] if k not in _DECLARATIONS and k not in _CONSTANTS]
    return {
        "$schema": "https://raw.githubusercontent.com/martinring/tmlanguage/master/tmlanguage.json",
        "name": "ruleslang",
        "scopeName": "source.ruleslang",
        "fileTypes": ["rules"],
        "patterns": [
            {"match": "#.*$", "name": "comment.line.number-sign.ruleslang"},
            {"match": pattern["STRING"], "name": "string.quoted.double.ruleslang"},
            {"match": _versioned(pattern["REF"]), "name": "entity.name.namespace.ruleslang"},
            {"match": r"\b" + pattern["DICE"], "name": "constant.numeric.dice.ruleslang"},
            {"match": r"\b" + pattern["DECIMAL"] + r"\b", "name": "constant.numeric.decimal.ruleslang"},
            {"match": r"\b" + pattern["INT"] + r"\b", "name": "constant.numeric.integer.ruleslang"},
            keyword_match(_DECLARATIONS, "storage.type.ruleslang"),
            keyword_match(_CONSTANTS, "constant.language.ruleslang"),
            keyword_match(plain, "keyword.control.ruleslang"),
            {"match": r"\b([A-Za-z_]\w*)(?=\s*\()", "name": "entity.name.function.ruleslang"},
            {"match": r"->|=>|==|!=|<=|>=|\.\.|[-+*/^<>=!]", "name": "keyword.operator.ruleslang"},
        ],
    }


def main(argv: list[str]) -> int:
    """Write the TextMate grammar into the folder given (editors/vscode/syntaxes)."""
    folder = Path(argv[0]) if argv else Path("editors/vscode/syntaxes")
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "ruleslang.tmLanguage.json").write_text(json.dumps(textmate_grammar(), indent=2) + "\n",
                                                     encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
