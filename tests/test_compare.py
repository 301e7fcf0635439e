"""`ruleslang compare`: paired games, a store that survives a kill, results independent of the
number of jobs, resumes refused when anything differs, automatic stopping, the statistics, the
per-rule accounting, and the document against its schema (ruleslang/schemas/compare.json)."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import jsonschema
import pytest

from ruleslang.compare import stats
from ruleslang.compare.accounting import game_accounting
from ruleslang.compare.compositions import split_composition, swap_into
from ruleslang.compare.store import FILE_NAME, Store
from ruleslang.base.diagnostics import DiagnosticError
from ruleslang.workspace.compositions import Workspace

from conftest import REPO, write_rulesets
from test_cli import run_cli

SCHEMA = json.loads((REPO / "ruleslang" / "schemas" / "compare.json").read_text(encoding="utf-8"))
# small and quick: the standard rules against them with the second text of commerce raiding,
# random agents, one round
VARIANTS = ["aar/base@1", "aar/base@1+aar/commerce-raiding@2"]
QUICK = ["--rounds", "1", "--agent", "random", "--quiet"]


def compare(store: Path, *extra: str, variants=VARIANTS, games: str = "6") -> tuple[int, str]:
    return run_cli(["compare", *variants, "--games", games, "--store", str(store), *QUICK, *extra])


def document(output: str) -> dict:
    doc = json.loads(output)
    jsonschema.validate(doc, SCHEMA)
    return doc


def figures(doc: dict) -> dict:
    """The document without the settings of how it was run (the jobs)."""
    return {**doc, "settings": {k: v for k, v in doc["settings"].items() if k != "jobs"}}


def dump(folder: Path) -> str:
    store = Store(folder / FILE_NAME, sqlite3.connect(folder / FILE_NAME))
    try:
        return store.dump()
    finally:
        store.close()


@pytest.fixture(scope="module")
def baseline(tmp_path_factory):
    """Six games of each variant in one process: the store and the document."""
    store = tmp_path_factory.mktemp("baseline") / "store"
    code, out = compare(store, "--jobs", "1", "--format", "json")
    assert code == 0, out
    return store, document(out)


def test_paired_design_same_seed_for_game_i_of_every_variant(baseline):
    store, doc = baseline
    rows = sqlite3.connect(store / FILE_NAME).execute("SELECT variant, game, record FROM games").fetchall()
    seeds = {(v, g): json.loads(r)["seed"] for v, g, r in rows}
    assert sorted(seeds) == [(v, g) for v in range(2) for g in range(6)]
    assert all(seeds[(0, g)] == seeds[(1, g)] for g in range(6))
    assert len({seeds[(0, g)] for g in range(6)}) == 6
    assert [v["games"] for v in doc["variants"]] == [6, 6]


def test_two_jobs_give_the_same_store_as_one(baseline, tmp_path):
    store, doc = baseline
    code, out = compare(tmp_path / "s", "--jobs", "2", "--format", "json")
    assert code == 0, out
    assert dump(tmp_path / "s") == dump(store)
    assert figures(document(out)) == figures(doc)


def test_a_dask_local_cluster_of_two_workers_gives_the_same_store(baseline, tmp_path):
    pytest.importorskip("distributed", reason="dask.distributed is not installed (pip install 'ruleslang[dask]')")
    store, doc = baseline
    code, out = compare(tmp_path / "s", "--backend", "dask", "--jobs", "2", "--format", "json")
    assert code == 0, out
    assert dump(tmp_path / "s") == dump(store)
    found = document(out)
    assert found["settings"]["backend"] == "dask"
    assert {**figures(found), "settings": {**figures(found)["settings"], "backend": "local"}} == figures(doc)


def test_the_rulesets_travel_with_the_work(tmp_path):
    """A worker reads the rulesets it is sent, not the user's folders: a variant from a folder only
    this process knows plays the same there."""
    from ruleslang.compare.cluster import bundle_of, play_bundled
    from ruleslang.compare.runner import GamePlayer, GameTask, LoadedOnce, game_seed
    write_rulesets(tmp_path / "mine", {"mine/raids@1": """
        ruleset mine/raids@1
        uses aar/commerce-raiding@2
        override constant multiplier = 1
    """})
    ws = LoadedOnce([tmp_path / "mine"])
    bundle = bundle_of(ws, [["mine/raids@1"]])
    assert "mine/raids@1.rules" in dict(bundle.files) and "maps/aar.yaml" in dict(bundle.files)
    task = GameTask(0, 0, ("mine/raids@1",), None, None, game_seed(1, 0), 1, (), "random")
    _, record, _ = play_bundled(task, bundle)
    assert record == GamePlayer(ws).play(task)


def test_a_ruleset_named_by_path_cannot_travel(tmp_path):
    from ruleslang.compare.cluster import bundle_of
    (tmp_path / "loose.rules").write_text("ruleset loose/one@1\nuses aar/base@1\n")
    with pytest.raises(DiagnosticError) as caught:
        bundle_of(Workspace([]), [[str(tmp_path / "loose.rules")]])
    assert caught.value.diagnostics[0].code == "U125"


# Games long enough that a test polling the store sees the third stored well before the twelfth
# (a random game of one round ends in a few hundredths of a second).
LONGER = ["--rounds", "6"]


@pytest.fixture(scope="module")
def longer_baseline(tmp_path_factory):
    """The games of `test_interrupted_run...` played unbroken in one process: the document."""
    store = tmp_path_factory.mktemp("longer") / "store"
    code, out = compare(store, *LONGER, "--jobs", "1", "--format", "json")
    assert code == 0, out
    return document(out)


@pytest.mark.parametrize("how, jobs", [(signal.SIGKILL, "1"), (signal.SIGINT, "2")])
def test_interrupted_run_resumed_gives_the_figures_of_an_unbroken_one(longer_baseline, tmp_path, how, jobs):
    """A kill loses only the games in flight; so does Ctrl-C, which also says how to go on."""
    folder = tmp_path / "s"
    argv = [sys.executable, "-m", "ruleslang", "compare", *VARIANTS, "--games", "6", "--store", str(folder),
            "--jobs", jobs, *QUICK, *LONGER]
    # Ctrl-C as a terminal gives it: a shell that starts a job in the background (CI in `cmd &`)
    # leaves SIGINT ignored in every child, and a Python started so keeps ignoring it
    child = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                             preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    stored = 0
    deadline = time.monotonic() + 120
    while stored < 3 and child.poll() is None and time.monotonic() < deadline:
        time.sleep(0.02)
        try:
            stored = sqlite3.connect(folder / FILE_NAME).execute("SELECT COUNT(*) FROM games").fetchone()[0]
        except sqlite3.Error:
            continue  # the store is not made yet, or is being written
    os.kill(child.pid, how)
    _, err = child.communicate(timeout=60)
    kept = sqlite3.connect(folder / FILE_NAME).execute("SELECT COUNT(*) FROM games").fetchone()[0]
    assert 3 <= kept < 12, "the interruption came after the run had ended: nothing was resumed"
    if how == signal.SIGINT:
        assert child.returncode == 130 and "--resume goes on" in err and "Traceback" not in err, err
    code, out = compare(folder, *LONGER, "--jobs", "1", "--resume", "--format", "json")
    assert code == 0, out
    assert figures(document(out)) == figures(longer_baseline)


def test_a_store_with_games_needs_resume(baseline):
    store, _ = baseline
    code, out = compare(store)
    assert code == 1 and "D682" in out and "--resume" in out


@pytest.mark.parametrize("extra, named", [
    (["--rounds", "2"], "rounds"),
    (["--seed", "5"], "seed"),
    (["--players", "Germans=heuristic"], "agents"),
])
def test_resume_with_other_settings_names_what_differs(baseline, tmp_path, extra, named):
    store, _ = baseline
    code, out = run_cli(["compare", *VARIANTS, "--games", "6", "--store", str(store), "--rounds", "1",
                         "--agent", "random", "--quiet", "--resume", *extra])
    assert code == 1 and "D681" in out and named in out, out


def test_resume_after_a_ruleset_changed_names_it(tmp_path):
    root = write_rulesets(tmp_path / "r", {"t/tweak@1": 'ruleset t/tweak@1\nuses aar/base@1\nconstant tweak = 1\n'})
    argv = ["aar/base@1", "t/tweak@1"]
    assert compare(tmp_path / "s", "--rulesets", str(root), variants=argv, games="1")[0] == 0
    (root / "t" / "tweak@1.rules").write_text('ruleset t/tweak@1\nuses aar/base@1\nconstant tweak = 2\n')
    code, out = compare(tmp_path / "s", "--rulesets", str(root), "--resume", variants=argv, games="1")
    assert code == 1 and "D681" in out and "ruleset t/tweak@1 changed" in out, out


@pytest.mark.parametrize("content", [b"not a database at all" * 100, b""])
def test_a_store_that_is_not_ours_is_a_diagnostic(tmp_path, content):
    (tmp_path / "s").mkdir()
    (tmp_path / "s" / FILE_NAME).write_bytes(content)
    code, out = compare(tmp_path / "s", "--resume", variants=["aar/base@1", "aar/base@1"], games="1")
    assert code == 1 and "D680" in out and "Traceback" not in out, out


def test_a_and_a_shows_no_significant_difference(tmp_path):
    code, out = compare(tmp_path / "s", "--format", "json", variants=["aar/base@1", "aar/base@1"], games="4")
    assert code == 0, out
    doc = document(out)
    assert {d["measure"] for d in doc["differences"]} >= {"Allies win", "Axis win", "length"}
    assert all(not d["significant"] and d["diff"] == 0 for d in doc["differences"])
    # the calibration beside it: the agents' side skew under A
    assert set(doc["calibration"]["skew"]) == set(doc["sides"])


def test_auto_stops_at_the_precision_or_the_cap(tmp_path):
    same = ["aar/base@1", "aar/base@1"]
    code, out = compare(tmp_path / "a", "--precision", "0.9", "--max-games", "3", "--format", "json",
                        variants=same, games="auto")
    assert code == 0, out
    doc = document(out)
    assert doc["settings"]["precision"] == 0.9 and "narrower than 0.9" in doc["settings"]["stopped"]
    assert all(o["win"]["high"] - o["win"]["low"] < 0.9 for v in doc["variants"]
               for side, o in v["outcomes"].items() if side != "draw")
    code, out = compare(tmp_path / "b", "--precision", "0.1", "--max-games", "2", variants=same, games="auto")
    assert code == 0 and "stopped at --max-games 2" in out, out


def test_text_table_fits_80_columns(baseline, tmp_path):
    store, _ = baseline
    code, out = compare(store, "--resume")
    assert code == 0, out
    assert "A = aar/base@1" in out and "Allies win" in out and "B-A Allies win" in out
    assert "Agents' side skew" in out
    assert max(len(line) for line in out.splitlines()) <= 80, out


def test_difference_lines_come_from_the_semantic_diff(baseline):
    _, doc = baseline
    [entry] = doc["diff"]
    assert (entry["a"], entry["b"]) == ("A", "B")
    assert any("raid_cap" in line for line in entry["lines"])


@pytest.mark.parametrize("argv, code_", [
    (["compare", "aar/base@1"], "U120"),
    (["compare", "aar/base@1", "aar/base@1", "--games", "0"], "U120"),
    (["compare", "aar/base@1", "aar/base@1", "--precision", "0.1"], "U120"),
    (["compare", "aar/base@1", "aar/base@1", "--players", "Germans=human"], "U120"),
    (["compare", "aar/base@1", "aar/base@1", "-o", "/no/such/folder/report.html"], "U107"),
    (["compare", "aar/base@1", "aar/base@1++aar/commerce-raiding@2"], "U122"),
])
def test_usage_errors_are_coded(argv, code_):
    code, out = run_cli(argv + ["--format", "json"])
    assert code == 2 and code_ in out, out


# ---------------------------------------------------------------- compositions

def test_a_variant_takes_the_place_of_its_ruleset_in_the_rest_of_the_game():
    ws = Workspace([])
    assert swap_into(ws.composer, ["aar/house-rules@1"], ["aar/commerce-raiding@1"]) == \
        ["aar/base@1", "aar/turn-sequence@1", "aar/commerce-raiding@1", "aar/victory-cities@2"]
    # a ruleset that replaces nothing is added at the end
    assert swap_into(ws.composer, ["aar/base@1"], ["aar/commerce-raiding@2"]) == \
        ["aar/base@1", "aar/commerce-raiding@2"]


def test_a_ruleset_with_rules_of_its_own_cannot_be_opened():
    ws = Workspace([])
    with pytest.raises(DiagnosticError) as exc:
        swap_into(ws.composer, ["aar/commerce-raiding@2"], ["aar/base@1"])
    assert exc.value.diagnostics[0].code == "U123"


def test_split_composition():
    assert split_composition("a/b@1 + c/d@2") == ["a/b@1", "c/d@2"]
    with pytest.raises(DiagnosticError):
        split_composition("+a/b@1")


# ---------------------------------------------------------------- statistics

def test_wilson_interval():
    r = stats.rate(150, 200)
    assert r["rate"] == 0.75
    assert r["low"] == pytest.approx(0.6857, abs=1e-4) and r["high"] == pytest.approx(0.8049, abs=1e-4)


def test_paired_difference_of_rates_uses_discordant_games():
    a = [1.0] * 30 + [0.0] * 70
    b = [1.0] * 30 + [1.0] * 10 + [0.0] * 60  # ten games won only under b, none only under a
    d = stats.paired_difference(a, b, binary=True)
    assert d["diff"] == pytest.approx(0.1)
    assert d["p_value"] == pytest.approx(2 * 0.5 ** 10)  # McNemar exact: 10 of 10 discordant one way
    assert d["significant"] and d["low"] > 0
    # matched games that mostly agree: pairing narrows the interval
    assert d["paired_halfwidth"] < d["unpaired_halfwidth"]


def test_paired_difference_of_means():
    a = [10.0, 12.0, 9.0, 11.0, 13.0]
    d = stats.paired_difference(a, [x + 1 for x in a], binary=False)
    assert d["diff"] == 1 and d["paired_halfwidth"] == 0 and d["p_value"] == 0 and d["significant"]
    same = stats.paired_difference(a, a, binary=False)
    assert same["p_value"] == 1 and not same["significant"]


def test_band_and_mean():
    assert stats.band(list(range(11))) == {"mean": 5.0, "p10": 1.0, "p90": 9.0}
    m = stats.mean([1.0, 2.0, 3.0])
    assert m["mean"] == 2 and m["low"] < 2 < m["high"]


# ---------------------------------------------------------------- accounting

def test_accounting_is_keyed_by_the_names_in_the_events():
    events = [
        {"kind": "round", "round": 1},
        {"kind": "turn", "player": "Reds", "round": 1},
        {"kind": "phase", "phase": "income", "player": "Reds", "round": 1},
        {"kind": "phase", "name": "income", "stage": "start"},
        {"kind": "hook", "name": "tax", "when": "before", "target": "income"},
        {"kind": "counter", "name": "taken", "key": ["Blues"], "before": None, "after": 3},
        {"kind": "counter", "name": "taken", "key": ["Blues"], "before": 3, "after": 5},
        {"kind": "counter", "name": "taken", "key": ["Blues"], "before": 5, "after": 0},
        {"kind": "counter", "name": "where", "key": ["7"], "before": None, "after": "Sea 1"},
        {"kind": "treasury", "player": "Reds", "economy": "main", "amount": 12, "after": 12},
        {"kind": "log", "message": "taxed", "by": "tax"},
        {"kind": "phase", "name": "income", "stage": "end"},
        {"kind": "round", "round": 2},
        {"kind": "turn", "player": "Blues", "round": 2},
        {"kind": "refused", "decision": "purchase", "player": "Blues", "reasons": ["too many"]},
        {"kind": "purchase", "player": "Blues", "units": {"foot": 2}, "build": ["Hill"], "spent": 9},
        {"kind": "removed", "units": [4, 5], "why": "casualty in Hill"},
    ]
    book = game_accounting(events, frozenset({"Reds", "Blues"}), frozenset({"Hill", "Sea 1"}), 2)
    assert book == {
        "bought:foot": {"Blues": [0, 2]},
        "build:purchase": {"Blues": [0, 1]},
        "falls:taken": {"Blues": [-5, 0]},
        "rises:taken": {"Blues": [5, 0]},
        "entries:where": {"Reds": [1, 0]},
        "hook:tax": {"Reds": [1, 0]},
        "log:tax": {"Reds": [1, 0]},
        "refused:purchase": {"Blues": [0, 1]},
        "removed:casualty": {"Blues": [0, 2]},
        "treasury:income": {"Reds": [12, 0]},
    }


def test_a_scenario_file_is_a_variant_with_its_rulesets(tmp_path):
    scenario = tmp_path / "raids.yaml"
    scenario.write_text("format: 1\nmap: aar\nrulesets: [aar/base@1, aar/commerce-raiding@2]\n"
                        "economy: {British: {treasury: 50}}\n", encoding="utf-8")
    code, out = compare(tmp_path / "s", "--format", "json", variants=["aar/base@1", str(scenario)], games="1")
    assert code == 0, out
    doc = document(out)
    assert doc["variants"][1]["composition"] == ["aar/base@1", "aar/commerce-raiding@2"]
    assert doc["variants"][1]["label"].startswith(str(scenario))
    header = json.loads(sqlite3.connect(tmp_path / "s" / FILE_NAME).execute(
        "SELECT value FROM header WHERE key = 'variants'").fetchone()[0])
    assert header[0]["scenario"] is None and header[1]["scenario"] == str(scenario)
    assert header[1]["scenario_sha256"] is not None


def test_the_report_is_written_with_the_store_beside_it(tmp_path):
    report = tmp_path / "raids.html"
    code, out = run_cli(["compare", *VARIANTS, "--games", "2", *QUICK, "-o", str(report)])
    assert code == 0, out
    assert f"wrote {report}" in out and (tmp_path / "raids.store" / FILE_NAME).is_file()
    page = report.read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>") and "aar/commerce-raiding@2" in page
