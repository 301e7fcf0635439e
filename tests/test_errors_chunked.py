"""Chunked error files: programs separated by `---`; `### CODE "regex"` marks the line that must fail.

Every marked diagnostic must be reported on its line with its code and a message matching the
regex, and every error reported must be marked. A chunk without a `ruleset` line gets one.
"""

import re
from pathlib import Path

import pytest

from ruleslang.base.diagnostics import Severity
from ruleslang.workspace.compositions import Workspace

CASES = sorted((Path(__file__).parent / "cases" / "errors").glob("*.rules"))
MARK = re.compile(r'###\s+([A-Z][0-9]{3})\s+"([^"]*)"')


def _chunks():
    for path in CASES:
        text = path.read_text(encoding="utf-8")
        line_no = 1
        for chunk in re.split(r"^---[ \t]*\n", text, flags=re.M):
            start = line_no
            line_no += chunk.count("\n") + 1
            if chunk.strip():
                yield pytest.param(chunk, id=f"{path.stem}:{start}")


@pytest.mark.parametrize("chunk", list(_chunks()))
def test_chunk(chunk, tmp_path):
    if not chunk.lstrip().startswith("ruleset"):
        chunk = "ruleset t/case@1\n" + chunk
    (tmp_path / "t").mkdir()
    (tmp_path / "t" / "case@1.rules").write_text(chunk, encoding="utf-8")
    expected = []
    for i, line in enumerate(chunk.splitlines(), start=1):
        for code, pattern in MARK.findall(line):
            expected.append((i, code, pattern))
    assert expected, "a chunk must mark at least one expected diagnostic"
    loaded = Workspace([tmp_path, Path(__file__).parent / "rulesets"]).load(["t/case@1"])
    got = [(d.span.line if d.span else None, d.code, d.message) for d in loaded.diagnostics]
    for line, code, pattern in expected:
        assert any(gl == line and gc == code and re.search(pattern, gm) for gl, gc, gm in got), \
            f"expected {code} /{pattern}/ on line {line}; got {got}"
    for d in loaded.diagnostics:
        if d.severity is Severity.ERROR:
            line = d.span.line if d.span else None
            assert any(line == el and d.code == ec for el, ec, _ in expected), f"unexpected {d.code} {d.message} at {line}"
