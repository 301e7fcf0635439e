"""The fuzzing harness (fuzz/run.py) can fail: it tries cases, and a planted crash, hang or uncoded error
is classified as such, deduplicated and written out. A few seconds, not a fuzzing campaign."""

import importlib.util
import io
import resource
import time
import sys
from pathlib import Path

import pytest

RUN = Path(__file__).resolve().parent.parent / "fuzz" / "run.py"


@pytest.fixture(scope="module")
def harness():
    spec = importlib.util.spec_from_file_location("fuzz_run", RUN)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def _raises(path, workdir):
    raise ValueError(f"planted ({len(path.read_bytes())} bytes)")


def _hangs(path, workdir):
    time.sleep(60)  # waits without using CPU: stopped by the wall-clock backstop


def _spins(path, workdir):
    while True:  # burns CPU: stopped by the CPU-time limit, however loaded the machine is
        pass


def test_a_real_target_is_tried_and_a_planted_crash_is_an_internal_error(harness, tmp_path, monkeypatch):
    monkeypatch.setattr(harness, "TIME_LIMIT", 1.0)
    targets = {
        "triplea": harness.TARGETS["triplea"],
        "boom": harness.Target("boom", "txt", _raises, lambda: [b"seed text\n"], "cat {path}", warm=False),
        "hang": harness.Target("hang", "txt", _hangs, lambda: [b"x"], "cat {path}", warm=False),
    }
    out, progress = io.StringIO(), io.StringIO()
    report = harness.fuzz(6.0, seed=3, targets=targets, findings=tmp_path, out=out, progress=1.0,
                          progress_out=progress)
    # a real target is tried and found clean (how many times depends on the machine's load)
    assert report.tried["triplea"] >= 1 and report.classes["triplea"] == {harness.OK: report.tried["triplea"]}
    assert report.classes["boom"] == {harness.INTERNAL: report.tried["boom"]} and report.tried["boom"] >= 2
    assert report.classes["hang"].get(harness.TIMEOUT, 0) >= 1
    # one finding per distinct failure, whatever the input: the planted exception is one bug
    boom = [key for key in report.failures if key[0] == "boom"]
    assert len(boom) == 1 and boom[0][2].startswith("ValueError at ")
    written = sorted(p.name for p in tmp_path.iterdir())
    assert any(n.startswith("boom-") and n.endswith(".txt") for n in written)
    assert any(n.startswith("boom-") and n.endswith(".reason") for n in written)
    printed = out.getvalue()
    assert "cases tried:" in printed and "internal error" in printed and "slowest input:" in printed
    # a long run says how far it is, once a second here: inputs, rate, failures, time left
    lines = progress.getvalue().splitlines()
    ticks = [line for line in lines if "/min)" in line and "min left" in line]
    assert len(ticks) >= 2 and all(line.startswith("fuzz: ") for line in lines)
    # a new distinct failure is said when it is found, once
    said = [line for line in lines if "new failure" in line]
    assert len(said) == 1 and said[0].startswith("fuzz: new failure [boom] internal error: ValueError at ")


def test_a_campaign_of_a_fixed_size_stops_after_that_many_inputs(harness, tmp_path):
    targets = {"boom": harness.Target("boom", "txt", _raises, lambda: [b"seed text\n"], "cat {path}", warm=False)}
    progress = io.StringIO()
    report = harness.fuzz(float("inf"), seed=4, targets=targets, findings=tmp_path, out=io.StringIO(),
                          progress=0.01, progress_out=progress, cases=5)
    assert report.tried == {"boom": 5}
    ticks = [line for line in progress.getvalue().splitlines() if "/min)" in line]
    assert ticks and all("inputs to go" in line and "min left" not in line for line in ticks)


def test_ctrl_c_ends_a_campaign_with_the_report_of_what_ran(harness, tmp_path, monkeypatch):
    ticks = []

    def progress_then_ctrl_c(report, *args):
        ticks.append(sum(report.tried.values()))
        if len(ticks) == 3:
            raise KeyboardInterrupt  # as the terminal delivers it: in the middle of the loop

    monkeypatch.setattr(harness, "_progress", progress_then_ctrl_c)
    targets = {"boom": harness.Target("boom", "txt", _raises, lambda: [b"seed text\n"], "cat {path}", warm=False)}
    out = io.StringIO()
    report = harness.fuzz(float("inf"), seed=5, targets=targets, findings=tmp_path, out=out, progress=0.2)
    assert report.interrupted and report.tried["boom"] >= ticks[-1] >= 1
    printed = out.getvalue()
    assert "(interrupted: the inputs in flight are not counted)" in printed and "distinct failures: 1" in printed
    assert any(p.name.startswith("boom-") for p in tmp_path.iterdir())  # the findings are written all the same


