"""A seeded mutation fuzzer over everything ruleslang reads from a user (issue 16, "Keep it so").

    python fuzz/run.py --budget SECONDS [--seed N] [--target NAME ...]
    python fuzz/run.py --cases 100000 --seed N   # a campaign of a fixed size, however long it takes
    python fuzz/run.py --show fuzz/findings/rules-0123abcd.rules    # run one input again, with the traceback

Inputs run in persistent worker processes (fuzz_worker.py), each input under a CPU-time limit (with a wall-clock backstop) and a
address-space limit, so a hang or a blow-up is recorded, not fatal, and a busy machine does not make
false timeouts. See fuzz/README.md for the targets and the classes.
"""

from __future__ import annotations

import argparse
import hashlib
import io
import json
import math
import os
import random
import re
import resource
import shutil
import signal
import sys
import tempfile
import time
import traceback
from contextlib import redirect_stderr, redirect_stdout
from dataclasses import dataclass, field
from pathlib import Path
from multiprocessing.connection import wait
from typing import Callable

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
if str(REPO) not in sys.path:  # run from a checkout without an install
    sys.path.insert(0, str(REPO))

from ruleslang.base.diagnostics import DiagnosticError  # noqa: E402
from ruleslang.board.mapdata import load_map  # noqa: E402
from ruleslang.board.scenario import load_scenario  # noqa: E402
from ruleslang.cli.app import main as cli_main  # noqa: E402
from ruleslang.runtime.saves import read_record, read_save  # noqa: E402
from ruleslang.workspace.compositions import Workspace  # noqa: E402

if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))
from fuzz_worker import OverTime, Worker  # noqa: E402

TIME_LIMIT = 5.0  # seconds of CPU time per input: what the input costs, whatever else the machine runs
WALL_FACTOR = 6  # a child that has not answered after this many times the limit in wall-clock time is
# stopped too (blocked, or starved by a loaded machine) and classed by the CPU time it had used
MEMORY_LIMIT = 500 * 1024 * 1024  # bytes the address space may grow by during one input
FINDINGS = HERE / "findings"
SHIPPED = REPO / "rulesets"
FIXTURES = REPO / "tests" / "board" / "fixtures"

OK, INTERNAL, UNCODED, NO_LOCATION, TIMEOUT, MEMORY = (
    "ok", "internal error", "uncoded error", "no location", "timeout", "memory")
CLASSES = (OK, INTERNAL, UNCODED, NO_LOCATION, TIMEOUT, MEMORY)

# A diagnostic head on standard error: `file:line:col: error[CODE]: ...`, `file: error[CODE]: ...` or
# `error[CODE]: ...`; the snippet lines under it start with blanks and are not heads.
_HEAD = re.compile(r"^(?:(?P<where>\S.*?): )?(?P<severity>error|warning)(?:\[(?P<code>[A-Z]+\d+)\])?: ")
_LOCATED = re.compile(r":\d+:\d+$")
_EXCERPT = re.compile(r"^\s*\d+ \| ")  # a source line quoted under a diagnostic (from line 1000 on, unindented)


# ---------------------------------------------------------------- outcomes


@dataclass
class Outcome:
    """What one input did: its class, a signature that deduplicates failures, and a one-line reason."""

    kind: str
    signature: str = ""
    reason: str = ""


@dataclass
class Target:
    """A thing that reads user input: `run(path, workdir)` returns the Outcome of one input file."""

    name: str
    ext: str
    run: Callable[[Path, Path], Outcome]
    corpus: Callable[[], list[bytes]]
    show: str  # the command that shows a finding, `{path}` standing for the file
    warm: bool = True  # run once in the parent before forking (imports, the parser built)


def _innermost(tb_frames) -> str:
    """The innermost frame in ruleslang (else the innermost at all), as `module:function`."""
    frames = list(tb_frames)
    ours = [f for f in frames if f"{os.sep}ruleslang{os.sep}" in f.filename] or frames
    if not ours:
        return "?"
    frame = ours[-1]
    name = frame.filename.split(f"{os.sep}ruleslang{os.sep}")[-1] if "ruleslang" in frame.filename else Path(
        frame.filename).name
    return f"{name}:{frame.name}"


LAST_TRACE: list[str] = []  # the traceback of the last exception caught, for --show


def _exception_outcome(exc: BaseException) -> Outcome:
    LAST_TRACE.append("".join(traceback.format_exception(exc)))
    where = _innermost(traceback.extract_tb(exc.__traceback__))
    kind = MEMORY if isinstance(exc, MemoryError) else INTERNAL
    message = str(exc).splitlines()[0][:160] if str(exc) else ""
    return Outcome(kind, f"{type(exc).__name__} at {where}", f"{type(exc).__name__} at {where}: {message}")


def _shape(line: str) -> str:
    """A message's shape: numbers, quoted text and paths blanked, so one bug is one finding."""
    line = re.sub(r"'[^']*'|\"[^\"]*\"", "'…'", line)
    line = re.sub(r"\S*/\S*", "PATH", line)
    return re.sub(r"\d+", "N", line)[:160]


