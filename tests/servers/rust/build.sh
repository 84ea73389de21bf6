#!/usr/bin/env bash
# Builds the rmcp test servers (rmcp2-server on rmcp 2.0.0, rmcp3-server on rmcp 3.11.0) into a cargo
# target dir outside the repo and prints the two binary paths, one per line, on stdout.
# Idempotent: when nothing changed cargo only checks freshness (about a second).
#
#   tests/servers/rust/build.sh
#   SERVERS_TARGET_DIR=...  overrides the target dir (default ~/.cache/mcp-task-client/servers-target)
#
# Cold build: ~5-7 min on 2 cores. Uses the crate registry only (Cargo.lock is committed; --locked).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
target="${SERVERS_TARGET_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/mcp-task-client/servers-target}"
bins=(rmcp2-server rmcp3-server)

start=$(date +%s)
(cd "$here" && CARGO_TARGET_DIR="$target" nice -n 10 cargo build --release --locked --quiet)
took=$(( $(date +%s) - start ))
[ "$took" -gt 5 ] && printf '[rust servers] built in %ss\n' "$took" >&2

for b in "${bins[@]}"; do
  path="$target/release/$b"
  if [ ! -x "$path" ]; then
    printf '[rust servers] missing %s after build\n' "$path" >&2
    exit 1
  fi
  printf '%s\n' "$path"
done
