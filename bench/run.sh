#!/usr/bin/env bash
# Side-by-side benchmarks: our pkg/ vs the official TypeScript requester stacks (not part of the test suite).
#   bash bench/run.sh            full run (≈ 18 min on 2 cores), writes bench/results/latest.md
#   bash bench/run.sh --quick    smaller sizes and single repeats (a smoke run, ~2.5 min)
#   bash bench/run.sh --only=bundle,counts,latency,long,real,blocking,node-tp,page,chromium,tabs (scale: only
#     the 10,000-task part of chromium); --stacks=ours or --stacks=ours:legacy,ext:modern: only those
# Needs: Node >= 20, /usr/bin/chromium, pkg/ (bash scripts/build.sh; without it every `ours` cell is n/a),
# and for the `real` section the tests/servers kinds (bash tests/servers/install.sh).
set -euo pipefail
cd "$(dirname "$0")"
if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  npm ci --no-audit --no-fund --loglevel=error
fi
[ -x /usr/bin/chromium ] || { echo "bench: /usr/bin/chromium missing (apt-get install -y chromium)" >&2; exit 1; }
[ -f ../pkg/mcp_task_client_bg.wasm ] || echo "bench: pkg/ not built (bash scripts/build.sh): ours will be n/a" >&2
exec node run.mjs "$@"
