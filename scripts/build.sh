#!/usr/bin/env bash
# Builds the npm package into pkg/: cargo (wasm32, release) → wasm-bindgen (--target web) →
# wasm-opt -Os --converge (npm binaryen 132 from scripts/tools; never Debian's) → the hand-written
# entry points and package.json from src/js/npm. Prints the gzipped size of the wasm and the JS glue.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
export PATH="$HOME/.cargo/bin:$PATH"
TARGET_DIR=${CARGO_TARGET_DIR:-$ROOT/target}
PKG=$ROOT/pkg
NAME=mcp_task_client
log() { printf '\033[1m[build]\033[0m %s\n' "$*"; }

WASM_OPT=$ROOT/scripts/tools/node_modules/.bin/wasm-opt
if [ ! -x "$WASM_OPT" ]; then
  log "installing binaryen (npm) into scripts/tools"
  (cd scripts/tools && npm ci --no-audit --no-fund --loglevel=error)
fi
"$WASM_OPT" --version | grep -q 'version 132' || { echo "wasm-opt is not binaryen 132" >&2; exit 1; }

log "cargo build --release --target wasm32-unknown-unknown"
cargo build --release --target wasm32-unknown-unknown --lib
RAW=$TARGET_DIR/wasm32-unknown-unknown/release/$NAME.wasm

# wasm-bindgen → wasm-opt → entry points, types and package.json into pkg/.
package() {
  log "wasm-bindgen --target web"
  rm -rf "$PKG"
  wasm-bindgen --target web --out-dir "$PKG" --out-name "$NAME" "$RAW"

  # -Os --converge: the smallest gzipped module of the flags measured (-Oz alone: ~1 KB more gz,
  # though ~6 KB fewer raw bytes; what is shipped is gzipped).
  log "wasm-opt -Os --converge"
  "$WASM_OPT" -Os --converge "$PKG/${NAME}_bg.wasm" -o "$PKG/${NAME}_bg.opt.wasm"
  mv "$PKG/${NAME}_bg.opt.wasm" "$PKG/${NAME}_bg.wasm"

  cp src/js/npm/index.js src/js/npm/node.js src/js/npm/extras.js src/js/npm/extras.d.ts src/js/npm/react.js src/js/npm/react.d.ts src/js/npm/auth.js src/js/npm/auth.d.ts src/js/npm/auth-node.js src/js/npm/auth-node.d.ts LICENSE-MIT LICENSE-APACHE "$PKG/"
  # index.d.ts re-exports the public classes and types by name (not the raw InitOutput exports).
  names() { grep -oE "^export (declare )?$1 [A-Za-z]+" "$PKG/$NAME.d.ts" | awk '{print $NF}' | grep -vxE 'InitInput|InitOutput|SyncInitInput' | sort -u | paste -sd, - | sed 's/,/, /g'; }
  {
    echo "export { $(names class) } from \"./$NAME.js\";"
    echo "export type { $(comm -23 <(names '(type|interface)' | tr -d ' ' | tr , '\n') <(names class | tr -d ' ' | tr , '\n') | paste -sd, - | sed 's/,/, /g') } from \"./$NAME.js\";"
    grep -v '__EXPORTS__' src/js/npm/index.d.ts
  } > "$PKG/index.d.ts"
  VERSION=$(awk -F'"' '/^version = /{print $2; exit}' Cargo.toml)
  sed "s/__VERSION__/$VERSION/" src/js/npm/package.json > "$PKG/package.json"
  cp src/js/npm/README.md "$PKG/README.md"
}

# pkg/ is rebuilt only when cargo's output, the tools or what else goes into the package changed (a
# warm rerun of the test command then skips wasm-bindgen and the ~20 s of wasm-opt).
STAMP=$TARGET_DIR/pkg.stamp
INPUTS=$({ cat "$RAW" scripts/build.sh src/js/npm/* LICENSE-MIT LICENSE-APACHE Cargo.toml; wasm-bindgen --version; "$WASM_OPT" --version; } | sha256sum | cut -d' ' -f1)
built() { [ -f "$PKG/${NAME}_bg.wasm" ] && echo "$INPUTS $(sha256sum < "$PKG/${NAME}_bg.wasm" | cut -d' ' -f1)"; }
if [ -f "$STAMP" ] && [ "$(cat "$STAMP")" = "$(built)" ]; then
  log "pkg/ is up to date"
else
  rm -f "$STAMP"
  package
  built > "$STAMP"
fi

gz() { gzip -9 -c "$@" | wc -c; }
WASM_RAW=$(wc -c < "$PKG/${NAME}_bg.wasm")
WASM_GZ=$(gz "$PKG/${NAME}_bg.wasm")
GLUE_GZ=$(cat "$PKG/$NAME.js" "$PKG/index.js" "$PKG/extras.js" | gz)
log "pkg/ ready: ${NAME}_bg.wasm ${WASM_RAW} B (${WASM_GZ} B gz), JS glue ${GLUE_GZ} B gz"
echo "gzipped size (wasm + JS glue): $((WASM_GZ + GLUE_GZ)) B"
