#!/usr/bin/env bash
# The main job: builds pkg/, starts a real MCP task server (TS SDK 1.32.2) and serves the www/ dashboard
# on 127.0.0.1, printing its URL. Ctrl-C stops everything.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install.sh --demo
bash scripts/build.sh
exec node scripts/demo.mjs "$@"
