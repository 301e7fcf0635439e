"""Parsed rulesets are kept between processes (lang/syntax/astcodec.py, parser.parse_module): the AST
read back is the one parsing gives, spans included; a payload that is not one this AST can read (a
class or field that is not the AST's, garbage, a damaged entry) is never trusted and the text is
parsed again; small texts are not kept, and the number kept is bounded."""

from __future__ import annotations

import ast as pyast
import json
from pathlib import Path

import pytest

from ruleslang.base.cache import CACHE_ENV, read_cached
from ruleslang.base.source import Source
from ruleslang.lang.syntax import ast, astcodec
from ruleslang.lang.syntax import lalr
from ruleslang.lang.syntax import parser as P

from conftest import REPO

SHIPPED = sorted((REPO / "rulesets").rglob("*.rules"))


def _spans(module) -> list:
    return [(type(n).__name__, n.span.start, n.span.end) for n in ast.walk(module)]


def _fresh(path: Path, monkeypatch):
    """The module as parsed, with the cache off."""
    text = path.read_text(encoding="utf-8")
    source = Source(str(path), text)
    with monkeypatch.context() as m:
        m.setenv(CACHE_ENV, "off")
        return source, P.parse_module(source)


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv(CACHE_ENV, str(tmp_path / "cache"))
    return tmp_path / "cache"


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: p.relative_to(REPO / "rulesets").as_posix())
def test_every_shipped_ruleset_reads_back_as_parsed(path, monkeypatch):
    source, module = _fresh(path, monkeypatch)
    again = Source(str(path), source.text)
    back = astcodec.decode(astcodec.encode(module), again)
    assert back == module
    assert ast.dump(back) == ast.dump(module)
    assert _spans(back) == _spans(module)
    assert all(n.span.source is again for n in ast.walk(back))


def _payload(monkeypatch) -> tuple[Source, dict]:
    source, module = _fresh(REPO / "rulesets" / "aar" / "commerce-raiding@1.rules", monkeypatch)
    return source, json.loads(astcodec.encode(module))


@pytest.mark.parametrize("damage", ["class", "fields", "format", "arity", "tag", "garbage"])
def test_a_payload_this_ast_cannot_read_is_refused(damage, monkeypatch):
    source, doc = _payload(monkeypatch)
    if damage == "class":
        doc["classes"][0][0] = "Path"                  # not an AST node class
    elif damage == "fields":
        doc["classes"][0][1] = ["not_a_field"]
    elif damage == "format":
        doc["format"] = astcodec.FORMAT + 1
    elif damage == "arity":
        doc["tree"] = doc["tree"][:-1]                 # a Module without its items
    elif damage == "tag":
        doc["tree"][3] = [-7]
    payload = b"not json" if damage == "garbage" else json.dumps(doc).encode()
    assert astcodec.decode(payload, source) is None


def test_parse_module_keeps_a_large_text_and_reads_it_back(cache, monkeypatch):
    path = REPO / "rulesets" / "aar" / "commerce-raiding@1.rules"
    text = path.read_text(encoding="utf-8")
    assert len(text) >= P.MIN_CACHED_CHARS
    first = P.parse_module(Source(str(path), text))
    name = P.module_cache_name(text)
    assert read_cached(name) is not None
    monkeypatch.setattr(lalr, "parse_tree", lambda *a, **k: pytest.fail("parsed again instead of read from the cache"))
    second = P.parse_module(Source(str(path), text))
    assert second == first and _spans(second) == _spans(first)


def test_a_damaged_entry_is_parsed_again_and_rewritten(cache):
    path = REPO / "rulesets" / "aar" / "commerce-raiding@1.rules"
    text = path.read_text(encoding="utf-8")
    first = P.parse_module(Source(str(path), text))
    entry = cache / P.module_cache_name(text)
    data = bytearray(entry.read_bytes())
    data[-10] ^= 0x20
    entry.write_bytes(bytes(data))
    assert read_cached(entry.name) is None
    assert P.parse_module(Source(str(path), text)) == first
    assert read_cached(entry.name) is not None       # rewritten whole


def test_small_texts_are_not_kept_and_the_number_kept_is_bounded(cache, monkeypatch):
    small = "ruleset x/small@1\nconstant n = 1\n"
    P.parse_module(Source("small.rules", small))
    assert not cache.exists() or not list(cache.glob("ast-*"))
    monkeypatch.setattr(P, "MAX_CACHED_MODULES", 3)
    for i in range(5):
        text = f"ruleset x/big@{i + 1}\n" + "".join(f"constant c{k} = {k + i}\n" for k in range(400))
        P.parse_module(Source("big.rules", text))
    assert len(list(cache.glob("ast-*"))) == 3


def _syntax_modules_reached_from(start: str, base: set[str] | None = None) -> set[str]:
    """The files of lang/syntax a module imports, directly or through each other (read, not imported);
    the files of ruleslang.base they import are added to `base`."""
    folder = Path(P.__file__).parent
    reached, todo = set(), [start]
    while todo:
        name = todo.pop()
        if name in reached:
            continue
        reached.add(name)
        for node in pyast.walk(pyast.parse((folder / name).read_text(encoding="utf-8"))):
            if base is not None and isinstance(node, pyast.ImportFrom) and (node.module or "").startswith("ruleslang.base."):
                base.add(node.module.rsplit(".", 1)[1] + ".py")
            if isinstance(node, pyast.ImportFrom) and (node.module or "").startswith("ruleslang.lang.syntax"):
                if node.module == "ruleslang.lang.syntax":         # from ruleslang.lang.syntax import ast
                    todo.extend(f"{alias.name}.py" for alias in node.names)
                else:
                    todo.append(node.module.rsplit(".", 1)[1] + ".py")
    return reached


def test_the_cache_key_covers_every_module_that_builds_the_ast():
    reached = _syntax_modules_reached_from("lalr.py")
    assert {"transform.py", "transform_expressions.py", "expressions.py"} <= reached   # the walk follows imports
    # grammar.py only finds the grammar, whose text the key holds itself
    assert sorted(reached - set(P._PARSING_MODULES) - {"grammar.py"}) == []


def test_the_cache_key_covers_the_limits_the_parse_reads():
    base: set[str] = set()
    _syntax_modules_reached_from("lalr.py", base)
    assert "limits.py" in base      # the walk sees the transform's imports of ruleslang.base
    # every module of ruleslang.base the AST's builders read is in the key, but the ones that do
    # not decide what tree a text makes: diagnostics, the cache's files, the grammar's folder
    assert sorted(base - set(P._PARSING_BASE_MODULES) - {"diagnostics.py", "cache.py", "paths.py"}) == []
