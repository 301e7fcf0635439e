"""Games on a Dask cluster (`compare --backend dask [--scheduler ADDRESS]`).

The rulesets travel with the work, not as paths: the composition's ruleset files and its map are
gathered into a `Bundle` (texts, with a digest), sent once to every worker, written there into a
ruleset folder of its own and loaded once per worker process. A worker needs ruleslang (and
dask.distributed) installed, nothing else: not the user's folders, not the same paths. Without
`--scheduler`, a `LocalCluster` of `--jobs` single-threaded worker processes is started and stopped.
Each game is played as with `--jobs`: the same seeds give the same records, whatever runs them.
"""

from __future__ import annotations

import hashlib
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterable, Sequence

from ruleslang.base.diagnostics import DiagnosticError, error
from ruleslang.board.mapdata import find_map
from ruleslang.compare.runner import GamePlayer, GameTask, LoadedOnce
from ruleslang.lang.compose.composition import composition_rulesets_of
from ruleslang.lang.compose.loader import parse_ref, without_mark
from ruleslang.runtime.game import ruleset_sources


@dataclass(frozen=True)
class Bundle:
    """The files a worker needs, as (path inside a ruleset folder, text), and their digest."""

    files: tuple[tuple[str, str], ...]
    digest: str


def bundle_of(workspace, compositions: Sequence[Sequence[str]]) -> Bundle:
    """The ruleset files and maps of `compositions`, as loaded here. A ruleset named by a file path
    (not `family/name@N`), one that uses another by its path, or a map given as a path cannot
    travel by name: U125."""
    files: dict[str, str] = {}
    for refs in compositions:
        for ref in refs:
            if parse_ref(without_mark(ref)) is None:
                raise _by_path(ref)
        loaded = workspace.load(list(refs))
        if not loaded.ok:
            raise DiagnosticError(loaded.diagnostics)
        for ref, source in ruleset_sources(loaded).items():
            parts = parse_ref(ref)
            if parts is None or parts[2] is None:
                raise _by_path(ref)
            files[f"{parts[0]}/{parts[1]}@{parts[2]}.rules"] = source.text
        for ruleset in composition_rulesets_of(loaded.ruleset):
            header = ruleset.file.module.header if ruleset.file is not None else None
            written = [*header.uses, *([header.revises] if header.revises else [])] if header else []
            if any(ref.is_path for ref in written):
                raise _by_path(f"{ruleset.ref} (it uses or revises a file by its path)")
        if loaded.ruleset.map is not None:
            name = loaded.ruleset.map[0]
            path = find_map(name, workspace.roots)
            if path is None or "/" in name or name.endswith((".yaml", ".yml")):
                raise DiagnosticError(error("U125", f"--backend dask sends maps by name; the map '{name}' is not "
                                                    "a map of the ruleset folders (maps/NAME.yaml)", None))
            files[f"maps/{name}.yaml"] = path.read_text(encoding="utf-8")
    items = tuple(sorted(files.items()))
    digest = hashlib.sha256("\0".join(f"{p}\0{t}" for p, t in items).encode("utf-8")).hexdigest()
    return Bundle(items, digest)


def _by_path(what: str) -> DiagnosticError:
    return DiagnosticError(error(
        "U125", f"--backend dask sends rulesets by reference (family/name@N), not by path: {what}", None,
        hint="put the file in a ruleset folder as family/name@N.rules, name the folder with --rulesets, and "
             "name the ruleset by its reference"))


_players: dict[str, GamePlayer] = {}  # in a worker process: the player of each bundle it has been sent


def _player(bundle: Bundle) -> GamePlayer:
    """This worker's player of `bundle`: its files written once into a folder of their own."""
    player = _players.get(bundle.digest)
    if player is None:
        root = Path(tempfile.mkdtemp(prefix="ruleslang-bundle-"))
        for relative, text in bundle.files:
            target = root / relative
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text, encoding="utf-8")
        player = _players[bundle.digest] = GamePlayer(LoadedOnce([root]))
    return player


def play_bundled(task: GameTask, bundle: Bundle) -> tuple[GameTask, dict, float]:
    """Play one game on a worker (the function Dask runs)."""
    start = time.perf_counter()
    record = _player(bundle).play(task)
    return task, record, time.perf_counter() - start


def play_on_dask(tasks: Iterable[GameTask], bundle: Bundle, done: Callable[[GameTask, dict, float], None], *,
                 scheduler: str | None, workers: int) -> None:
    """Play every task on the cluster at `scheduler` (None: a LocalCluster of `workers` processes),
    calling `done(task, record, seconds)` here as each finishes."""
    # start-up time: dask loads only for a comparison sent to it
    from dask.distributed import Client, LocalCluster, as_completed

    cluster = None
    if scheduler is None:
        cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None)
    client = Client(cluster if cluster is not None else scheduler)
    try:
        shared = client.scatter(bundle, broadcast=True)
        futures = [client.submit(play_bundled, task, shared, pure=False) for task in tasks]
        for future in as_completed(futures):
            done(*future.result())
    finally:
        client.close()
        if cluster is not None:
            cluster.close()
