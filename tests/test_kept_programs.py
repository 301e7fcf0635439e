"""Kept programs (workspace/kept_programs.py): `call`, `eval` and `explain` read a composition
checked by an earlier run back from the cache; the answers, the facts the compiler reads and the
diagnostics are those of a fresh check, and a changed, corrupt or foreign entry is never used."""

import dataclasses
import io
import os
import pickle
import subprocess
import sys

import pytest

from conftest import write_rulesets
from test_cli import run_cli
from ruleslang.base import cache
from ruleslang.lang.syntax import ast
from ruleslang.lang.check import checker  # the workspace loads the checker from it when it checks
from ruleslang.lang.values import EnumValue
from ruleslang.runtime.registry import CAPABILITIES
from ruleslang.workspace import kept_programs
from ruleslang.workspace.compositions import Workspace

BASE = """
    ruleset k/base@1
    map "aar"
    constant strength = 3
    table cost(kind: text) -> int:
        "a" -> 2
        "b" -> 5
    formula doubled(x: int) -> int = x * 2
"""
USER = """
    ruleset k/user@1
    uses k/base@1
    formula twice_strength() -> int = doubled(strength)
    formula with_cost(kind: text) -> int:
        let c = cost(kind)
        c + strength
    formula unused(x: int) -> int = 1
    check warning "strength is four":
        require strength == 4
"""
SHIPPED = ["aar/commerce-raiding@1", "aar/house-rules@1"]


@pytest.fixture
def root(tmp_path, monkeypatch):
    monkeypatch.setenv(cache.CACHE_ENV, str(tmp_path / "cache"))
    return write_rulesets(tmp_path / "r", {"k/base@1": BASE, "k/user@1": USER})


def _facts(program, ruleset) -> list:
    """Every fact the checker recorded, in the order of a walk over the composition's nodes."""
    info = program.info
    tables = (info.types, info.names, info.slots, info.frames, info.coerce, info.calls, info.fields)
    roots = [d.decl for d in ruleset.definitions.values() if d.decl is not None]
    roots += [c.decl for c in ruleset.checks.values()] + list(ruleset.tests)
    out = []
    for top in roots:
        for node in ast.walk(top):
            key = id(node)
            out.append((type(node).__name__, _plain([t.get(key) for t in tables]), key in info.random))
    return out


def _plain(value):
    """A fact as plain data: enumeration members are equal only to themselves (one program's), and
    a node is named by its place."""
    if isinstance(value, EnumValue):
        return ("member", value.kind, value.name, value.index)
    if isinstance(value, ast.Node):
        return (type(value).__name__, value.span.source.name, value.span.start, value.span.end)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return (type(value).__name__, tuple(_plain(getattr(value, f.name)) for f in dataclasses.fields(value)))
    if isinstance(value, (list, tuple)):
        return tuple(_plain(v) for v in value)
    if isinstance(value, dict):
        return tuple((k, _plain(v)) for k, v in value.items())
    return value


@pytest.mark.parametrize("ref", SHIPPED)
def test_a_kept_program_has_the_facts_and_diagnostics_of_a_fresh_check(ref, tmp_path, monkeypatch):
    monkeypatch.setenv(cache.CACHE_ENV, str(tmp_path / "cache"))
    loaded = Workspace().load([ref])
    blob = kept_programs.encode(loaded, CAPABILITIES)
    assert blob is not None
    ruleset, game_map, program, diagnostics = kept_programs.decode(blob, CAPABILITIES)
    assert program.ruleset is ruleset and program.capabilities is CAPABILITIES
    assert [d.to_json() for d in diagnostics] == [d.to_json() for d in loaded.diagnostics]
    fresh = _facts(loaded.program, loaded.ruleset)
    assert len(fresh) > 1000 and sum(1 for _, facts, _ in fresh if any(facts)) > 500
    assert _facts(program, ruleset) == fresh
    # every fact is about a node of the composition: none was lost on the way
    assert len(program.info.types) == len(loaded.program.info.types)
    assert program.order == loaded.program.order
    assert _plain(program.formula_types) == _plain(loaded.program.formula_types)
    assert game_map.name == loaded.game_map.name and game_map.spaces == loaded.game_map.spaces
    assert program.scope.game_map is game_map


def test_call_eval_and_explain_answer_the_same_from_the_cache(root, monkeypatch):
    commands = [["call", "k/user@1", "with_cost", "b"], ["call", "k/user@1", "twice_strength"],
                ["eval", "k/user@1", "with_cost(\"a\") + doubled(1)"], ["explain", "k/user@1", "twice_strength()"],
                ["call", "k/user@1", "cost", "c"], ["call", "k/user@1", "nothing"]]
    fresh = [run_cli(c + ["--rulesets", str(root), "--no-cache"]) for c in commands]
    first = [run_cli(c + ["--rulesets", str(root)]) for c in commands]
    assert fresh == first
    assert [code for code, _ in fresh] == [0, 0, 0, 0, 1, 2] and fresh[0][1].strip() == "8"
    assert len(list((root.parent / "cache").glob("keptprogram-*"))) == 1
    monkeypatch.setattr(checker, "check_ruleset", lambda *a, **k: pytest.fail("checked again"))
    assert [run_cli(c + ["--rulesets", str(root)]) for c in commands] == fresh


