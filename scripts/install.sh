#!/usr/bin/env bash
# Brings whatever is missing on a fresh machine of this kind; a quick no-op when all is present.
# Used by both README commands. Idempotent. `--demo`: only what scripts/demo.sh uses (the build
# tools and the TS SDK task server), not the browsers, suites and other test servers of the tests.
set -euo pipefail
DEMO=0; [ "${1:-}" = "--demo" ] && DEMO=1
cd "$(dirname "$0")/.."
ROOT=$PWD
log() { printf '\033[1m[install]\033[0m %s\n' "$*"; }
export PATH="$HOME/.cargo/bin:$PATH"

# Rust: the toolchain rust-toolchain.toml pins (with its components and the wasm32 target)
rustup toolchain install >/dev/null
if ! rustup target list --installed | grep -qx wasm32-unknown-unknown; then
  log "adding the wasm32-unknown-unknown target"; rustup target add wasm32-unknown-unknown
fi
for c in rustfmt clippy rust-src; do # rust-src: std rebuilt for size in scripts/build.sh
  rustup component list --installed | grep -q "^$c" || rustup component add "$c"
done

# wasm-bindgen-cli at exactly the version in Cargo.lock
WB_VERSION=$(awk '/^name = "wasm-bindgen"$/{getline; gsub(/version = |"/,""); print; exit}' Cargo.lock)
if [ "$(wasm-bindgen --version 2>/dev/null | awk '{print $2}')" != "$WB_VERSION" ]; then
  log "installing wasm-bindgen-cli $WB_VERSION (takes minutes on a cold machine)"
  cargo install wasm-bindgen-cli --version "$WB_VERSION" --locked \
    || cargo install wasm-bindgen-cli --version "$WB_VERSION" --force
fi

# Chromium + driver from Debian (never a browser download)
if [ "$DEMO" = 0 ] && { [ ! -x /usr/bin/chromium ] || [ ! -x /usr/bin/chromedriver ]; }; then
  log "installing chromium + chromium-driver"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq && apt-get install -y -qq chromium chromium-driver >/dev/null
fi

# redis-server from Debian (the multi-process tests start their own, on a free port)
if [ "$DEMO" = 0 ] && ! command -v redis-server >/dev/null; then
  log "installing redis-server"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq && apt-get install -y -qq redis-server >/dev/null
fi

# nginx (a local TLS + HTTP/2 front the link tests start on their own port) and Firefox ESR (the link
# test's second browser, driven over WebDriver BiDi) from Debian
if [ "$DEMO" = 0 ] && { [ ! -x /usr/sbin/nginx ] || [ ! -x /usr/bin/firefox-esr ]; }; then
  log "installing nginx + firefox-esr"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq && apt-get install -y -qq nginx firefox-esr >/dev/null
fi

# npm packages (repo-local, from the committed locks)
npm_ci() { # dir
  local dir=$1
  [ -f "$dir/package-lock.json" ] || return 0
  if [ ! -d "$dir/node_modules" ] || [ "$dir/package-lock.json" -nt "$dir/node_modules/.package-lock.json" ]; then
    log "npm ci in $dir"; (cd "$dir" && npm ci --no-audit --no-fund --loglevel=error)
  fi
}
if [ "$DEMO" = 1 ]; then
  npm_ci scripts/tools
  bash tests/servers/install.sh ts-sdk
  log "all present (demo)"
  exit 0
fi
for d in scripts/tools tests/js tests/redis tests/servers/ts-sdk tests/conformance; do npm_ci "$d"; done

# Test servers: Python venvs, npm servers and the Rust builds
[ -f tests/servers/install.sh ] && bash tests/servers/install.sh
log "all present"
