#!/usr/bin/env bash
# Fault matrix (issue 8): self-tests the fault proxy against a real server with raw fetch, then runs
# every fault case × server through the proxy in headless Chromium with the built pkg/, prints the
# table and writes docs/fault-matrix.md. Exits non-zero on any failed assertion.
#
#   bash tests/faults/run.sh [--small|--large] [matrix options: --kinds a,b --cases x,y --no-write --verbose]
#
# --small (default): 3 tasks per case on ts-sdk + rmcp3, under 3 minutes.
# --large: 30 tasks per case on every HTTP server kind that starts (ts-sdk, python-http, rmcp2, rmcp3).
# Needs: pkg/ (bash scripts/build.sh), tests/js node_modules (playwright-core), /usr/bin/chromium,
# the test servers (tests/servers/install.sh). Talks only to 127.0.0.1.
set -euo pipefail
cd "$(dirname "$0")/../.."
mode=small
for a in "$@"; do [ "$a" = "--large" ] && mode=large; done
if [ "$mode" = large ]; then budget=2700; kinds=ts-sdk,python-http; else budget=175; kinds=ts-sdk; fi

t0=$SECONDS
echo "== fault proxy self-test (raw fetch, $kinds)"
FAULT_KINDS=$kinds timeout 120 node --test --test-reporter=dot tests/faults/proxy.test.mjs
echo "== fault matrix ($mode)"
left=$((budget - (SECONDS - t0)))
timeout --kill-after=10 "$left" node tests/faults/matrix.mjs "$@"
