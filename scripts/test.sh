#!/usr/bin/env bash
# Runs every test: formatting, clippy (native + wasm32), native tests, the pkg build, wasm tests in Node
# and headless Chromium, JS-level tests in Node and a real page, the demo end-to-end test and the
# fault matrix (small batch). Exits non-zero if any stage fails; ends with one summary line.
set -uo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"
bash scripts/install.sh || { echo "install failed"; echo "summary: 0 passed, 1 failed"; exit 1; }

passed=0; failed=0; failed_names=()
stage() { # name, command...
  local name=$1; shift
  local t0=$SECONDS
  printf '\n\033[1m=== %s ===\033[0m\n' "$name"
  if "$@"; then passed=$((passed + 1)); printf '=== %s: ok (%ss)\n' "$name" $((SECONDS - t0))
  else failed=$((failed + 1)); failed_names+=("$name"); printf '=== %s: FAILED (%ss)\n' "$name" $((SECONDS - t0)); fi
}

stage "cargo fmt --check" cargo fmt --all -- --check
stage "clippy native" cargo clippy --all-targets --locked -- -D warnings
stage "clippy wasm32" cargo clippy --lib --target wasm32-unknown-unknown --locked -- -D warnings
stage "native tests" cargo test --locked
stage "simulated hour: 1,000 tasks (release, < 1 s)" cargo test --locked --release --lib engine::tests::hour -- --nocapture
stage "fuzz smoke (20k mutated inputs per decoder)" cargo run --quiet --locked --example fuzz_smoke -- 20000
stage "build pkg" bash scripts/build.sh
stage "wasm + JS tests (Node, Chromium)" bash scripts/test-js.sh
[ -f tests/tabs/tabs.test.mjs ] && stage "tabs + persistence (Chromium)" node --test tests/tabs/
[ -f tests/e2e/demo.test.mjs ] && stage "demo end-to-end (Chromium)" node --test tests/e2e/
[ -f tests/faults/run.sh ] && stage "fault matrix (small batch)" bash tests/faults/run.sh --small

echo
if [ "$failed" -gt 0 ]; then echo "failed stages: ${failed_names[*]}"; fi
echo "summary: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
