#!/usr/bin/env bash
# Builds the pmcp test server into the Rust test servers' target dir (shared with tests/servers/rust) and prints
# the binary path on stdout. Idempotent (about a second when nothing changed). Crate registry only, --locked.
#
#   tests/servers/pmcp/build.sh          SERVERS_TARGET_DIR=... overrides the target dir
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
target="${SERVERS_TARGET_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/mcp-task-client/servers-target}"
start=$(date +%s)
(cd "$here" && CARGO_TARGET_DIR="$target" nice -n 10 cargo build --release --locked --quiet)
took=$(( $(date +%s) - start ))
[ "$took" -gt 5 ] && printf '[pmcp server] built in %ss\n' "$took" >&2
path="$target/release/pmcp-server"
[ -x "$path" ] || { printf '[pmcp server] missing %s after build\n' "$path" >&2; exit 1; }
printf '%s\n' "$path"
