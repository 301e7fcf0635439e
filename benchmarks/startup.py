"""What a command costs before and while it runs a rule: whole `ruleslang` processes, timed.

    python benchmarks/startup.py [--runs N] [--commands call,check,test]

For each command (issue 15's targets: a cold `call` under 200 ms with a warm cache; `check` and
`test` of every shipped ruleset under 1 s) it prints the median over N runs of the process's
CPU time (user + system, what the process itself costs whatever else the machine runs) and of
its wall time, three ways, interleaved run by run so a change of load touches all three alike:

- `no cache`: `RULESLANG_CACHE_DIR=off` (the parser built, every ruleset parsed and validated);
- `cold cache`: an empty cache directory for each run (it is filled as the command runs);
- `warm cache`: a cache directory filled by a run before the timed ones (the usual case).

and the ratio of each to `no cache`. Also `python -c "import ruleslang.cli.app"` (the imports
every command pays) and `python -c pass` (the interpreter's own start) as the floor.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

COMMANDS = {
    "call": ["call", "aar/commerce-raiding@1", "raid_cap", "United Kingdom"],
    "check": ["check"],
    "test": ["test"],
}
EXE = [sys.executable, "-m", "ruleslang"]


def _run(argv: list[str], cache: str) -> tuple[float, float]:
    """CPU seconds (user + system of the child) and wall seconds of one process."""
    env = dict(os.environ, RULESLANG_CACHE_DIR=cache)
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # an installed package has its bytecode; so do these runs
    before = os.times()
    start = time.perf_counter()
    subprocess.run(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    wall = time.perf_counter() - start
    after = os.times()
    return (after.children_user - before.children_user) + (after.children_system - before.children_system), wall


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--runs", type=int, default=5, help="timed runs of each (default 5)")
    ap.add_argument("--commands", default=",".join(COMMANDS),
                    help="which commands to time, comma-separated (default: all, " + ", ".join(COMMANDS) + ")")
    args = ap.parse_args()
    chosen = [c.strip() for c in args.commands.split(",") if c.strip()]
    unknown = [c for c in chosen if c not in COMMANDS]
    if unknown:
        ap.error(f"--commands: unknown {', '.join(unknown)}; known: {', '.join(COMMANDS)}")
    scratch = Path(tempfile.mkdtemp(prefix="startup-bench-"))
    try:
        warm = str(scratch / "warm")
        floor = {"python -c pass": [sys.executable, "-c", "pass"],
                 "import ruleslang.cli.app": [sys.executable, "-c", "import ruleslang.cli.app"]}
        for argv in [*floor.values(), *[EXE + COMMANDS[c] for c in chosen]]:
            _run(argv, warm)  # fills the warm cache and the bytecode, untimed
        for label, argv in floor.items():
            cpu = statistics.median(_run(argv, warm)[0] for _ in range(args.runs))
            print(f"{label:<28} CPU {cpu * 1000:7.0f} ms")
        print(f"median of {args.runs} runs; CPU ms (wall ms); ratio of CPU to no cache")
        for name in chosen:
            command = COMMANDS[name]
            times: dict[str, list[tuple[float, float]]] = {"no cache": [], "cold cache": [], "warm cache": []}
            for i in range(args.runs):
                cold = scratch / f"cold-{name}-{i}"
                times["no cache"].append(_run(EXE + command, "off"))
                times["cold cache"].append(_run(EXE + command, str(cold)))
                times["warm cache"].append(_run(EXE + command, warm))
                shutil.rmtree(cold, ignore_errors=True)
            base = statistics.median(c for c, _ in times["no cache"])
            cells = []
            for label, pairs in times.items():
                cpu = statistics.median(c for c, _ in pairs)
                wall = statistics.median(w for _, w in pairs)
                cells.append(f"{label} {cpu * 1000:6.0f} ({wall * 1000:6.0f}) {cpu / base:4.2f}x")
            print(f"{name:<6} " + " | ".join(cells))
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