def judge_diagnostics(diagnostics, *, need_line: bool) -> Outcome:
    """Classify Diagnostic objects from an API call: every error must have a code and a location."""
    for d in diagnostics:
        if not d.is_error:
            continue
        if not re.fullmatch(r"[A-Z]+\d+", d.code or ""):
            return Outcome(UNCODED, f"uncoded: {_shape(d.message)}", f"an error without a code: {d.message[:160]}")
        file, line, _column = d.location()
        if d.code.startswith("U"):  # a usage error is about the command line, not a file
            continue
        if file is None or (need_line and line is None):
            return Outcome(NO_LOCATION, f"{d.code} without location", f"error[{d.code}] without a "
                           f"{'line' if file else 'file'}: {d.message[:160]}")
    return Outcome(OK)


def judge_output(stderr: str, *, need_line: bool) -> Outcome:
    """Classify what the command line printed on standard error."""
    if "internal error" in stderr:
        line = next(x for x in stderr.splitlines() if "internal error" in x)
        return Outcome(INTERNAL, f"cli: {_shape(line)}", line[:200])
    if "nested too deeply" in stderr and "error[" not in stderr:
        return Outcome(UNCODED, "cli: nested too deeply", "'nested too deeply' without a code")
    for line in stderr.splitlines():
        head = _HEAD.match(line)
        if head is None:
            if _EXCERPT.match(line):  # the rules' own text, which may say "error"
                continue
            if re.search(r"\berror\b", line, re.I) and not line[:1].isspace() and "Traceback" not in line:
                return Outcome(UNCODED, f"uncoded: {_shape(line)}", f"an error line without a code: {line[:200]}")
            continue
        if head["severity"] != "error":
            continue
        if head["code"] is None:
            return Outcome(UNCODED, f"uncoded: {_shape(line)}", f"an error without a code: {line[:200]}")
        where = "" if head["where"] in (None, "ruleslang") else head["where"]
        if head["code"].startswith("U"):  # a usage error is about the command line, not a file
            continue
        if not where or (need_line and not _LOCATED.search(where)):
            return Outcome(NO_LOCATION, f"{head['code']} without location",
                           f"error[{head['code']}] without {'a line' if where else 'a file'}: {line[:200]}")
    return Outcome(OK)


def run_cli(argv: list[str], *, need_line: bool) -> Outcome:
    """Run `ruleslang ARGV` in this process; an uncaught exception is an internal error."""
    out, err = io.StringIO(), io.StringIO()
    os.environ["RULESLANG_DEBUG"] = "1"  # let a bug raise here, so it is deduplicated by its frame
    try:
        with redirect_stdout(out), redirect_stderr(err):
            try:
                cli_main(argv)
            except SystemExit:  # argparse's own usage errors: coded by argparse, not by the input
                pass
    except RecursionError as exc:
        return Outcome(UNCODED, f"RecursionError at {_innermost(traceback.extract_tb(exc.__traceback__))}",
                       "evaluation nested too deeply without a code (RecursionError)")
    except Exception as exc:  # noqa: BLE001 - any escape is the finding
        return _exception_outcome(exc)
    return judge_output(err.getvalue(), need_line=need_line)


def run_api(call: Callable[[], object], *, need_line: bool) -> Outcome:
    """Call a loading function; a DiagnosticError is judged, any other exception is an internal error."""
    try:
        with redirect_stdout(io.StringIO()), redirect_stderr(io.StringIO()):
            result = call()
    except DiagnosticError as exc:
        return judge_diagnostics(exc.diagnostics, need_line=need_line)
    except Exception as exc:  # noqa: BLE001
        return _exception_outcome(exc)
    return judge_diagnostics(getattr(result, "diagnostics", []) or [], need_line=need_line)


# ---------------------------------------------------------------- targets


_REF = re.compile(rb"^[ \t]*ruleset[ \t]+([a-z][a-z0-9_-]{0,40})/([a-z][a-z0-9_-]{0,40})@(\d{1,3})[ \t]*$", re.M)


def _rules_file(path: Path, workdir: Path) -> tuple[Path, str]:
    """Lay the ruleset text out in a root under the name its header gives (else fz/x@1)."""
    data = path.read_bytes()
    found = _REF.search(data)
    family, name, version = (g.decode() for g in found.groups()) if found else ("fz", "x", "1")
    target = workdir / "root" / family / f"{name}@{version}.rules"
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(data)
    return workdir / "root", f"{family}/{name}@{version}"


def _target_rules(path: Path, workdir: Path) -> Outcome:
    root, ref = _rules_file(path, workdir)
    return run_api(lambda: Workspace([root]).load([ref]), need_line=True)


def _target_call(path: Path, workdir: Path) -> Outcome:
    names = re.findall(rb"^(?:formula|definition)\s+([a-z_][a-z0-9_]*)\s*\(\s*\)", path.read_bytes(), re.M)
    name = names[0].decode() if names else "f"
    return run_cli(["call", str(path), name, "--exact"], need_line=True)


