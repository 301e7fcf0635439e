"""Kept results (workspace/kept.py): `check` replays a ruleset's diagnostics and `test` its passing
results when nothing they read changed; a changed, added or corrupt file makes them run again."""

import json

import pytest

from conftest import write_rulesets
from test_cli import run_cli
from ruleslang.api import check_each
from ruleslang.base import cache
from ruleslang.base.diagnostics import render_text
from ruleslang.base.paths import packaged_root

BASE = """
    ruleset k/base@1
    map "aar"
    constant strength = 3
    formula doubled(x: int) -> int = x * 2
"""
USER = """
    ruleset k/user@1
    uses k/base@1
    formula twice_strength() -> int = doubled(strength)
    formula unused(x: int) -> int = 1
    check warning "strength is four":
        require strength == 4
    test "twice the strength":
        expect twice_strength() == 6
"""
BROKEN = """
    ruleset k/broken@1
    uses k/base@1
    formula f() -> int = strength + true
    formula g() -> bool = 1
"""


@pytest.fixture
def root(tmp_path, monkeypatch):
    monkeypatch.setenv(cache.CACHE_ENV, str(tmp_path / "cache"))
    return write_rulesets(tmp_path / "r", {"k/base@1": BASE, "k/user@1": USER, "k/broken@1": BROKEN})


def _shown(checked):
    return [[render_text(d) for d in c.diagnostics] + [json.dumps(d.to_json()) for d in c.diagnostics]
            for c in checked]


def test_a_kept_check_replays_the_same_diagnostics(root):
    refs = ["k/base@1", "k/user@1", "k/broken@1"]
    fresh = check_each(refs, rulesets=[root])
    first = check_each(refs, rulesets=[root], kept=True)
    again = check_each(refs, rulesets=[root], kept=True)
    assert [c.composition is not None for c in first] == [True, True, True], [c.diagnostics for c in first]
    assert all(c.composition is None for c in again)  # replayed: nothing was resolved
    assert any(c.diagnostics for c in fresh)
    assert _shown(fresh) == _shown(first) == _shown(again)


def test_every_shipped_ruleset_checks_the_same_from_the_cache(tmp_path, monkeypatch):
    monkeypatch.setenv(cache.CACHE_ENV, str(tmp_path / "cache"))
    refs = sorted(f"{p.parent.name}/{p.stem}" for p in packaged_root().glob("*/*.rules"))
    first = check_each(refs, kept=True)
    again = check_each(refs, kept=True)
    assert len(again) == len(refs) and all(c.composition is None for c in again)
    assert _shown(first) == _shown(again)


def test_a_changed_dependency_or_a_new_file_checks_again(root):
    check_each(["k/user@1"], rulesets=[root], kept=True)
    assert check_each(["k/user@1"], rulesets=[root], kept=True)[0].composition is None
    # the ruleset it uses changes: the warning goes
    (root / "k" / "base@1.rules").write_text((root / "k" / "base@1.rules").read_text().replace("= 3", "= 4"))
    changed = check_each(["k/user@1"], rulesets=[root], kept=True)[0]
    assert changed.composition is not None and changed.diagnostics == []
    assert check_each(["k/user@1"], rulesets=[root], kept=True)[0].composition is None
    # a newer version appears: `k/user` resolves to it
    (root / "k" / "user@2.rules").write_text("ruleset k/user@2\nformula f(x: int) -> bool = x\n")
    newer = check_each(["k/user"], rulesets=[root], kept=True)[0]
    assert newer.composition is not None and [d.code for d in newer.diagnostics] != []


def test_a_corrupt_or_foreign_entry_is_never_trusted(root, tmp_path):
    fresh = _shown(check_each(["k/broken@1"], rulesets=[root], kept=True))
    entries = sorted((tmp_path / "cache").glob("kept-check-*"))
    assert len(entries) == 1
    entry = entries[0]
    whole = entry.read_bytes()
    for damaged in (whole[: len(whole) // 2], b"garbage", whole.replace(b'"format":2', b'"format":9')):
        entry.write_bytes(damaged)
        again = check_each(["k/broken@1"], rulesets=[root], kept=True)[0]
        assert again.composition is not None and _shown([again]) == fresh
    # well-formed, our digest, but not our layout: rebuilt
    cache.write_cached(entry.name, json.dumps({"format": 2, "files": {}}).encode() + b"\n" + json.dumps({"x": 1}).encode())
    again = check_each(["k/broken@1"], rulesets=[root], kept=True)[0]
    assert again.composition is not None and _shown([again]) == fresh


def test_test_results_are_replayed_marked_cached_and_no_cache_runs_them(root):
    args = ["test", "k/user@1", "--rulesets", str(root)]
    code, out = run_cli(args)
    assert code == 0 and "(cached)" not in out and out.strip().endswith("1 passed, 0 failed")
    code, out = run_cli(args)
    assert code == 0 and "PASS k/user@1: twice the strength (cached)" in out
    assert out.strip().endswith("1 passed, 0 failed")
    code, out = run_cli(args + ["--format", "json"])
    assert json.loads(out)["tests"][0]["cached"] is True
    code, out = run_cli(args + ["--no-cache"])
    assert code == 0 and "(cached)" not in out
    # the constant the test reads changes in the ruleset it uses: the test runs again, and fails
    (root / "k" / "base@1.rules").write_text((root / "k" / "base@1.rules").read_text().replace("= 3", "= 5"))
    code, out = run_cli(args)
    assert code == 1 and "FAIL" in out and "(cached)" not in out
    code, out = run_cli(args)  # a failure is not kept
    assert code == 1 and "(cached)" not in out
