"""TripleA import benchmark: import time per file size over the reference game files, and the catalogue's state.

For every game file under the reference folders (default: `shared/reference/triplea*/` beside the
checkout or its parent folder): its size, the time to read its XML alone (the baseline, measured
in the same run), the time of the whole import (variables, map, ruleset, the checks of both, the
files written), the ratio of the two, the import time per MB, and what the import reported: the
spaces, and the warnings (D645/D646, one per kind of untranslated item) or the refusal. Each file
is imported `--repeat` times; the best time counts. The smallest file is imported once first,
untimed, so that loading the parser and checker is not counted against it. The last lines count the files imported and
refused, and give the whole catalogue's import time.

    python benchmarks/import.py [--repeat N] [FOLDER ...]

Done-when of issue 13: every file imports; this prints the time it takes.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

from ruleslang.base.diagnostics import Severity
from ruleslang.base.safexml import read_xml
from ruleslang.importers.triplea import run_import

REPO = Path(__file__).resolve().parents[1]


def reference_folders() -> list[Path]:
    """`shared/reference/triplea*` beside the checkout, or beside its parent folder."""
    for shared in (REPO.parent / "shared" / "reference", REPO.parent.parent / "shared" / "reference"):
        if shared.is_dir():
            return sorted(p for p in shared.glob("triplea*") if p.is_dir())
    return []


def game_files(folders: list[Path]) -> list[Path]:
    """The game files under `folders` (default: the reference folders), smallest first; says so
    on standard error when there are none."""
    files = sorted({f for folder in (folders or reference_folders()) for f in folder.rglob("*.xml")},
                   key=lambda f: f.stat().st_size)
    if not files:
        print("no game files found (the reference folders are not present)", file=sys.stderr)
    return files


def parse_with_files(parser: argparse.ArgumentParser, argv) -> tuple[argparse.Namespace, list[Path]]:
    """`parser`'s arguments with the game-file folders added, and the game files they name (both
    import benchmarks take the same folders)."""
    parser.add_argument("folders", nargs="*", type=Path, help="folders of game files (default: the reference folders)")
    args = parser.parse_args(argv)
    return args, game_files(args.folders)


def best_time(repeat: int, work) -> tuple[float, object]:
    """The fastest of `repeat` runs of `work()`, and its last result."""
    best, result = float("inf"), None
    for _ in range(repeat):
        start = time.perf_counter()
        result = work()
        best = min(best, time.perf_counter() - start)
    return best, result


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=1, help="imports per file; the best time counts (default 1)")
    args, files = parse_with_files(parser, argv)
    if not files:
        return 1
    print(f"{'file':44} {'KB':>6} {'read s':>7} {'import s':>9} {'ratio':>6} {'s/MB':>6} {'spaces':>6}  result")
    imported = refused = 0
    total = 0.0
    with tempfile.TemporaryDirectory() as out:
        run_import(files[0], Path(out) / "warm-up")  # loads the parser and checker, untimed
        for path in files:
            size = path.stat().st_size
            read, _ = best_time(args.repeat, lambda: read_xml(path))
            took, (report, diagnostics) = best_time(args.repeat, lambda: run_import(path, Path(out) / path.stem))
            total += took
            errors = [d for d in diagnostics if d.severity is Severity.ERROR]
            if report is None:
                refused += 1
                result = f"refused: {len(errors)} errors, first {errors[0].code} {errors[0].message[:60]}"
            else:
                imported += 1
                result = f"imported, {len(diagnostics)} warnings ({len(report.untranslated)} items untranslated)"
            print(f"{path.name[:44]:44} {size / 1024:6.0f} {read:7.3f} {took:9.3f} {took / read:6.1f} "
                  f"{took / (size / 2 ** 20):6.2f} {report.spaces if report else '-':>6}  {result}")
    print(f"{len(files)} files: {imported} imported, {refused} refused; the whole catalogue imports in {total:.1f} s")
    return 0 if not refused else 1


if __name__ == "__main__":
    sys.exit(main())
