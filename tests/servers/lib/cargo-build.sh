#!/usr/bin/env bash
# Builds one of the Rust library test servers (a cargo workspace of its own under tests/servers/<part>, with its
# own Cargo.lock) into the Rust test servers' shared target dir, and prints the binary path on stdout.
# Idempotent (about a second when nothing changed). Crate registry only, --locked.
#
#   tests/servers/lib/cargo-build.sh <part> <binary>      e.g. pmcp pmcp-server
#   SERVERS_TARGET_DIR=... overrides the target dir (default ~/.cache/mcp-task-client/servers-target)
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
part="$1" bin="$2"
target="${SERVERS_TARGET_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/mcp-task-client/servers-target}"
start=$(date +%s)
(cd "$here/$part" && CARGO_TARGET_DIR="$target" nice -n 10 cargo build --release --locked --quiet)
took=$(( $(date +%s) - start ))
[ "$took" -gt 5 ] && printf '[%s server] built in %ss\n' "$part" "$took" >&2
path="$target/release/$bin"
[ -x "$path" ] || { printf '[%s server] missing %s after build\n' "$part" "$path" >&2; exit 1; }
printf '%s\n' "$path"
