#!/bin/bash
# tools/gen_logs.sh OUTDIR [RULESLANG]: play the 9 seeded games whose logs a speed change must leave
# byte for byte the same (Revised base and house rules, random and heuristic; victory cities;
# infrastructure defense; AA50 and Global 1940 house rules) and write their logs and outputs to
# OUTDIR. RULESLANG: the command to run (default: ruleslang on PATH). Two games at a time.
set -u
OUT=$1; R=${2:-ruleslang}
mkdir -p "$OUT"
run() { name=$1; shift; $R play --quiet --no-cache "$@" --log "$OUT/$name.log" > "$OUT/$name.out" 2>&1 & }
run aar-base-random --ruleset aar/base@1 --agent random --seed 3 --rounds 10
run aar-hr-random --ruleset aar/house-rules@1 --agent random --seed 5 --rounds 10
wait
run aar-hr-heur1 --ruleset aar/house-rules@1 --agent heuristic --seed 1 --rounds 10
run aar-hr-heur2 --ruleset aar/house-rules@1 --agent heuristic --seed 2 --rounds 10
wait
run aar-vc-heur --ruleset aar/victory-cities@2 --agent heuristic --seed 4 --rounds 8
run aar-infra-heur --ruleset aar/infrastructure-defense@1 --agent heuristic --seed 6 --rounds 8
wait
run aa50-hr-heur --ruleset aa50/house-rules@1 --agent heuristic --seed 2 --rounds 6
run g40-hr-heur --ruleset g40/house-rules@1 --agent heuristic --seed 2 --rounds 4
wait
run g40-hr-random --ruleset g40/house-rules@1 --agent random --seed 9 --rounds 10
wait
