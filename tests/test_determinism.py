"""The same rulesets, seed and inputs give byte-identical output under any PYTHONHASHSEED."""

import os
import subprocess
import sys

from conftest import FIXTURES

COMMANDS = [
    ["test", "procs/game@1", "board/base@1", "--format", "json", "--no-cache"],  # run, not replayed
    ["call", "procs/game@1", "raid_damage", "Sea 2", "--exact", "--format", "json"],
    ["eval", "procs/game@1", "[u.type for u in units(tag: sea)]", "--seed", "9"],
    ["eval", "board/base@1", "connected(\"Marsh\", y => allied(controller(y), Reds))"],
]


def _run(args, hashseed):
    env = dict(os.environ, PYTHONHASHSEED=str(hashseed))
    proc = subprocess.run([sys.executable, "-m", "ruleslang", *args, "--rulesets", str(FIXTURES)],
                          capture_output=True, env=env, check=False)
    return proc.returncode, proc.stdout, proc.stderr


def test_output_does_not_depend_on_the_hash_seed():
    for args in COMMANDS:
        runs = [_run(args, seed) for seed in (0, 1, 4242)]
        assert runs[0][0] == 0, runs[0]
        assert runs[0] == runs[1] == runs[2], args
