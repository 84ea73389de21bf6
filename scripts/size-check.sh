#!/usr/bin/env bash
# Fails when a build's gzipped size (wasm + JS glue, as scripts/build.sh prints it) exceeds its
# budget in the file size-budget (lines "<bytes> <build>"), or links Rust's formatting machinery.
# Builds pkg/ first (a no-op when it is up to date).
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
  # The package README states each build's size in KB (1,000 B): it must match the build (±1 KB).
  case $build in
    full) said='is the full build \(≈ [0-9]+ KB' ;;
    core) said='`mcp-task-client/core` \(≈ [0-9]+ KB' ;;
  esac
  KB=$(grep -oE "$said" src/js/npm/README.md | grep -oE '[0-9]+' | tail -1 || true)
  if [ -z "$KB" ] || [ $((KB * 1000 - TOTAL)) -gt 1000 ] || [ $((TOTAL - KB * 1000)) -gt 1000 ]; then
    echo "size check: src/js/npm/README.md says the $build build is ≈ ${KB:-?} KB gzipped, the build is $TOTAL B: write ≈ $(((TOTAL + 500) / 1000)) KB" >&2
    fail=1
  fi
done

# Neither build links Rust's formatting machinery (core::fmt: `fmt::write`, `Formatter::pad`, the
# `Display` impls, an `Arguments` built at each call; ~1 KB gz with the messages kept): messages are
# joined from parts (`[..].concat()`, numbers through `json::digits`). Checked in cargo's output,
# a superset of what ships, whose name section spells every function's mangled path
# (`…4core3fmt…`; `core..fmt` in legacy mangling). To see who calls one with readable names:
# `wasm-bindgen --keep-debug`, then `wasm-opt -g` and `wasm-dis` on its output.
TARGET_DIR=${CARGO_TARGET_DIR:-$PWD/target}
for build in full core; do
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