def _target_eval(path: Path, workdir: Path) -> Outcome:
    expression = path.read_bytes().decode("utf-8", "replace")
    if expression.startswith("-"):
        expression = " " + expression  # not an option to argparse
    return run_cli(["eval", "aar/base@1", expression, "--exact"], need_line=True)


def _target_scenario(path: Path, workdir: Path) -> Outcome:
    if random.Random(path.read_bytes()).random() < 0.2:
        return run_cli(["map", "show", "aar", "--scenario", str(path), "-o", str(workdir / "out.svg")],
                       need_line=False)
    return run_api(lambda: load_scenario(str(path), [SHIPPED]), need_line=False)


def _target_map(path: Path, workdir: Path) -> Outcome:
    if random.Random(path.read_bytes()).random() < 0.2:
        return run_cli(["map", "show", str(path), "-o", str(workdir / "out.svg")], need_line=False)
    return run_api(lambda: load_map(str(path), [SHIPPED]), need_line=False)


def _target_save(path: Path, workdir: Path) -> Outcome:
    found = run_api(lambda: read_save(str(path)), need_line=False)
    if found.kind != OK:
        return found
    return run_cli(["replay", str(path)], need_line=False)


def _target_log(path: Path, workdir: Path) -> Outcome:
    found = run_api(lambda: read_record(str(path)), need_line=False)
    if found.kind != OK:
        return found
    return run_cli(["replay", str(path)], need_line=False)


def _target_triplea(path: Path, workdir: Path) -> Outcome:
    return run_cli(["import-triplea", str(path), "-o", str(workdir / "out"), "-q"], need_line=False)


# Regression inputs of tests/test_hostile_input.py (issue 16), as seeds.
_HOSTILE_RULES = [
    b"ruleset a/b@1\nphase p:\n    if true:",
    b"ruleset a/b@1\nphase p:\n    for x in 1..2:",
    b"\xef\xbb\xbfruleset a/b@1\nformula f() -> int = 7\n",
    b'ruleset a/b@1\nformula f() -> text = "ab\xffc"\n',
    b"ruleset a/b@1\nformula f() -> int = " + b" + ".join([b"2"] * 300) + b"\n",
    b"ruleset a/b@1\nformula f(x: int) -> bool = " + b" or ".join([b"false"] * 40) + b" or true or 1 / x == 1\n",
    b"ruleset a/b@1\nformula f() -> int = " + b"9" * 5000 + b"\n",
    b"ruleset a/b@1\nformula f() -> number = 0." + b"3" * 90 + b"\n",
    b"ruleset a/b@1\n" + b"".join(b"formula f%d() -> int = f%d() + 1\n" % (i, i + 1) for i in range(80))
    + b"formula f80() -> int = 0\n",
    b'ruleset a/b@1\nmap "/etc/passwd"\n',
    b"ruleset a/b@1\nformula f() -> int = sum(x for x in [%d, %d])\n" % (2 ** 256 - 1, 2 ** 256 - 1),
    b"ruleset a/b@1\nformula f() -> number = sum(1 / i for i in 1..5000)\n",
    b'ruleset a/b@1\nformula f() -> text:\n    let t0 = "' + b"x" * 100 + b'"\n'
    + b"".join(b"    let t%d = t%d + t%d\n" % (i + 1, i, i) for i in range(20)) + b"    t20\n",
    b"ruleset a/b@1\nformula f() -> int:\n    let l0 = [1, 2, 3, 4]\n"
    + b"".join(b"    let l%d = l%d + l%d\n" % (i + 1, i, i) for i in range(20)) + b"    count(l20)\n",
    b'ruleset a/b@1\nformula f() -> text = "' + b"y" * 200_000 + b'"\n',
    b'ruleset a/b@1\ncheck "x": probability(1000d1000 > 5) > 0\n',
    b"ruleset a/b@1\nformula f() -> int = " + b"(" * 120 + b"1" + b")" * 120 + b"\n",
]
_HOSTILE_EXPRESSIONS = [b"1000d1000", b"probability(3d6 > 10)", b"probability(50d1000 > 5)", b"2d6",
                        b"sum(1 / i for i in 1..5000)", b"[" * 200 + b"]" * 200, b"9" * 5000, b"0." + b"3" * 90,
                        b'"a" + "b"', b"count([1, 2, 3])", b"3d6 + 2d6", b"max(1d6, 1d6)", b"1 / 0"]
_HOSTILE_SCENARIOS = [b"map: aar\nturn: {round: " + b"9" * 5000 + b"}\n",
                      b"map: aar\nunits:\n  Germany:\n    Germans: {infantry: 100000000}\n",
                      b"map: aar\n\xff\n", b"map: /etc/passwd\n", b"map: aar\nturn: {round: -3}\n"]
_HOSTILE_XML = [b'<?xml version="1.0" encoding="x-evil"?>\n<game></game>\n']


def _files(pattern_roots: list[tuple[Path, str]]) -> list[bytes]:
    return [p.read_bytes() for root, pattern in pattern_roots for p in sorted(root.glob(pattern)) if p.is_file()]


