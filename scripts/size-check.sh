#!/usr/bin/env bash
# Fails when the npm package's gzipped size (wasm + JS glue, as scripts/build.sh prints it) exceeds
# the budget in the file size-budget. Builds pkg/ first (a no-op when it is up to date).
set -euo pipefail
cd "$(dirname "$0")/.."
BUDGET=$(grep -oE '^[0-9]+' size-budget | head -1)
TOTAL=$(bash scripts/build.sh | tee /dev/stderr | awk '/^gzipped size/{print $(NF-1)}')
[ -n "$TOTAL" ] || { echo "size check: scripts/build.sh printed no gzipped size" >&2; exit 1; }
if [ "$TOTAL" -gt "$BUDGET" ]; then
  echo "size check: $TOTAL B gz exceeds the budget of $BUDGET B (size-budget); shrink the package or, with a reason in the commit, raise the budget" >&2
  exit 1
fi
echo "size check: $TOTAL B gz within the budget of $BUDGET B ($((BUDGET - TOTAL)) B to spare)"
