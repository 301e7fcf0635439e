"""Shared fixtures: the fixture ruleset root and helpers to load ruleset text."""

from __future__ import annotations

import gc
import textwrap
from pathlib import Path

import pytest

from ruleslang.workspace.compositions import Workspace

TESTS = Path(__file__).resolve().parent
FIXTURES = TESTS / "rulesets"
REPO = TESTS.parent
REFERENCE = REPO.parent / "shared" / "reference"


@pytest.fixture
def workspace() -> Workspace:
    return Workspace([FIXTURES])


def record_calls(monkeypatch, owner, name: str, note) -> list:
    """Wrap `owner.name` (a module's function, a class's method, an object's own attribute) so that
    each call, answered as before, appends `note(*its arguments)` to the list returned."""
    calls: list = []
    real = getattr(owner, name)

    def recorded(*args, **kwargs):
        calls.append(note(*args))
        return real(*args, **kwargs)
    monkeypatch.setattr(owner, name, recorded)
    return calls


class LoadedOnceHere(Workspace):
    """compare/runner.py's `LoadedOnce` (each composition loaded once, its program shared by every
    game of it) without its collector freeze, which would freeze the test process's objects."""

    def __init__(self, roots=()):
        super().__init__(list(roots))
        self.loaded: dict = {}

    def load(self, refs, *, kept=False):
        key = tuple(refs)
        if key not in self.loaded:
            self.loaded[key] = super().load(refs, kept=kept)
        return self.loaded[key]


@pytest.fixture
def collector_paused():
    """The cyclic garbage collector run once and paused for the test (what is freed then is freed
    by reference counting alone), then put back as it was."""
    collecting = gc.isenabled()
    gc.collect()
    gc.disable()
    yield
    if collecting:
        gc.enable()


def write_rulesets(root: Path, files: dict[str, str]) -> Path:
    """Write {"family/name@N": text} into `root` laid out as a ruleset root."""
    for ref, text in files.items():
        family, rest = ref.split("/")
        folder = root / family
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"{rest}.rules").write_text(textwrap.dedent(text).lstrip(), encoding="utf-8")
    return root


def load(tmp_path: Path, files: dict[str, str], ref: str | None = None, extra_roots=()):
    """Write rulesets into a temporary root and load one composition."""
    write_rulesets(tmp_path, files)
    ws = Workspace([tmp_path, *extra_roots])
    return ws, ws.load([ref or next(iter(files))])


def codes(diagnostics) -> list[str]:
    return [d.code for d in diagnostics]
