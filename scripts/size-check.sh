#!/usr/bin/env bash
# Fails when a piece's gzipped size (wasm + JS glue, as scripts/build.sh measures it into
# docs/sizes.json) exceeds its budget in the file size-budget (lines "<bytes> <piece>"), when a
# README's stated size disagrees with docs/sizes.json, or when a build links Rust's formatting
# machinery. Builds pkg/ first (a no-op when it is up to date).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh >&2
SIZES=docs/sizes.json
size() { grep -oE "\"$1\": [0-9]+" "$SIZES" | grep -oE '[0-9]+$' || true; }
fail=0
for piece in initial full core; do
  BUDGET=$(awk -v b="$piece" '$2 == b && $1 ~ /^[0-9]+$/ {print $1; exit}' size-budget)
  TOTAL=$(size "$piece")
  [ -n "$BUDGET" ] || { echo "size check: size-budget has no line for $piece" >&2; exit 1; }
  [ -n "$TOTAL" ] || { echo "size check: $SIZES has no size for $piece" >&2; exit 1; }
  if [ "$TOTAL" -gt "$BUDGET" ]; then
    echo "size check: $piece $TOTAL B gz exceeds its budget of $BUDGET B (size-budget); shrink it or, with a reason in the commit, raise the budget" >&2
    fail=1
  else
    echo "size check: $piece $TOTAL B gz within its budget of $BUDGET B ($((BUDGET - TOTAL)) B to spare)"
  fi
done

# The READMEs state sizes in KB (1,000 B), each after its phrase ("<phrase> ≈ N KB", line breaks
# read as spaces): each must match docs/sizes.json (±1 KB).
while IFS='|' read -r file key phrase; do
  B=$(size "$key")
  KB=$(tr '\n' ' ' < "$file" | tr -s ' ' | grep -oE "${phrase}[ (]*≈ [0-9]+ KB" | grep -oE '[0-9]+ KB$' | grep -oE '[0-9]+' | head -1 || true)
  if [ -z "$KB" ] || [ -z "$B" ] || [ $((KB * 1000 - B)) -gt 1000 ] || [ $((B - KB * 1000)) -gt 1000 ]; then
    echo "size check: $file says \"$phrase ≈ ${KB:-?} KB\", $SIZES says $key is ${B:-?} B: write ≈ $(((${B:-0} + 500) / 1000)) KB" >&2
    fail=1
  fi
done <<'EOF'
src/js/npm/README.md|initial|With default options the page fetches
src/js/npm/README.md|full|fetches the full build alone
src/js/npm/README.md|fullAdded|the full build adds
src/js/npm/README.md|core|`mcp-task-client/core`
README.md|initial|with default options a page fetches
README.md|full|load the full build
README.md|core|`mcp-task-client/core` is
EOF

# Neither build links Rust's formatting machinery (core::fmt: `fmt::write`, `Formatter::pad`, the
# `Display` impls, an `Arguments` built at each call; ~1 KB gz with the messages kept): messages are
# joined from parts (`[..].concat()`, numbers through `json::digits`). Checked in cargo's output,
# a superset of what ships, whose name section spells every function's mangled path
# (`…4core3fmt…`; `core..fmt` in legacy mangling). To see who calls one with readable names:
# `wasm-bindgen --keep-debug`, then `wasm-opt -g` and `wasm-dis` on its output.
TARGET_DIR=${CARGO_TARGET_DIR:-$PWD/target}
for build in full base core; do
  RAW=$TARGET_DIR/pkg-raw/$build.wasm
  if ! grep -aq 15mcp_task_client "$RAW"; then
    echo "fmt check: $RAW has no function names to check" >&2
    fail=1
    continue
  fi
  FMT=$(grep -aoE '(_R|_ZN)[_A-Za-z0-9$.]*(4core3fmt|5alloc3fmt|core\.\.fmt|alloc\.\.fmt)[_A-Za-z0-9$.]*' "$RAW" | sort -u || true)
  if [ -n "$FMT" ]; then
    echo "fmt check: the $build build links core::fmt (format!, write!, {:?}, to_string() on a number or another Display type); join the parts with [..].concat() and json::digits instead. Its functions:" >&2
    echo "$FMT" >&2
    fail=1
  else
    echo "fmt check: the $build build links no core::fmt"
  fi
done
exit $fail
