#!/bin/bash
# tools/cmp_logs.sh BASEDIR NEWDIR [RULESLANG]: play the seeded games of tools/gen_logs.sh into NEWDIR
# and compare each file with BASEDIR's (made by gen_logs.sh from the code before a change): one
# line a file, `same` or `DIFF`. A change meant to keep play must leave every line `same`.
set -u
BASE=$1; NEW=$2; R=${3:-ruleslang}
rm -rf "$NEW"
"$(dirname "$0")/gen_logs.sh" "$NEW" "$R"
for f in "$BASE"/*; do
  b=$(basename "$f")
  if cmp -s "$f" "$NEW/$b"; then echo "same $b"; else echo "DIFF $b"; fi
done
