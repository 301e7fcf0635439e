#!/bin/bash
# tools/gen_logs.sh OUTDIR [RULESLANG]: play the 9 seeded games whose logs a speed change must leave
# byte for byte the same (Revised base and house rules, random and heuristic; victory cities;
# infrastructure defense; AA50 and Global 1940 house rules) and write their logs and outputs to
# OUTDIR. RULESLANG: the command to run (default: ruleslang on PATH). Two games at a time.
set -u
OUT=$1; R=${2:-ruleslang}
mkdir -p "$OUT"
# name, ruleset, agent, seed, rounds
GAMES="aar-base-random aar/base@1 random 3 10
aar-hr-random aar/house-rules@1 random 5 10
aar-hr-heur1 aar/house-rules@1 heuristic 1 10
aar-hr-heur2 aar/house-rules@1 heuristic 2 10
aar-vc-heur aar/victory-cities@2 heuristic 4 8
aar-infra-heur aar/infrastructure-defense@1 heuristic 6 8
aa50-hr-heur aa50/house-rules@1 heuristic 2 6
g40-hr-heur g40/house-rules@1 heuristic 2 4
g40-hr-random g40/house-rules@1 random 9 10"
running=0
while read -r name ref agent seed rounds; do
  $R play --quiet --no-cache --ruleset "$ref" --agent "$agent" --seed "$seed" --rounds "$rounds" \
     --log "$OUT/$name.log" > "$OUT/$name.out" 2>&1 &
  running=$((running + 1))
  if [ $running -eq 2 ]; then wait; running=0; fi
done <<< "$GAMES"
wait
