"""The package's shape: layers import only downward, no import circle, no reaching into private names.

The layers are declared once, in pyproject.toml's `[tool.importlinter]` contracts; this test runs them
(as `lint-imports` would) so that CI keeps them, and adds what import-linter does not check: that no
two modules import each other, even through function-local imports, and that no module imports
another module's private (`_`-prefixed) names.
"""

from __future__ import annotations

import ast
import io
from contextlib import redirect_stdout
from pathlib import Path

import grimp
import networkx as nx
import pytest

import ruleslang

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = Path(ruleslang.__file__).resolve().parent


def test_the_import_contracts_hold():
    pytest.importorskip("importlinter")
    from importlinter.cli import lint_imports

    out = io.StringIO()
    with redirect_stdout(out):
        code = lint_imports(config_filename=str(ROOT / "pyproject.toml"), no_cache=True, no_logo=True)
    report = out.getvalue()
    assert "Contracts: " in report, report
    assert code == 0, report


def test_no_module_imports_itself_back():
    graph = grimp.build_graph("ruleslang", cache_dir=None)
    edges = nx.DiGraph()
    for module in graph.modules:
        for imported in graph.find_modules_directly_imported_by(module):
            edges.add_edge(module, imported)
    circles = [sorted(c) for c in nx.strongly_connected_components(edges) if len(c) > 1]
    assert circles == []


def _private_imports(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.level or (node.module or "").startswith("ruleslang")):
            for alias in node.names:
                if alias.name.startswith("_") and not alias.name.startswith("__"):
                    found.append(f"{path.relative_to(PACKAGE)}:{node.lineno}: {node.module}.{alias.name}")
    return found


def test_no_module_imports_another_modules_private_names():
    found = [hit for path in sorted(PACKAGE.rglob("*.py")) for hit in _private_imports(path)]
    assert found == []



def _deferred_imports_without_reason(path: Path) -> list[str]:
    lines = path.read_text(encoding="utf-8").split("\n")
    found = []
    for node in ast.walk(ast.parse("\n".join(lines))):
        if isinstance(node, (ast.Import, ast.ImportFrom)) and node.col_offset > 0:
            above = lines[node.lineno - 2].strip() if node.lineno > 1 else ""
            # consecutive deferred imports share the comment of the first
            k = node.lineno - 2
            while above.startswith(("from ", "import ")) and k > 0:
                k -= 1
                above = lines[k].strip()
            if not above.startswith("# start-up time"):
                found.append(f"{path.relative_to(PACKAGE)}:{node.lineno}")
    return found


def test_function_local_imports_only_for_start_up_time():
    """An import inside a function is there for start-up time, and a comment above it says so."""
    found = [hit for path in sorted(PACKAGE.rglob("*.py")) for hit in _deferred_imports_without_reason(path)]
    assert found == []