def _rules_corpus() -> list[bytes]:
    return _files([(SHIPPED, "**/*.rules"), (REPO / "tests" / "rulesets", "**/*.rules")]) + _HOSTILE_RULES


def _expression_corpus() -> list[bytes]:
    """The hostile expressions and the right-hand sides of the shipped one-line formulas."""
    found = []
    for text in _files([(SHIPPED, "**/*.rules")]):
        found += [m.strip() for m in re.findall(rb"^[ \t]*(?:formula|let)\s[^\n=]*=\s*([^\n]+)$", text, re.M)]
    return _HOSTILE_EXPRESSIONS + sorted(set(found))[:400]


def _scenario_corpus() -> list[bytes]:
    return _files([(SHIPPED, "*/scenarios/*.yaml"), (REPO / "tests", "rulesets/**/scenarios/*.yaml")]) \
        + _HOSTILE_SCENARIOS


def _map_corpus() -> list[bytes]:
    return _files([(SHIPPED, "maps/*.yaml"), (FIXTURES, "*.yaml")])


_GAME_RECORDS: dict[str, bytes] = {}


def _game_record(kind: str) -> list[bytes]:
    """A save and a log of a one-round game, played once per run (the seed fixed)."""
    if not _GAME_RECORDS:
        folder = Path(tempfile.mkdtemp(prefix="fuzz-game-"))
        try:
            with redirect_stdout(io.StringIO()), redirect_stderr(io.StringIO()):
                cli_main(["play", "--rounds", "1", "--seed", "1", "--quiet", "--save", str(folder / "g.save"),
                          "--log", str(folder / "g.log")])
            _GAME_RECORDS["save"] = (folder / "g.save").read_bytes()
            _GAME_RECORDS["log"] = (folder / "g.log").read_bytes()
        finally:
            shutil.rmtree(folder, ignore_errors=True)
    return [_GAME_RECORDS[kind]]


def _xml_corpus() -> list[bytes]:
    return _files([(FIXTURES, "*.xml")]) + _HOSTILE_XML


TARGETS: dict[str, Target] = {t.name: t for t in [
    Target("rules", "rules", _target_rules, _rules_corpus, "ruleslang check {path}"),
    Target("call", "rules", _target_call, _rules_corpus, "python fuzz/run.py --show {path}"),
    Target("eval", "txt", _target_eval, _expression_corpus, "python fuzz/run.py --show {path}"),
    Target("scenario", "yaml", _target_scenario, _scenario_corpus, "python fuzz/run.py --show {path}"),
    Target("map", "yaml", _target_map, _map_corpus, "ruleslang map show {path} -o /tmp/out.svg"),
    Target("save", "save", _target_save, lambda: _game_record("save"), "ruleslang replay {path}"),
    Target("log", "log", _target_log, lambda: _game_record("log"), "ruleslang replay {path}"),
    Target("triplea", "xml", _target_triplea, _xml_corpus, "ruleslang import-triplea {path} -o /tmp/fz-out"),
]}


# ---------------------------------------------------------------- mutations

_JUNK = ["\u202e", "\u200b", "\ufeff", "\x00", "\x7f", "\ud7ff", "\U0001f4a3", "e\u0301", "\u00a0", "\t", "\r",
         "\\", "\"", "'", ":", "[", "]", "{", "}", "(", ")", "#", "&", "<", ">", "|", "-", "*", "@", "..", "\n    "]
_NUMBERS = [b"0", b"-1", b"-0", b"1e999", b"0.5", b"-2.75", b"99999999999999999999", b"9" * 120, b"1/3",
            str(2 ** 256).encode(), b"100000001", b"65", b"1001", b"200001", b"NaN", b"-100000000"]


def _lines(data: bytes) -> list[bytes]:
    return data.split(b"\n")


def m_flip(rng: random.Random, data: bytes, corpus: list[bytes]) -> bytes:
    if not data:
        return bytes([rng.randrange(256)])
    i = rng.randrange(len(data))
    if rng.random() < 0.5:
        return data[:i] + bytes([data[i] ^ (1 << rng.randrange(8))]) + data[i + 1:]
    return data[:i] + rng.choice(_JUNK).encode("utf-8", "surrogatepass") + data[i + 1:]


def m_lines(rng: random.Random, data: bytes, corpus: list[bytes]) -> bytes:
    lines = _lines(data)
    i = rng.randrange(len(lines))
    action = rng.randrange(4)
    if action == 0 and len(lines) > 1:
        del lines[i:i + rng.randint(1, 3)]
    elif action == 1:
        lines[i:i] = [lines[i]] * rng.randint(1, 40)
    elif action == 2:
        lines.insert(i, rng.choice(_lines(rng.choice(corpus))))
    else:
        j = rng.randrange(len(lines))
        lines[i], lines[j] = lines[j], lines[i]
    return b"\n".join(lines)


def m_splice(rng: random.Random, data: bytes, corpus: list[bytes]) -> bytes:
    other = _lines(rng.choice(corpus))
    lines = _lines(data)
    return b"\n".join(lines[:rng.randint(0, len(lines))] + other[rng.randint(0, len(other)):])


