#!/usr/bin/env bash
# Fails when a build's gzipped size (wasm + JS glue, as scripts/build.sh prints it) exceeds its
# budget in the file size-budget (lines "<bytes> <build>"). Builds pkg/ first (a no-op when it is
# up to date).
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=$(bash scripts/build.sh | tee /dev/stderr)
fail=0
for build in full core; do
  BUDGET=$(awk -v b="$build" '$2 == b && $1 ~ /^[0-9]+$/ {print $1; exit}' size-budget)
  TOTAL=$(awk -v b="$build" '/^gzipped size/ && $3 == b {print $(NF-1)}' <<<"$OUT")
  [ -n "$BUDGET" ] || { echo "size check: size-budget has no line for the $build build" >&2; exit 1; }
  [ -n "$TOTAL" ] || { echo "size check: scripts/build.sh printed no gzipped size for the $build build" >&2; exit 1; }
  if [ "$TOTAL" -gt "$BUDGET" ]; then
    echo "size check: $build build $TOTAL B gz exceeds its budget of $BUDGET B (size-budget); shrink it or, with a reason in the commit, raise the budget" >&2
    fail=1
  else
    echo "size check: $build build $TOTAL B gz within its budget of $BUDGET B ($((BUDGET - TOTAL)) B to spare)"
  fi
done
exit $fail
