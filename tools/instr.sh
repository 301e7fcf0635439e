#!/bin/bash
# tools/instr.sh TREE [N] [FIRST]: the instructions (callgrind's `Collected`, independent of the
# machine's load) of tools/worker_games.py N [FIRST] played with TREE's code. The loading is in the
# count: compare two trees at the same N, or take the margin a game, (Ir at N=4 - Ir at N=1) / 6
# (two variants a game number, one warm-up game). Compile the tree's byte code first
# (`python -m compileall -q TREE/ruleslang`), else each run counts the compiling. The hash seed is
# fixed (PYTHONHASHSEED, 0 unless set), and the first run of a tree after its code changed may
# count some 300M more at N=1 than the runs after it (session 27): run N=1 twice, take the second.
set -u
TREE=$(realpath "$1"); N=${2:-3}; FIRST=${3:-0}
cd "$TREE" && PYTHONHASHSEED=${PYTHONHASHSEED:-0} PYTHONPATH="$TREE" valgrind --tool=callgrind --callgrind-out-file=/dev/null \
  python tools/worker_games.py "$N" "$FIRST" 2>&1 | grep -E "Collected|games in"