def m_number(rng: random.Random, data: bytes, corpus: list[bytes]) -> bytes:
    spots = [m.span() for m in re.finditer(rb"\d+(?:\.\d+)?", data[:200_000])]
    if not spots:
        return m_flip(rng, data, corpus)
    start, end = rng.choice(spots)
    return data[:start] + rng.choice(_NUMBERS) + data[end:]


def m_nest(rng: random.Random, data: bytes, corpus: list[bytes]) -> bytes:
    depth = rng.choice([20, 99, 101, 150, 1000, 5000, 30000])
    opening, closing = rng.choice([(b"(", b")"), (b"[", b"]"), (b"{", b"}"), (b"[", b""), (b"- ", b"")])
    i = rng.randrange(len(data) + 1)
    if rng.random() < 0.3:  # indentation nesting
        line = b"".join(b" " * (4 * k) + b"if true:\n" for k in range(min(depth, 200)))
        return data[:i] + b"\n" + line + data[i:]
    return data[:i] + opening * depth + data[i:i + 5] + closing * depth + data[i + 5:]


def m_long(rng: random.Random, data: bytes, corpus: list[bytes]) -> bytes:
    i = rng.randrange(len(data) + 1)
    piece = rng.choice([b"x", b"ab ", b"\xc3\xa9", b"9", b"a_", b"\"", b"\n"]) * rng.choice(
        [100, 1000, 99_999, 100_001, 300_000])
    return data[:i] + piece + data[i:]


def m_unicode(rng: random.Random, data: bytes, corpus: list[bytes]) -> bytes:
    i = rng.randrange(len(data) + 1)
    junk = "".join(chr(rng.choice([rng.randrange(0x80, 0x800), rng.randrange(0x800, 0xD800),
                                   rng.randrange(0xE000, 0x110000), rng.randrange(0, 32)]))
                   for _ in range(rng.randint(1, 20)))
    raw = junk.encode("utf-8")
    if rng.random() < 0.2:
        raw = bytes(rng.randrange(256) for _ in range(rng.randint(1, 8)))  # not UTF-8 at all
    return data[:i] + raw + data[i:]


def m_json(rng: random.Random, data: bytes, corpus: list[bytes]) -> bytes:
    """Replace one value deep in a JSON document (a save, or a line of a log) by a value of another shape."""
    lines = _lines(data)
    index = rng.randrange(len(lines))
    try:
        doc = json.loads(lines[index])
    except ValueError:
        return m_number(rng, data, corpus)
    holder, key = None, None
    node = doc
    for _ in range(rng.randint(1, 8)):
        if isinstance(node, dict) and node:
            holder, key = node, rng.choice(sorted(node))
        elif isinstance(node, list) and node:
            holder, key = node, rng.randrange(len(node))
        else:
            break
        node = holder[key]
    replacement = rng.choice([None, True, 0, -1, 3.0, 2 ** 70, "", "x" * 1000, [], {}, [[[]]], "../../etc/passwd",
                              {"a": 1}, "aar/base@1", "Germans", 1e308])
    if holder is None:
        doc = replacement
    elif rng.random() < 0.2 and isinstance(holder, dict):
        del holder[key]
    else:
        holder[key] = replacement
    lines[index] = json.dumps(doc).encode()
    return b"\n".join(lines)


def m_attribute(rng: random.Random, data: bytes, corpus: list[bytes]) -> bytes:
    """Replace one XML attribute value or one YAML scalar."""
    spots = [m.span(1) if m.group(1) is not None else m.span(2)
             for m in re.finditer(rb'="([^"]*)"|: ([^\n{}\[\],]+)', data[:300_000])]
    if not spots:
        return m_flip(rng, data, corpus)
    start, end = rng.choice(spots)
    value = rng.choice([b"", b"-5", b"9" * 5000, b"true", b"null", b"&amp;", b"\xff", b"..", b"100000000",
                        b"Redland", b"aar", b"x" * 300])
    return data[:start] + value + data[end:]


MUTATIONS = [m_flip, m_lines, m_splice, m_number, m_nest, m_long, m_unicode, m_attribute]


def mutate(rng: random.Random, seed: bytes, corpus: list[bytes], target: str) -> bytes:
    """One to three stacked mutations of `seed` (JSON-aware for saves and logs)."""
    mutations = MUTATIONS + ([m_json] * 4 if target in ("save", "log") else [])
    data = seed
    for _ in range(rng.choice([1, 1, 1, 2, 3])):
        data = rng.choice(mutations)(rng, data, corpus)
    return data[:3_000_000]


# ---------------------------------------------------------------- running inputs in workers


RECYCLE = 500  # inputs a worker runs before it is replaced (caches and heap do not grow without end)


def _runner(targets: dict[str, Target]) -> Callable[[str, bytes, Path], tuple[str, str, str]]:
    """What a worker does with one input: write it into the input's folder and run its target."""

    def run(name: str, data: bytes, workdir: Path) -> tuple[str, str, str]:
        LAST_TRACE.clear()  # a worker lives for many inputs: keep no traceback but the last
        target = targets[name]
        path = workdir / f"input.{target.ext}"
        path.write_bytes(data)
        try:
            outcome = target.run(path, workdir)
        except OverTime:
            raise
        except BaseException as exc:  # noqa: BLE001 - the harness reports it, whatever it is
            outcome = _exception_outcome(exc)
        return outcome.kind, outcome.signature, outcome.reason

    return run


