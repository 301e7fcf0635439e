"""Imported TripleA games in play: each game file imported, then played with heuristic agents.

For every game file under the reference folders (default: `shared/reference/triplea*/` beside
the checkout or its parent folder, as `benchmarks/import.py` finds them): whether it imported,
the rounds played (of `--rounds`), the battles (`battle` events of the log) and those fought
for at least a round (the others: an undefended space taken), the
purchases outside the buying player's production frontier (units its frontier does not offer,
or not in whole lots: must be 0), and the seconds the game took (the import not counted). The
last line sums them up.

    python benchmarks/import_play.py [--rounds N] [--seed S] [--timeout SECONDS] [FOLDER ...]

Done-when of issue 13, item 7: every imported game plays its rounds, fights battles, and buys
only what its frontiers offer.
"""

from __future__ import annotations

import argparse
import importlib
import json
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from ruleslang.importers.triplea import run_import

# The game files as benchmarks/import.py finds them (a module named `import` is imported by name).
sys.path.insert(0, str(Path(__file__).resolve().parent))
parse_with_files = importlib.import_module("import").parse_with_files


def frontier_of(ruleset: Path) -> dict[str, dict[str, int]]:
    """player -> unit type -> lot, read from the generated ruleset's frontier table."""
    text = ruleset.read_text(encoding="utf-8")
    out: dict[str, dict[str, int]] = {}
    for m in re.finditer(r'^    "((?:[^"\\]|\\.)*)", (\w+) -> -?\d+, (\d+)(?:, -?\d+)*$', text, re.M):
        out.setdefault(m.group(1), {})[m.group(2)] = int(m.group(3))
    return out


def play(root: Path, family: str, rounds: int, seed: int, timeout: float) -> tuple[str, list[dict], float]:
    """Play the imported game in a child process (a hang is stopped): (status, log events, seconds)."""
    log = root / "game.jsonl"
    command = [sys.executable, "-m", "ruleslang", "play", "--rulesets", str(root), "--ruleset", f"{family}/base@1",
               "--rounds", str(rounds), "--seed", str(seed), "--agent", "heuristic", "--log", str(log), "--quiet"]
    start = time.perf_counter()
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return f"stopped after {timeout:.0f} s", [], time.perf_counter() - start
    took = time.perf_counter() - start
    events = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()] if log.exists() else []
    status = "played" if done.returncode == 0 else "failed: " + (done.stderr.strip().splitlines() or ["?"])[-1][:70]
    return status, events, took


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3, help="rounds a game plays (default 3)")
    parser.add_argument("--seed", type=int, default=1, help="the seed of the dice and agents (default 1)")
    parser.add_argument("--timeout", type=float, default=600, help="seconds before a game is stopped (default 600)")
    args, files = parse_with_files(parser, argv)
    if not files:
        return 1
    print(f"{'file':44} {'imported':>8} {'rounds':>6} {'battles':>7} {'fought':>6} {'outside':>7} {'seconds':>8}  result")
    good = 0
    with tempfile.TemporaryDirectory() as out:
        for path in files:
            root = Path(out) / path.stem
            report, _ = run_import(path, root)
            if report is None:
                print(f"{path.name[:44]:44} {'no':>8} {'-':>6} {'-':>7} {'-':>6} {'-':>7} {'-':>8}  refused")
                continue
            status, events, took = play(root, report.family, args.rounds, args.seed, args.timeout)
            frontier = frontier_of(report.ruleset_path)
            rounds = max((e.get("round", 0) for e in events if e.get("kind") == "round"), default=0)
            battles = sum(1 for e in events if e.get("kind") == "battle")
            fought = sum(1 for e in events if e.get("kind") == "battle_end" and e.get("rounds", 0) > 0)
            outside = 0
            for e in events:
                if e.get("kind") == "purchase":
                    offer = frontier.get(e["player"], {})
                    outside += sum(n for u, n in e["units"].items() if u not in offer or n % offer[u])
            ok = status == "played" and rounds == args.rounds and battles > 0 and outside == 0
            good += ok
            print(f"{path.name[:44]:44} {'yes':>8} {rounds:>6} {battles:>7} {fought:>6} {outside:>7} {took:8.1f}  {status}")
    print(f"{len(files)} files: {good} played {args.rounds} rounds with battles and no purchase outside a frontier")
    return 0 if good == len(files) else 1


if __name__ == "__main__":
    sys.exit(main())