def test_a_call_read_back_loads_neither_the_checker_nor_other_commands(root):
    # what a warm `call` imports is most of what it costs (docs/performance.md, session 13)
    args = ["call", "k/user@1", "with_cost", "b", "--rulesets", str(root)]
    assert run_cli(args) == (0, "8\n")  # checked and kept
    probe = ("import sys\nfrom ruleslang.cli.app import main\ncode = main(sys.argv[1:])\n"
             "print(sorted(m for m in sys.modules if m.startswith('ruleslang.lang.check.') or m in "
             "('ruleslang.lang.syntax.lalr', 'lark', 'yaml', 'jsonschema')))\nsys.exit(code)\n")
    # -P: `-c` would put the working directory (a checkout) first on the path, and the checkout's own
    # `ruleslang/` is not the installed package this process kept the program with (another code digest)
    done = subprocess.run([sys.executable, "-P", "-c", probe, *args], capture_output=True, text=True, check=False,
                          env=dict(os.environ, **{cache.CACHE_ENV: str(root.parent / "cache")}))
    assert done.returncode == 0, done.stderr
    answer, loaded = done.stdout.splitlines()
    assert answer == "8"
    assert "ruleslang.lang.check.checker" not in loaded and "ruleslang.lang.check.values" not in loaded
    assert "ruleslang.lang.check.program" in loaded and "lark" not in loaded and "yaml" not in loaded


def test_a_changed_file_is_checked_again(root, monkeypatch):
    args = ["call", "k/user@1", "twice_strength", "--rulesets", str(root)]
    assert run_cli(args) == (0, "6\n") and run_cli(args) == (0, "6\n")
    (root / "k" / "base@1.rules").write_text((root / "k" / "base@1.rules").read_text().replace("= 3", "= 4"))
    assert run_cli(args) == (0, "8\n")
    monkeypatch.setattr(checker, "check_ruleset", lambda *a, **k: pytest.fail("checked again"))
    assert run_cli(args) == (0, "8\n")


def test_a_composition_with_errors_is_not_kept(root):
    write_rulesets(root, {"k/broken@1": "ruleset k/broken@1\nformula f() -> int = true\n"})
    first = run_cli(["call", "k/broken@1", "f", "--rulesets", str(root)])
    assert first[0] != 0 and "T" in first[1]
    assert not list((root.parent / "cache").glob("keptprogram-*"))


def test_a_corrupt_or_foreign_entry_is_never_trusted(root, monkeypatch):
    args = ["call", "k/user@1", "with_cost", "a", "--rulesets", str(root)]
    assert run_cli(args) == (0, "5\n")
    (entry,) = (root.parent / "cache").glob("keptprogram-*")
    whole = entry.read_bytes()
    head, _, blob = cache.read_cached(entry.name).partition(b"\n")
    evil = io.BytesIO()
    # a payload that would run a function when unpickled: refused by name, never called
    pickle.Pickler(evil, protocol=5).dump((kept_programs.FORMAT, *(run_cli,) * 4))
    for damaged in (whole[: len(whole) // 2], b"garbage", whole[:-1] + bytes([whole[-1] ^ 1])):
        entry.write_bytes(damaged)
        assert run_cli(args) == (0, "5\n")
    for payload in (head + b"\n" + blob[:100], head + b"\n" + evil.getvalue(), head + b"\n" + pickle.dumps(print)):
        cache.write_cached(entry.name, payload)  # our digest, our header, not our program
        assert run_cli(args) == (0, "5\n")
        assert cache.read_cached(entry.name).partition(b"\n")[2] != payload.partition(b"\n")[2]  # rebuilt


def test_the_unpickler_builds_only_the_package_data_classes():
    for module, name in (("builtins", "eval"), ("os", "system"), ("ruleslang.workspace.compositions", "Workspace"),
                         ("ruleslang.base.fileio", "write_atomic"), ("ruleslang.lang.syntax.ast", "walk")):
        payload = b"\x80\x05c" + module.encode() + b"\n" + name.encode() + b"\n."
        assert kept_programs.decode(payload, CAPABILITIES) is None
    assert kept_programs.decode(pickle.dumps((kept_programs.FORMAT, ast.Ident("x", span=None))), CAPABILITIES) is None


def test_a_fact_about_a_node_outside_the_program_is_not_kept(root):
    loaded = Workspace([root]).load(["k/user@1"])
    stray = ast.Ident("stray", span=None)
    loaded.program.info.types[id(stray)] = None
    assert kept_programs.encode(loaded, CAPABILITIES) is None


def test_no_cache_keeps_nothing(root):
    assert run_cli(["call", "k/user@1", "twice_strength", "--rulesets", str(root), "--no-cache"]) == (0, "6\n")
    assert not list((root.parent / "cache").glob("keptprogram-*"))


def test_a_new_game_reads_its_composition_back_and_plays_the_same(tmp_path, monkeypatch):
    # `ruleslang play` reads a composition an earlier run checked from the cache, as `call` does
    # (a play process spent a third of its loading resolving and checking); the game is the same
    monkeypatch.setenv(cache.CACHE_ENV, str(tmp_path / "cache"))
    logs = [tmp_path / f"game{i}.log" for i in range(3)]
    args = ["play", "--quiet", "--agent", "random", "--seed", "3", "--rounds", "2"]
    assert run_cli([*args, "--no-cache", "--log", str(logs[0])])[0] == 0
    assert not list((tmp_path / "cache").glob("keptprogram-*"))
    assert run_cli([*args, "--log", str(logs[1])])[0] == 0  # checked and kept
    assert len(list((tmp_path / "cache").glob("keptprogram-*"))) == 1
    monkeypatch.setattr(checker, "check_ruleset", lambda *a, **k: pytest.fail("checked again"))
    assert run_cli([*args, "--log", str(logs[2])])[0] == 0
    assert logs[0].read_bytes() == logs[1].read_bytes() == logs[2].read_bytes()