def _worker(targets: dict[str, Target]) -> Worker:
    return Worker(_runner(targets), time_limit=TIME_LIMIT, memory_limit=MEMORY_LIMIT,
                  wall_limit=TIME_LIMIT * WALL_FACTOR)


def run_one(target: Target, data: bytes) -> tuple[Outcome, float]:
    """Run one input alone in a fresh worker with the time and memory limits; its Outcome and CPU seconds."""
    worker = _worker({target.name: target})
    try:
        worker.give(target.name, data)
        while (answer := worker.check(time.monotonic())) is None:
            wait([worker.conn], timeout=0.05)
    finally:
        worker.stop()
    kind, signature, reason, cpu, _wall = answer
    return Outcome(kind, signature, reason), cpu


# ---------------------------------------------------------------- the campaign


@dataclass
class Report:
    """What a campaign found: counts per target and class, one example per distinct failure, the slowest input."""

    tried: dict[str, int] = field(default_factory=dict)
    classes: dict[str, dict[str, int]] = field(default_factory=dict)
    failures: dict[tuple[str, str, str], tuple[str, bytes]] = field(default_factory=dict)  # -> (reason, input)
    slowest: tuple[float, str, bytes] = (0.0, "", b"")
    written: list[tuple[Path, str, str]] = field(default_factory=list)  # (path, class, reason)
    suspects: list[tuple[str, Outcome, bytes]] = field(default_factory=list)  # timeouts and deaths to confirm
    unconfirmed: list[str] = field(default_factory=list)  # failures under load that passed alone
    interrupted: bool = False  # stopped by Ctrl-C before its budget or its number of cases
    seconds: float = 0.0  # wall clock of the campaign (from the first input; not the warming or the confirming)
    cpu: float = 0.0  # CPU seconds of the harness and its workers over the same time
    cpu_harness: float = 0.0  # of which the harness's own (making the inputs, watching the workers)
    cpu_by_target: dict[str, float] = field(default_factory=dict)  # CPU seconds of each target's inputs

    def count(self, kind: str) -> int:
        return sum(c.get(kind, 0) for c in self.classes.values())


