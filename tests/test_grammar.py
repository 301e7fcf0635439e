"""The grammar builds in strict mode, from the installed package, once per process."""

import importlib.resources

import pytest
from lark import Lark
from lark.exceptions import GrammarError

from ruleslang.lang.syntax import grammar, lalr as parser
from conftest import REPO


def test_parser_is_strict_lalr_and_built_once():
    p = parser.get_parser()
    assert p.options.parser == "lalr"
    assert p.options.strict is True
    assert parser.get_parser() is p


def test_grammar_is_loaded_from_the_installed_package():
    resource = importlib.resources.files("ruleslang.grammar") / "ruleslang.lark"
    assert resource.is_file()
    assert grammar.grammar_location() == str(resource)
    checkout = REPO / "grammar" / "ruleslang.lark"
    if checkout.is_file():
        assert resource.read_text(encoding="utf-8") == checkout.read_text(encoding="utf-8")


def test_a_conflict_in_the_grammar_fails_the_build():
    text = grammar.grammar_text()
    # A second rule for `a - b` makes subtraction ambiguous: strict mode must refuse it.
    broken = text.replace("?sum_expr: product", "?sum_expr: product\n         | sum_expr SIGN sum_expr -> again\n", 1)
    assert broken != text
    with pytest.raises(GrammarError):
        Lark(broken, parser="lalr", strict=True, postlex=parser._Indenter(), start=["start", "expr"])


def test_every_package_of_the_source_ships_in_the_wheel():
    """pyproject lists its packages by hand (grammar/ and rulesets/ are mapped in): a package
    missing from the list works in an editable install and breaks every other."""
    import tomllib

    listed = set(tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]["packages"])
    found = {".".join(p.parent.relative_to(REPO).parts) for p in (REPO / "ruleslang").rglob("__init__.py")}
    assert found <= listed, f"not shipped: {sorted(found - listed)}"


def test_every_ruleset_folder_is_listed_so_the_install_is_quiet():
    """setuptools warns ("Package would be ignored", a screenful each) about every folder of
    package data that `packages` does not list: a new ruleset family or scenarios folder must be
    listed, or a newcomer's `pip install .` prints pages of warnings."""
    import tomllib

    listed = set(tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]["packages"])
    folders = {".".join(("ruleslang", "rulesets", *d.relative_to(REPO / "rulesets").parts))
               for d in (REPO / "rulesets").rglob("*") if d.is_dir() and d.name != "__pycache__"}
    assert folders, "no ruleset folder found"
    assert folders <= listed, f"not listed in pyproject's packages: {sorted(folders - listed)}"
