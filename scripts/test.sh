#!/usr/bin/env bash
# Runs every test: formatting, clippy (native + wasm32), native tests, the pkg build, wasm tests in Node
# and headless Chromium, JS-level tests in Node and a real page, tab coordination, the demo end-to-end
# test, the fault matrix (small batch, and the large batch of its core cases; the full large batch is a
# release check: bash tests/faults/run.sh --large), the interop matrix (every server kind × Node and Chromium,
# default options; it writes docs/interop.md) and the official MCP conformance suite (client scenarios).
# Exits non-zero if any stage fails; ends with one summary line.
#
# The compile-bound stages run one after another; the browser and server stages, which mostly wait on
# task timers, then run side by side (TEST_JOBS at once, default 1: side by side on 2 cores their timing checks flaked; TEST_JOBS=3 for a quicker local run).
# Each of those writes to its own log, printed whole when it ends.
set -uo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"
bash scripts/install.sh || { echo "install failed"; echo "summary: 0 passed, 1 failed"; exit 1; }
T0=$SECONDS

passed=0; failed=0; failed_names=()
record() { # name, seconds, exit code
  if [ "$3" -eq 0 ]; then passed=$((passed + 1)); printf '=== %s: ok (%ss)\n' "$1" "$2"
  else failed=$((failed + 1)); failed_names+=("$1"); printf '=== %s: FAILED (%ss)\n' "$1" "$2"; fi
}
stage() { # name, command...
  local name=$1; shift
  local t0=$SECONDS
  printf '\n\033[1m=== %s ===\033[0m\n' "$name"
  "$@"
  record "$name" $((SECONDS - t0)) $?
}

stage "cargo fmt --check" cargo fmt --all -- --check
stage "clippy native" cargo clippy --all-targets --features fuzzing --locked -- -D warnings
stage "clippy wasm32" cargo clippy --lib --target wasm32-unknown-unknown --locked -- -D warnings
stage "clippy wasm32 core" cargo clippy --lib --target wasm32-unknown-unknown --no-default-features --locked -- -D warnings
stage "clippy native core" cargo clippy --all-targets --no-default-features --locked -- -D warnings
stage "native tests" cargo test --locked
# The core build's engine and protocol (no receiver, no draft dialect) natively: the library tests
# but coord's (the core build has no tabs, so no coord).
stage "native tests, core features" cargo test --locked --lib --no-default-features -- --skip coord::
stage "simulated hour: 1,000 tasks (release, ≥ 1,000× real time)" cargo test --locked --release --lib engine::tests::scale::hour -- --nocapture
stage "fuzz smoke (20k mutated inputs per decoder)" cargo run --quiet --locked --features fuzzing --example fuzz_smoke -- 20000
stage "build pkg, size budget (file size-budget)" bash scripts/size-check.sh
stage "build wasm test binaries" cargo test --locked --target wasm32-unknown-unknown --test wasm_driver --test wasm_wire --no-run

# Side by side, longest first (the large fault batch after the small one has started alone: the small
# batch has a hard time budget). Each entry: name|command (run by bash -c, bounded by `timeout`).
side=(
  "fault matrix (small batch)|bash tests/faults/run.sh --small --no-write"
  "tabs: failover (Chromium)|node --test tests/tabs/failover.test.mjs"
  "tabs: one poller (Chromium)|node --test tests/tabs/polling.test.mjs"
  "fault matrix (large batch, core cases × 4 servers)|bash tests/faults/run.sh --large-core --no-write"
  "JS in Node|bash scripts/test-js.sh node"
  "demo end-to-end (Chromium)|node --test tests/e2e/"
  "wasm in Node, Chromium, worker|bash scripts/test-js.sh wasm"
  "tabs: persistence, resume (Chromium)|node --test tests/tabs/persistence.test.mjs"
  "processes on Redis: 3 Node processes × 50 tasks, SIGKILL, SIGSTOP, Redis restarted, leader cut off|node --test tests/redis/"
  "tabs: one OAuth refresh across tabs, rotating refresh tokens (Chromium)|node --test tests/tabs/oauth-refresh.test.mjs"
  "JS in a Chromium page + Electron example (main in Node, renderer as file://)|bash scripts/test-js.sh browser"
  "npm pack → publint + attw, Node 20, Vite page, React (StrictMode)|bash scripts/test-js.sh pack"
  "docs: code blocks type-checked (TypeScript 5.9 + 7), runnable ones run in Node|bash scripts/test-js.sh docs"
  "interop matrix: every server kind × Node, Chromium × 8 scenarios, default options (writes docs/interop.md)|node --experimental-websocket --test tests/interop/ && node --experimental-websocket tests/interop/matrix.mjs"
  "MCP conformance suites 0.1.16 + 0.2.0-alpha.12, client mode (Node 22)|bash tests/conformance/run.sh"
)
jobs_max=${TEST_JOBS:-1}
logs=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$logs"' EXIT
declare -A started=()
shown=()
tails=() # side stages that failed: their logs' ends are shown again next to the summary
running() { jobs -rp | wc -l; }
show_finished() { # prints every side stage that has ended and was not shown yet
  local i
  for i in "${!side[@]}"; do
    [ -f "$logs/$i.rc" ] || continue
    [[ " ${shown[*]} " == *" $i "* ]] && continue
    shown+=("$i")
    printf '\n\033[1m=== %s ===\033[0m\n' "${side[$i]%%|*}"
    cat "$logs/$i.log"
    [ "$(cat "$logs/$i.rc")" -eq 0 ] || tails+=("$i")
    record "${side[$i]%%|*}" $(($(cat "$logs/$i.end") - started[$i])) "$(cat "$logs/$i.rc")"
  done
}
printf '\n\033[1m=== %s stages side by side (%s at once) ===\033[0m\n' "${#side[@]}" "$jobs_max"
for i in "${!side[@]}"; do
  while [ "$(running)" -ge "$jobs_max" ]; do wait -n; show_finished; done
  started[$i]=$SECONDS
  ( timeout --kill-after=10 900 bash -c "${side[$i]#*|}" > "$logs/$i.log" 2>&1; rc=$?
    echo $SECONDS > "$logs/$i.end"; echo $rc > "$logs/$i.rc" ) &
done
while [ "$(running)" -gt 0 ]; do wait -n; show_finished; done
show_finished

for i in "${tails[@]}"; do
  printf '\n--- the end of "%s" again ---\n' "${side[$i]%%|*}"
  tr -d '\000' < "$logs/$i.log" | tr '\r' '\n' | grep -a -v '^\s*$' | tail -n 40
done
echo
[ "$failed" -gt 0 ] && echo "failed stages: ${failed_names[*]}"
echo "test time after install: $((SECONDS - T0)) s"
echo "summary: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