def _cpu_now() -> tuple[float, float]:
    """CPU seconds of this process and of its children that have ended (the workers, once stopped)."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime, children.ru_utime + children.ru_stime


def _record(report: Report, target: Target, data: bytes, outcome: Outcome, elapsed: float) -> None:
    report.tried[target.name] += 1
    report.cpu_by_target[target.name] = report.cpu_by_target.get(target.name, 0.0) + elapsed
    report.classes[target.name][outcome.kind] = report.classes[target.name].get(outcome.kind, 0) + 1
    if elapsed > report.slowest[0]:
        report.slowest = (elapsed, target.name, data)
    if outcome.kind in (TIMEOUT, MEMORY):
        report.suspects.append((target.name, outcome, data))  # confirmed alone at the end
    elif outcome.kind != OK:
        _add_failure(report, target.name, outcome, data)


def _progress(report: Report, started: float, deadline: float, out, cases: int | None = None) -> None:
    """One line of how far a run is: inputs tried, their rate, failures so far, time (or inputs) left."""
    now = time.monotonic()
    tried = sum(report.tried.values())
    rate = tried / max(now - started, 1e-9) * 60
    left = f"{max(deadline - now, 0) / 60:.1f} min left"
    if cases is not None:
        left = f"{max(cases - tried, 0)} inputs to go" + (f", at most {left}" if math.isfinite(deadline) else "")
    print(f"fuzz: {tried} inputs ({rate:.0f}/min), {len(report.failures)} distinct failures, "
          f"{len(report.suspects)} to confirm alone, {left}", file=out, flush=True)


def fuzz(budget: float, seed: int = 0, names: list[str] | None = None, targets: dict[str, Target] | None = None,
         findings: Path | None = FINDINGS, out=sys.stdout, jobs: int = 2, progress: float = 0.0,
         progress_out=sys.stderr, cases: int | None = None) -> Report:
    """Fuzz `names` (all targets by default) for `budget` seconds, `jobs` children at a time, each target
    getting an equal share of the time; write findings; return the report. With `cases`, stop starting
    inputs once that many have started (the budget stays an upper bound): a campaign of a fixed size.
    With `progress` > 0, a line of how far it is goes to `progress_out` every `progress` seconds (a long
    campaign shows it is alive)."""
    targets = targets if targets is not None else TARGETS
    chosen = [targets[n] for n in (names or list(targets))]
    rngs = {t.name: random.Random(f"{seed}/{t.name}") for t in chosen}  # the nth input of a target is fixed
    corpora = {t.name: t.corpus() for t in chosen}
    _warm(chosen, corpora)
    report = Report(tried={t.name: 0 for t in chosen}, classes={t.name: {} for t in chosen})
    spent = {t.name: 0.0 for t in chosen}
    started = time.monotonic()
    cpu_started = _cpu_now()
    deadline = started + budget
    next_progress = started + progress
    workers: list[Worker] = []
    busy: dict[Worker, tuple[Target, bytes]] = {}
    started_inputs = 0

    def more() -> bool:
        return time.monotonic() < deadline and (cases is None or started_inputs < cases)

    try:
        while busy or more():
            if progress > 0 and time.monotonic() >= next_progress:
                _progress(report, started, deadline, progress_out, cases)
                next_progress += progress
            for worker in [w for w in workers if not w.alive or (w.job is None and w.done >= RECYCLE)]:
                workers.remove(worker)
                worker.stop()
            while len(workers) < jobs:
                workers.append(_worker(targets))
            for worker in [w for w in workers if w.job is None]:
                if not more():
                    break
                now = time.monotonic()
                # an equal share of CPU time each, counting the inputs still running (a hanging input's
                # target is not picked again while it hangs)
                target = min(chosen, key=lambda t: (spent[t.name] + sum(now - w.job[2] for w in busy
                                                                         if busy[w][0] is t), t.name))
                corpus, rng = corpora[target.name], rngs[target.name]
                start = rng.choice(corpus)
                first = report.tried[target.name] == 0 and not any(t is target for t, _ in busy.values())
                data = start if first else mutate(rng, start, corpus, target.name)
                worker.give(target.name, data)
                busy[worker] = (target, data)
                started_inputs += 1
                spent[target.name] += 0.01  # until its real time is known
            wait([w.conn for w in busy], timeout=0.05)
            now = time.monotonic()
            for worker in list(busy):
                answer = worker.check(now)
                if answer is None:
                    continue
                target, data = busy.pop(worker)
                kind, signature, reason, cpu, wall = answer
                known = set(report.failures)
                _record(report, target, data, Outcome(kind, signature, reason), cpu)
                for name, kind, signature in set(report.failures) - known if progress > 0 else ():
                    # said at once: a campaign of hours need not end before a bug can be looked at
                    print(f"fuzz: new failure [{name}] {kind}: {report.failures[name, kind, signature][0]}",
                          file=progress_out, flush=True)
                spent[target.name] += cpu
    except KeyboardInterrupt:  # Ctrl-C: what ran so far is reported; the inputs in flight are not counted
        report.interrupted = True
    finally:
        for worker in workers:
            worker.stop()
    (own, children), (own_before, children_before) = _cpu_now(), cpu_started
    report.seconds, report.cpu_harness = time.monotonic() - started, own - own_before
    report.cpu = report.cpu_harness + children - children_before
    _confirm_alone(report, targets)
    if findings is not None:
        _write_findings(report, targets, findings)
    _print(report, targets, out)
    return report


def _add_failure(report: Report, name: str, outcome: Outcome, data: bytes) -> None:
    key = (name, outcome.kind, outcome.signature)
    if key not in report.failures or len(data) < len(report.failures[key][1]):
        report.failures[key] = (outcome.reason, data)  # keep the smallest input that shows it


def _confirm_alone(report: Report, targets: dict[str, Target]) -> None:
    """Run each timeout or dead child again with nothing else running (the first 30): one that passes then
    was slowed by the load of the run, not by its input, and is counted ok (and said so)."""
    for index, (name, outcome, data) in enumerate(report.suspects):
        alone, elapsed = run_one(targets[name], data) if index < 30 else (outcome, 0.0)
        if alone.kind == OK:
            report.classes[name][outcome.kind] -= 1
            report.classes[name][OK] = report.classes[name].get(OK, 0) + 1
            report.unconfirmed.append(f"{name} {outcome.kind} ({outcome.signature}): passed alone in {elapsed:.2f} s")
        else:
            _add_failure(report, name, outcome, data)
    # A worker runs many inputs: a failure that does not happen alone depends on the inputs before it
    # (state one left behind, itself a bug), and its written input alone would not show it: say so.
    for index, key in enumerate(sorted(report.failures)):
        name, kind, _signature = key
        reason, data = report.failures[key]
        if kind in (TIMEOUT, MEMORY) or index >= 30:
            continue
        alone, _ = run_one(targets[name], data)
        if alone.kind == OK:
            report.failures[key] = (f"{reason} (passed alone: it depends on the inputs run before it in its "
                                    "worker)", data)


def _warm(chosen: list[Target], corpora: dict[str, list[bytes]]) -> None:
    """Run each target once here, so every forked child starts with the parser built and the modules imported."""
    for target in [t for t in chosen if t.warm]:
        with tempfile.TemporaryDirectory(prefix="fuzz-warm-") as folder:
            path = Path(folder) / f"input.{target.ext}"
            path.write_bytes(corpora[target.name][0])
            target.run(path, Path(folder))
    os.environ.pop("RULESLANG_DEBUG", None)


def _write_findings(report: Report, targets: dict[str, Target], folder: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for (name, kind, signature), (reason, data) in sorted(report.failures.items()):
        digest = hashlib.sha256(f"{name}|{kind}|{signature}".encode() + data).hexdigest()[:10]
        path = folder / f"{name}-{digest}.{targets[name].ext}"
        path.write_bytes(data)
        path.with_name(path.name + ".reason").write_text(f"{kind}: {reason}\n", encoding="utf-8")
        report.written.append((path, kind, reason))


def _print(report: Report, targets: dict[str, Target], out) -> None:
    total = sum(report.tried.values())
    print(f"cases tried: {total}" + (" (interrupted: the inputs in flight are not counted)" if report.interrupted
                                     else ""), file=out)
    for name, tried in report.tried.items():
        classes = ", ".join(f"{k} {v}" for k, v in sorted(report.classes[name].items()))
        cpu = f"{report.cpu_by_target.get(name, 0.0) / tried * 1000:5.0f} ms/input" if tried else " " * 13
        print(f"  {name:9} {tried:7}  {cpu}   {classes}", file=out)
    print("totals: " + ", ".join(f"{k} {report.count(k)}" for k in CLASSES), file=out)
    if total and report.seconds:
        print(f"rate: {total / report.seconds * 60:.0f} inputs per minute ({report.seconds:.0f} s of wall clock; "
              f"{report.cpu / total * 1000:.0f} ms of CPU per input: {report.cpu_harness / total * 1000:.0f} "
              f"in the harness, the rest in the workers)", file=out)
    seconds, name, data = report.slowest
    print(f"slowest input: {seconds:.2f} s of CPU ({name}, {len(data)} bytes: {data[:80]!r})", file=out)
    for line in report.unconfirmed:
        print(f"not confirmed alone (counted ok): {line}", file=out)
    print(f"distinct failures: {len(report.failures)}", file=out)
    shown = {(p.name.split("-")[0], kind, reason): p for p, kind, reason in report.written}
    for (name, kind, signature), (reason, data) in sorted(report.failures.items()):
        path = shown.get((name, kind, reason))
        print(f"  [{name}] {kind}: {reason}", file=out)
        if path is not None:
            shown_path = os.path.relpath(path) if str(path).startswith(os.getcwd()) else str(path)
            print(f"      reproducer: {shown_path}   shown by: {targets[name].show.format(path=shown_path)}",
                  file=out)


def show(path: Path) -> int:
    """Run one saved input in this process, letting an exception's traceback through."""
    name = path.name.split("-")[0]
    target = TARGETS[name]
    workdir = Path(tempfile.mkdtemp(prefix="fuzz-show-"))
    try:
        copy = workdir / f"input.{target.ext}"
        copy.write_bytes(path.read_bytes())
        os.environ["RULESLANG_DEBUG"] = "1"
        outcome = target.run(copy, workdir)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    print(f"{outcome.kind}: {outcome.reason}" if outcome.kind != OK else "ok")
    if LAST_TRACE:
        print(LAST_TRACE[-1], end="")
    return 0 if outcome.kind == OK else 1


