"""Where rulesets, maps and scenarios are looked up: the ruleset roots.

A root is a folder laid out as the project's `rulesets/`:

    <root>/<family>/<name>@<N>.rules      rulesets (`family/name@N`)
    <root>/<family>/scenarios/<name>.yaml named scenarios (`family/name`)
    <root>/maps/<map>.yaml                maps (`aar`, `g40`, ...)

The roots are, in order: folders the user names (`--rulesets DIR`), `./rulesets` when the
working directory has one, then the rulesets shipped inside the package. A ruleset can never
reach a file outside these roots except by a path the user gave on the command line.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Iterable

from ruleslang.base.diagnostics import refuse_nul
from ruleslang.base.source import Span


def package_folder(package: str) -> Path | None:
    """The folder of the installed package `package` (data shipped as package data), or None.
    Found through its import spec: importlib.resources would load tempfile and zipfile, a tenth of
    what a warm `call` imports."""
    try:
        spec = importlib.util.find_spec(package)
    except ModuleNotFoundError:
        return None
    locations = spec.submodule_search_locations if spec is not None else None
    return Path(locations[0]) if locations else None


def packaged_root() -> Path:
    """The rulesets shipped with the package (a source checkout's `rulesets/` when not installed)."""
    root = package_folder("ruleslang.rulesets")
    if root is not None and root.is_dir():
        return root
    # a source checkout: this file is ruleslang/base/paths.py, the checkout two folders up
    return Path(__file__).resolve().parents[2] / "rulesets"


def default_roots(extra: Iterable[str | Path] = ()) -> list[Path]:
    """User folders first, then ./rulesets, then the packaged rulesets; no duplicates."""
    roots: list[Path] = []
    for candidate in [*extra, Path.cwd() / "rulesets", packaged_root()]:
        path = Path(candidate).resolve()
        if path.is_dir() and path not in roots:
            roots.append(path)
    return roots


def inside(path: Path, folders: Iterable[str | Path]) -> bool:
    """Whether `path` (resolved) is one of `folders` or lies below one of them."""
    for folder in folders:
        folder = Path(folder).resolve()
        if path == folder or folder in path.parents:
            return True
    return False


def confined(text: str, folders: Iterable[str | Path], what: str, span: Span | None = None, *,
             relative_to: Path | None = None) -> Path | None:
    """The path a user wrote in a file (`text`, relative to the folder `relative_to`, else to the
    working directory), resolved, when it lies inside `folders`; None when it lies outside (the
    caller says so, S005). A NUL character in it is D613 at `span` (`what` names what was written:
    "a ruleset path", ...), refused before any path operation."""
    refuse_nul(text, what, span)
    path = ((relative_to if relative_to is not None else Path.cwd()) / text).resolve()
    return path if inside(path, folders) else None