def test_sigterm_ends_a_campaign_as_ctrl_c_does(harness, tmp_path, monkeypatch):
    import os
    import signal
    ticks = []

    def progress_then_term(report, *args):
        ticks.append(1)
        if len(ticks) == 2:
            os.kill(os.getpid(), signal.SIGTERM)

    before = signal.getsignal(signal.SIGTERM)
    try:
        harness.stop_on_sigterm()
        monkeypatch.setattr(harness, "_progress", progress_then_term)
        targets = {"boom": harness.Target("boom", "txt", _raises, lambda: [b"seed\n"], "cat {path}", warm=False)}
        out = io.StringIO()
        report = harness.fuzz(float("inf"), seed=6, targets=targets, findings=tmp_path, out=out, progress=0.2)
    finally:
        signal.signal(signal.SIGTERM, before)
    assert report.interrupted and "(interrupted" in out.getvalue()


@pytest.mark.parametrize("stderr, kind", [
    ("a.rules:2:3: error[P001]: expected an expression\n   2 | x error y\n", "ok"),
    ("ruleslang: error[U110]: a.rules has no formula named 'f'\n", "ok"),
    # a quoted source line from line 1000 on has no indent, and the rules' text may say "error"
    ('a.rules:1197:5: error[E542]: the test failed\n1197 |     expect error "E542" from run f\n     |     ^~~\n', "ok"),
    ("a.rules:1197:5: error[E542]: the test failed\n1197 |     x\nerror: and then this\n", "uncoded error"),
    ("error: something broke\n", "uncoded error"),
    ("a.rules: error: no code here\n", "uncoded error"),
    ("error[E513]: evaluation nested too deeply\n", "no location"),
    ("ruleslang: internal error (KeyError: 'x'). This is a bug\n", "internal error"),
])
def test_command_output_is_classified(harness, stderr, kind):
    assert harness.judge_output(stderr, need_line=True).kind == kind


def test_an_input_that_burns_cpu_stops_at_the_cpu_limit(harness, monkeypatch):
    monkeypatch.setattr(harness, "TIME_LIMIT", 1.0)
    # the wall-clock backstop out of the way (60 s): what stops the child must be its CPU limit,
    # however loaded the machine is (a starved child takes longer in wall time, not in CPU time)
    monkeypatch.setattr(harness, "WALL_FACTOR", 60)
    spin = harness.Target("spin", "txt", _spins, lambda: [b"x"], "cat {path}", warm=False)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    outcome, elapsed = harness.run_one(spin, b"x")
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    # the worker's profiling timer (1 s of CPU) dumps the stack and ends the input: the worker spent
    # about that, no more. The kernel's accounting of a reaped child is coarser than the timer's, the
    # more so under load (0.85 s seen with six processes on two cores), hence the lower bound's margin
    assert outcome.kind == harness.TIMEOUT and "_spins" in outcome.signature, outcome
    assert 0.75 <= cpu < 2.0 and 0.75 <= elapsed < 2.0, (cpu, elapsed)


_SEEN = []


def _fails_after_another(path, workdir):
    _SEEN.append(path.read_bytes())  # state a worker keeps from one input to the next
    if len(_SEEN) > 1:
        raise ValueError("state left by an earlier input")
    return sys.modules["fuzz_run"].Outcome("ok")


def test_a_worker_runs_many_inputs_and_a_failure_that_needs_them_is_said_to(harness, tmp_path):
    targets = {"state": harness.Target("state", "txt", _fails_after_another, lambda: [b"x"], "cat {path}", warm=False)}
    out = io.StringIO()
    report = harness.fuzz(float("inf"), seed=7, targets=targets, findings=tmp_path, out=out, jobs=1, cases=3)
    # the second input ran in the same process as the first (the worker persists) and failed; the
    # failed worker was replaced, so the third ran in a fresh one and passed
    assert report.classes["state"] == {harness.OK: 2, harness.INTERNAL: 1}
    # alone, the failing input passes: the finding says it depends on what ran before it
    [(reason, _data)] = report.failures.values()
    assert "passed alone: it depends on the inputs run before it" in reason
    assert "rate:" in out.getvalue() and "inputs per minute" in out.getvalue()


def _allocates(path, workdir):
    keep = bytearray(int(path.read_bytes()) * 1024 * 1024)  # noqa: F841 - touched: counted however it is mapped
    keep[::4096] = b"\1" * len(keep[::4096])
    return sys.modules["fuzz_run"].Outcome("ok")


def test_the_memory_limit_counts_the_inputs_own_growth_not_the_memory_it_was_forked_with(harness, monkeypatch):
    import mmap
    monkeypatch.setattr(harness, "MEMORY_LIMIT", 100 * 1024 * 1024)
    inherited = mmap.mmap(-1, 300 * 1024 * 1024)  # the harness's own memory, three times the limit
    try:
        grow = harness.Target("grow", "txt", _allocates, lambda: [b"1"], "cat {path}", warm=False)
        small, _ = harness.run_one(grow, b"40")
        big, _ = harness.run_one(grow, b"150")
    finally:
        inherited.close()
    assert small.kind == harness.OK, small
    assert big.kind == harness.MEMORY, big
