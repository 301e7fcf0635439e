"""CLI transcripts: `tests/cases/cli/*.txt` hold `$ ruleslang ...` lines, the expected output and
`[exit N]`. Run with UPDATE_GOLDEN=1 to rewrite them from the current behaviour (then review the diff)."""

import io
import os
import re
import shlex
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest

from ruleslang.cli.app import main
from ruleslang.base.paths import packaged_root
from ruleslang.workspace import kept

from conftest import FIXTURES, REPO

CASES = sorted((Path(__file__).parent / "cases" / "cli").glob("*.txt"))


def run_cli(argv):
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        try:
            code = main(argv)
        except SystemExit as exc:  # argparse usage errors
            code = exc.code
    return code, out.getvalue() + err.getvalue()


def _transcript(path: Path) -> list[tuple[str, str]]:
    blocks = re.split(r"^\$ ", path.read_text(encoding="utf-8"), flags=re.M)
    return [(b.split("\n", 1)[0], b.split("\n", 1)[1] if "\n" in b else "") for b in blocks if b.strip()]


def _render(command: str) -> str:
    argv = shlex.split(command)
    assert argv[0] == "ruleslang"
    code, output = run_cli(argv[1:] + ["--rulesets", str(FIXTURES)] if _takes_rulesets(argv) else argv[1:])
    # Paths differ from machine to machine (and between editable and wheel installs).
    output = output.replace(str(FIXTURES) + os.sep, "").replace(str(FIXTURES), "<fixtures>")
    output = output.replace(str(packaged_root()), "<packaged rulesets>")
    checkout = REPO / "rulesets"
    if checkout.resolve() != packaged_root().resolve():
        # a wheel install run from the checkout also looks in the checkout's own rulesets/
        output = output.replace(", " + str(checkout), "")
    return f"$ {command}\n{output}[exit {code}]\n"


def _takes_rulesets(argv) -> bool:
    return len(argv) > 1 and argv[1] not in ("--help", "--version") and "--help" not in argv


@pytest.mark.parametrize("path", CASES, ids=lambda p: p.stem)
def test_transcript(path, monkeypatch):
    monkeypatch.chdir(REPO)
    # a transcript shows a first run: no result kept by an earlier one is replayed (parses still are)
    monkeypatch.setattr(kept, "cache_dir", lambda: None)
    rendered = "".join(_render(cmd) for cmd, _ in _transcript(path))
    if os.environ.get("UPDATE_GOLDEN"):
        path.write_text(rendered, encoding="utf-8")
    assert rendered == path.read_text(encoding="utf-8")


def test_usage_errors_exit_2():
    code, output = run_cli(["eval"])
    assert code == 2 and "usage:" in output
    code, _ = run_cli(["frobnicate"])
    assert code == 2
    code, output = run_cli([])
    assert code == 2 and "COMMAND" in output


def test_check_is_silent_when_clean(monkeypatch):
    monkeypatch.chdir(REPO)
    code, output = run_cli(["check", "board/base@1", "--rulesets", str(FIXTURES)])
    assert (code, output) == (0, "")
