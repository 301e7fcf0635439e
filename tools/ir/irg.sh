#!/bin/bash
# tools/ir/irg.sh SRC_DIR SEED [REF] [AGENT]: the instructions of one 10-round game's play (valgrind's
# cachegrind, PYTHONHASHSEED=0): a process that loads and plays it minus one that loads and plays 0
# rounds, with the tree SRC_DIR on PYTHONPATH and the interpreter of $VENV (default: python3 on PATH).
# Instruction counts do not move with the machine's load, seconds do; but the difference of two
# processes moves by up to a few hundred M between runs (the cache, the garbage collector): give
# each side its own RULESLANG_CACHE_DIR, run each twice, and judge small changes with the collector off.
set -u
SRC=$1; SEED=$2; REF=${3:-aar/house-rules@1}; AGENT=${4:-heuristic}
PY=${VENV:+$VENV/bin/python}; PY=${PY:-python3}
HERE=$(cd "$(dirname "$0")" && pwd)
cd "$SRC"
unset PYTHONDONTWRITEBYTECODE
$PY -m compileall -q ruleslang benchmarks >/dev/null 2>&1
ir() { PYTHONHASHSEED=0 PYTHONPATH=$SRC valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file=/dev/null \
       $PY "$HERE/game.py" "$SEED" "$1" "$REF" "$AGENT" 2>&1 | grep "I *refs" | tr -d ',' | awk '{print $NF}'; }
full=$(ir 10); zero=$(ir 0)
echo "seed $SEED: play $(( (full - zero) / 1000000 ))M instructions (process $((full / 1000000))M, loading $((zero / 1000000))M)"