def _arguments(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--budget", type=float, help="seconds to fuzz for (default 60; with --cases, no limit "
                        "unless given)")
    parser.add_argument("--cases", type=int, metavar="N", help="stop after N inputs (a campaign of a fixed "
                        "size; the targets still share the time equally)")
    parser.add_argument("--seed", type=int, default=0, help="the seed of the mutations (default 0)")
    parser.add_argument("--target", action="append", choices=sorted(TARGETS), help="a target (repeatable; "
                        "default all)")
    parser.add_argument("--jobs", type=int, default=2, help="inputs run at once (default 2)")
    parser.add_argument("--progress", type=float, default=60.0, metavar="SECONDS",
                        help="print how far the run is to stderr every SECONDS (default 60; 0: never)")
    parser.add_argument("--show", type=Path, help="run one finding again and print what it does")
    return parser.parse_args(argv)


def _interrupt(signum, frame):
    raise KeyboardInterrupt


def stop_on_sigterm() -> None:
    """Let `kill` (SIGTERM) end a campaign as Ctrl-C does, with its report: a campaign started in
    the background by a shell that ignores Ctrl-C there can still be stopped and read."""
    signal.signal(signal.SIGTERM, _interrupt)


def main(argv: list[str] | None = None) -> int:
    """The command line: fuzz, print the figures, exit 1 when anything failed."""
    args = _arguments(argv)
    if args.show is not None:
        return show(args.show)
    # the mutants go through the parse cache too, but into a folder of this run, not the user's cache
    stop_on_sigterm()
    cache = tempfile.mkdtemp(prefix="fuzz-cache-")
    os.environ.setdefault("RULESLANG_CACHE_DIR", cache)
    try:
        budget = args.budget if args.budget is not None else (math.inf if args.cases is not None else 60.0)
        report = fuzz(budget, args.seed, args.target, jobs=args.jobs, progress=args.progress, cases=args.cases)
    finally:
        shutil.rmtree(cache, ignore_errors=True)
    return 1 if report.failures else 0


if __name__ == "__main__":
    sys.exit(main())
