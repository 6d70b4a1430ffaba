#!/usr/bin/env bash
# Fail unless R CMD check ended with Status: OK (no errors, warnings or
# notes), and print the test counts as a plain "N passed, N failed" line.
set -euo pipefail
dir=${1:-modelprofiles.Rcheck}
status=$(grep -E '^Status:' "$dir/00check.log" | tail -n 1)
echo "R CMD check $status"
counts=$(grep -hoE '\[ FAIL [0-9]+ \| WARN [0-9]+ \| SKIP [0-9]+ \| PASS [0-9]+ \]' "$dir"/tests/testthat.Rout* | tail -n 1 || true)
if [ -n "$counts" ]; then
  read -r fail warn skip pass < <(echo "$counts" | sed -E 's/\[ FAIL ([0-9]+) \| WARN ([0-9]+) \| SKIP ([0-9]+) \| PASS ([0-9]+) \]/\1 \2 \3 \4/')
  echo "tests: $pass passed, $fail failed, $skip skipped"
fi
case "$status" in
  "Status: OK") exit 0 ;;
  *) echo "R CMD check is not clean: see $dir/00check.log"; exit 1 ;;
esac
