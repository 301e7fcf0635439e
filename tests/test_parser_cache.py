"""The built parser is cached between processes: a whole entry is loaded instead of building the
tables again; an entry that is not whole (truncated, altered) is built again and rewritten, never
read; a cache directory that cannot be written only costs the build."""

from __future__ import annotations

import pytest

from ruleslang.base.cache import CACHE_ENV, read_cached
from ruleslang.base.source import Source
from ruleslang.lang.syntax import lalr as P

TEXT = "ruleset x/cache@1\nformula f(n: int) -> int:\n    let m = n + 1\n    m * 2\n"


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv(CACHE_ENV, str(tmp_path / "cache"))
    return tmp_path / "cache"


def _tree(parser, monkeypatch):
    monkeypatch.setattr(P, "get_parser", lambda: parser)
    return P.parse_tree(TEXT, Source("x/cache@1.rules", TEXT))


def _builds(monkeypatch) -> list:
    built = []
    real = P.build_parser

    def counting():
        built.append(1)
        return real()
    monkeypatch.setattr(P, "build_parser", counting)
    return built


def test_a_whole_entry_is_loaded_and_parses_as_the_built_parser(cache, monkeypatch):
    built = _builds(monkeypatch)
    fresh = P.load_or_build_parser()
    assert built == [1] and read_cached(P.parser_cache_name()) is not None
    loaded = P.load_or_build_parser()
    assert built == [1]                      # not built again
    assert _tree(loaded, monkeypatch) == _tree(fresh, monkeypatch)


@pytest.mark.parametrize("damage", ["truncate", "flip", "header"])
def test_an_entry_that_is_not_whole_is_built_again_and_rewritten(cache, monkeypatch, damage):
    P.load_or_build_parser()
    entry = cache / P.parser_cache_name()
    data = entry.read_bytes()
    if damage == "truncate":
        data = data[: len(data) // 2]
    elif damage == "flip":
        data = data[:-10] + bytes([data[-10] ^ 0xFF]) + data[-9:]
    else:
        data = b"something else\n" + data.split(b"\n", 1)[1]
    entry.write_bytes(data)
    assert read_cached(P.parser_cache_name()) is None
    built = _builds(monkeypatch)
    parser = P.load_or_build_parser()
    assert built == [1]
    assert read_cached(P.parser_cache_name()) is not None
    assert _tree(parser, monkeypatch).data == "start"


def test_a_cache_that_cannot_be_written_costs_only_the_build(tmp_path, monkeypatch):
    blocked = tmp_path / "a-file"
    blocked.write_text("not a directory")
    monkeypatch.setenv(CACHE_ENV, str(blocked / "cache"))
    assert _tree(P.load_or_build_parser(), monkeypatch).data == "start"
    monkeypatch.setenv(CACHE_ENV, "off")
    built = _builds(monkeypatch)
    P.load_or_build_parser()
    P.load_or_build_parser()
    assert built == [1, 1]
