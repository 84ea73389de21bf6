#!/usr/bin/env bash
# Every wasm-level and JS-level test of the driver and the JS face, against real servers on 127.0.0.1:
#   wasm-bindgen-test (tests/wasm_driver.rs) in Node, headless Chromium and a dedicated worker, and
#   tests/wasm_wire.rs (JSON read in Rust with the host's numbers, the JS conversions) in Node;
#   the built pkg/ in Node (tests/js/node: ts-sdk, python-http, python-ws via `ws`, rmcp2, rmcp3,
#   package shape, strict TypeScript consumer test + the dashboard's @ts-check, wire behaviour through
#   the fault proxy);
#   the built pkg/ in a real page in headless Chromium (tests/js/browser, playwright-core), and the
#   Electron example (main process in Node, renderer as a file:// page and on an opaque origin);
#   the npm tarball (tests/js/pack): publint, arethetypeswrong, Node 20, a Vite page, React under
#   StrictMode bundled by esbuild;
#   the docs' code (tests/js/docs): every ts/tsx/js block of the READMEs and docs/ type-checked
#   against pkg/ (strict, lib ES2023 + DOM, TypeScript 5.9 and 7), the runnable ones run in Node.
#
#   bash scripts/test-js.sh [wasm] [node] [browser] [pack] [docs]     (no argument = all five groups)
#   bash scripts/test-js.sh wasm-worker                                (one wasm stage: wasm-node, wasm-page,
#                                                                       wasm-worker or wasm-json)
#
# Builds pkg/ first when it is missing. Exits non-zero if any stage fails.
set -uo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"
log() { printf '\033[1m[test-js]\033[0m %s\n' "$*"; }

[ -f pkg/mcp_task_client_bg.wasm ] || bash scripts/build.sh || exit 1
if [ ! -d tests/js/node_modules ]; then (cd tests/js && npm ci --no-audit --no-fund --loglevel=error) || exit 1; fi

groups=" ${*:-wasm node browser pack docs} "
# `wasm` is its four stages; `wasm-node`, `wasm-page`, `wasm-worker` or `wasm-json` runs one of them.
want() { [[ $groups == *" $1 "* || ($1 == wasm-* && $groups == *" wasm "*) ]]; }

passed=0; failed=0; failed_names=()
stage() { # name, command...
  local name=$1; shift
  local t0=$SECONDS
  log "== $name"
  if "$@"; then passed=$((passed + 1)); log "== $name: ok ($((SECONDS - t0)) s)"
  else failed=$((failed + 1)); failed_names+=("$name"); log "== $name: FAILED ($((SECONDS - t0)) s)"; fi
}

# The wasm-bindgen runner serves the Chromium runs from a small server whose four threads are each held by
# an open connection; when a page or worker opens more connections at once than it has idle threads, one
# request can stay unanswered and the run never reports. Loading the test binary's JS opens one connection
# per module its glue imports, so that count is checked first (a binary over the limit fails here, named,
# instead of hanging), and each Chromium run is a single bounded attempt.
max_modules=3
modules_within_limit() { # cargo test arguments...
  local wasm glue n
  wasm=$(cargo test "$@" --no-run --message-format=json | sed -n 's/.*"executable":"\([^"]*\.wasm\)".*/\1/p') || return 1
  [ -n "$wasm" ] || { echo "no test binary built" >&2; return 1; }
  glue=$(mktemp -d)
  wasm-bindgen --target web --out-dir "$glue" "$wasm" || { rm -rf "$glue"; return 1; }
  n=$(grep -ho "^import .* from '\./snippets/[^']*'" "$glue"/*.js | sed "s/.* from //" | sort -u | wc -l)
  rm -rf "$glue"
  echo "$n JS modules imported by the test binary's glue (at most $max_modules)"
  [ "$n" -le "$max_modules" ] || { echo "too many to load at once: make test-only JS at run time, not as a module" >&2; return 1; }
}

wasm_tests() {
  # Servers for the wasm tests (they cannot spawn processes): URLs are baked in at compile time.
  tmp=$(mktemp -d)
  node tests/js/serve.mjs ts-sdk python-ws > "$tmp/serve.out" 2> "$tmp/serve.err" &
  serve_pid=$!
  trap 'kill $serve_pid 2>/dev/null; wait $serve_pid 2>/dev/null; rm -rf "$tmp"' EXIT
  for _ in $(seq 1 300); do grep -q '^READY' "$tmp/serve.out" && break; kill -0 $serve_pid 2>/dev/null || break; sleep 0.2; done
  if ! grep -q '^READY' "$tmp/serve.out"; then
    cat "$tmp/serve.err" >&2; echo "test servers did not start" >&2
    failed=$((failed + 1)); failed_names+=("wasm test servers"); return
  fi
  MCP_TEST_HTTP_URL=$(awk '$1=="ts-sdk"{print $2}' "$tmp/serve.out")
  MCP_TEST_WS_URL=$(awk '$1=="python-ws"{print $2}' "$tmp/serve.out")
  MCP_TEST_CLOSED_PORT=$(awk '$1=="closed-port"{print $2}' "$tmp/serve.out")
  export MCP_TEST_HTTP_URL MCP_TEST_WS_URL MCP_TEST_CLOSED_PORT
  export CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUNNER=wasm-bindgen-test-runner
  export CHROMEDRIVER=${CHROMEDRIVER:-/usr/bin/chromedriver}
  local args="--target wasm32-unknown-unknown --test wasm_driver"
  want wasm-node && stage "wasm (Node, global WebSocket via --experimental-websocket)" \
    env NODE_ARGS=--experimental-websocket cargo test $args
  if want wasm-page || want wasm-worker; then
    stage "wasm in Chromium: the test binary loads in few enough modules" modules_within_limit $args
  fi
  want wasm-page && stage "wasm (headless Chromium)" \
    env WASM_BINDGEN_USE_BROWSER=1 timeout 120 cargo test $args
  want wasm-worker && stage "wasm (Chromium dedicated worker)" \
    env WASM_BINDGEN_USE_DEDICATED_WORKER=1 timeout 120 cargo test $args
  want wasm-json && stage "wasm JSON: the reader, exact ids, the JS conversions (Node)" \
    cargo test --target wasm32-unknown-unknown --test wasm_wire
}

[[ $groups == *" wasm"* ]] && wasm_tests
want node && stage "JS in Node (pkg/ against ts-sdk, python-http, python-ws, rmcp2, rmcp3)" \
  bash -c 'cd tests/js && timeout 900 node --test --test-concurrency=3 node/*.test.mjs'
want browser && stage "JS in a Chromium page (pkg/ against ts-sdk, python-http, python-ws, rmcp2, rmcp3; strict CORS; Electron example)" \
  bash -c 'cd tests/js && timeout 600 node --test browser/*.test.mjs'
want docs && stage "docs: every code block type-checked (TypeScript 5.9 + 7, lib ES2023 + DOM), runnable blocks run in Node" \
  bash -c 'cd tests/js && timeout 300 node --test docs/*.test.mjs'
want pack && stage "npm pack → publint + attw, scratch project: Node 20 import, Vite-built page, React (StrictMode)" \
  bash -c 'cd tests/js && timeout 300 node --test pack/*.test.mjs'

[ "$failed" -gt 0 ] && log "failed stages: ${failed_names[*]}"
echo "test-js: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
