"""Shared fixtures of the board tests: the packaged maps, the test fixtures, the reference files.

Test modules import the fixtures they use by name (a `conftest.py` here would shadow the
project's `tests/conftest.py`, which other tests import as `conftest`).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from ruleslang.board.mapdata import GameMap, load_map
from ruleslang.board.queries import BoardQueries
from ruleslang.board.scenario import Scenario
from ruleslang.board.state import GameState
from ruleslang.base.paths import packaged_root

FIXTURES = Path(__file__).parent / "fixtures"
REPO = Path(__file__).resolve().parents[2]
# `shared/reference` beside the checkout, or beside its parent folder (a checkout in a worktree folder).
REFERENCE = next((p.resolve() for p in (REPO.parent / "shared" / "reference", REPO.parent.parent / "shared" / "reference")
                  if (p / "triplea").is_dir()), (REPO.parent / "shared" / "reference").resolve())


@pytest.fixture(scope="session")
def roots() -> list[Path]:
    """Only the project's own rulesets, whatever the working directory holds."""
    return [packaged_root()]


@pytest.fixture(scope="session")
def aar(roots) -> GameMap:
    return load_map("aar", roots)


@pytest.fixture(scope="session")
def tiny() -> GameMap:
    return load_map(str(FIXTURES / "tiny_map.yaml"), [])


@pytest.fixture()
def aar_state(aar) -> GameState:
    return GameState.from_scenario(Scenario.start_of(aar))


@pytest.fixture()
def aar_queries(aar_state) -> BoardQueries:
    return BoardQueries(aar_state)


@pytest.fixture(scope="session")
def reference() -> Path:
    """`../shared/reference` beside the checkout; the tests that need it skip without it."""
    if not (REFERENCE / "triplea").is_dir():
        pytest.skip("the reference files (../shared/reference) are not present")
    return REFERENCE


@pytest.fixture(scope="session")
def facts(reference) -> dict:
    import yaml  # the reference facts file uses anchors, so it is read with PyYAML's own safe loader

    return yaml.safe_load((reference / "aar-revised-facts.yaml").read_text(encoding="utf-8"))
