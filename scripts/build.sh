#!/usr/bin/env bash
# Builds the npm package into pkg/: cargo (wasm32, release; the full and the core build) →
# wasm-bindgen (--target web) → wasm-opt --flatten --rereloop -Os --converge (npm binaryen 132 from
# scripts/tools; never Debian's) → the hand-written entry points and package.json from src/js/npm.
# Prints the gzipped size of each build's wasm and JS glue.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
export PATH="$HOME/.cargo/bin:$PATH"
TARGET_DIR=${CARGO_TARGET_DIR:-$ROOT/target}
PKG=$ROOT/pkg
NAME=mcp_task_client
log() { printf '\033[1m[build]\033[0m %s\n' "$*"; }

WASM_OPT=$ROOT/scripts/tools/node_modules/.bin/wasm-opt
ESBUILD=$ROOT/scripts/tools/node_modules/.bin/esbuild
if [ ! -x "$WASM_OPT" ] || [ ! -x "$ESBUILD" ]; then
  log "installing binaryen and esbuild (npm) into scripts/tools"
  (cd scripts/tools && npm ci --no-audit --no-fund --loglevel=error)
fi
"$WASM_OPT" --version | grep -q 'version 132' || { echo "wasm-opt is not binaryen 132" >&2; exit 1; }

# Three builds of one crate: the full build (every feature) and the base build (all but `tabs` and
# `oauth`: no tab coordination / persistence, no OAuth) in pkg/, between which the package root
# chooses per client, and the core build in pkg/core/ (`--no-default-features`: neither, nor the
# task receiver or the draft dialect).
# They share cargo's output file (a cdylib's name carries no feature hash), so each is copied out after its build
# and the crate is rebuilt for each in turn.
#
# std is rebuilt with the crate's size profile (`-Zbuild-std`, rust-src), with its `optimize_for_size`
# feature (smaller sorts and formatting) and the `immediate-abort` panic strategy (a panic traps at
# once: no panic message machinery; none is reachable from input, and on wasm32-unknown-unknown its
# message went nowhere anyway) without panic locations (no source paths in the module: the same bytes
# wherever it is built): −12.8 KB gz in the core build. These are unstable options of the
# stable compiler rust-toolchain.toml pins, enabled for this build only (RUSTC_BOOTSTRAP=1); tests and clippy build as usual.
# Compiler settings measured on the base build and not kept (Δ gz after wasm-opt; raw in brackets):
# -Zfmt-debug=none 0 (no Debug formatting is left), -Zinline-mir=no 0 (the same bytes),
# opt-level "s" +13,186 (+33.6 KB), LLVM -inline-threshold=0 +266 (+0.6 KB), =10 +628 (+1.1 KB),
# =100 +13,923 (+41 KB): the inlining towers are cheaper than their calls would be.
# -Zshare-generics and codegen-units do nothing here: one codegen unit, fat LTO (`lto = true`).
# std's dlmalloc instead of the crate's talc allocator: +1,674 (+3.8 KB).
SIZE_STD=(-Zbuild-std=std,panic_abort -Zbuild-std-features=optimize_for_size)
build() { # <out file> <cargo feature args...>
  local out=$1
  shift
  log "cargo build --release --target wasm32-unknown-unknown ${SIZE_STD[*]} $*"
  RUSTC_BOOTSTRAP=1 RUSTFLAGS="-Zunstable-options -Cpanic=immediate-abort -Zlocation-detail=none" \
    cargo build --release --target wasm32-unknown-unknown --lib "${SIZE_STD[@]}" "$@"
  mkdir -p "$(dirname "$out")"
  cp "$TARGET_DIR/wasm32-unknown-unknown/release/$NAME.wasm" "$out"
}
RAW_FULL=$TARGET_DIR/pkg-raw/full.wasm
RAW_BASE=$TARGET_DIR/pkg-raw/base.wasm
RAW_CORE=$TARGET_DIR/pkg-raw/core.wasm
build "$RAW_FULL"
build "$RAW_BASE" --no-default-features --features receiver,draft
build "$RAW_CORE" --no-default-features

# esbuild's whitespace and syntax minification of an ES module, in place; a first line
# `/* @ts-self-types=… */` (the glue's pointer to its .d.ts) is kept. With `local`, local names are
# shortened too (`--minify-identifiers`; what a module exports keeps its name): the glue, the
# snippets, and the client and handle modules, whose public classes set their `name` themselves.
# −1,019 B gz initial, −1,153 full, −1,024 core (JS only) with esbuild's `name` keeper
# (`--keep-names`) on the client and handle modules, then −266 more without it. The other
# hand-written modules stay as they are: small, they gain less than the renaming costs.
minify() { # <file.js> [local]
  local head names=()
  head=$(head -n 1 "$1")
  [[ $head == "/* @ts-self-types="* ]] || head=""
  [ "${2:-}" != local ] || names=(--minify-identifiers)
  "$ESBUILD" "$1" --minify-whitespace --minify-syntax "${names[@]}" --format=esm --target=es2022 --log-level=warning --outfile="$1.min"
  { [ -z "$head" ] || echo "$head"; cat "$1.min"; } > "$1"
  rm "$1.min"
}

# wasm-bindgen → wasm-opt into <dir>, as <name>.js and <name>_bg.wasm (default: $NAME).
bindgen() { # <raw wasm> <dir> [name]
  local NAME=${3:-$NAME}
  log "wasm-bindgen --target web → $2/$NAME"
  # (--remove-name-section and --remove-producers-section would change nothing: wasm-opt drops
  # both. --omit-default-module-path would drop the glue's default wasm URL, which the core entry
  # uses.)
  wasm-bindgen --target web --out-dir "$2" --out-name "$NAME" "$1"
  # The glue and the driver's I/O module (src/driver/io.js, copied into snippets/) ship minified:
  # no comments (the glue repeats every Rust doc comment as JSDoc; the .d.ts, which editors read,
  # keeps them), whitespace, redundant syntax or long local names.
  local js
  for js in "$2/$NAME.js" $(find "$2/snippets" -name '*.js'); do minify "$js" local; done
  # The table slots of closure entry points nothing calls (js-sys's, kept by wasm-bindgen's
  # descriptors) are freed for wasm-opt to remove them (scripts/unused-shims.mjs): −0.75 KB gz.
  node scripts/unused-shims.mjs "$2/${NAME}_bg.wasm"
  # The imports' hashed names and the closures' mangled entry points, shortened in the wasm and
  # everywhere they are spelled (scripts/short-names.mjs): −1.3 KB gz in each of wasm and glue.
  node scripts/short-names.mjs "$2/${NAME}_bg.wasm" "$2/$NAME.js" "$2/$NAME.d.ts" "$2/${NAME}_bg.wasm.d.ts"
  # --flatten --rereloop, then -Os --converge: the smallest gzipped module of the flags measured.
  # Rebuilding the control flow from scratch (LLVM's nested blocks and br_tables become Binaryen's
  # own loops and ifs) before optimizing: −0.42 KB gz base, −0.76 full, −0.30 core against
  # -Os --converge alone. Against that, also measured on the base build (Δ gz; raw in brackets):
  # -Os alone +142 (+155); -Oz --converge +212 (−881; +206 full, +270 core); -Os --converge -Oz
  # +252; -O4 -Oz +1067; --flatten --rereloop -Oz −102; -Os before --flatten --rereloop -Os
  # --converge −360; the kept pipeline twice −425 (−5 more for twice the time);
  # --merge-similar-functions first +167; --reorder-functions --reorder-globals after +1675 (−1.9 KB
  # raw: gzip loses the linker's order, callers next to callees); --precompute-propagate first +13;
  # --monomorphize first −1; --gufa-optimizing first +149. No DWARF to strip: a release build has no debug info. The
  # features rustc enables by default for wasm32-unknown-unknown (bulk-memory: memory.copy,
  # sign-ext, nontrapping-fptoint, multivalue, reference-types, mutable-globals) reach wasm-opt in
  # the module's `target_features` section; tail-call and extended-const stay off (Safari 16).
  # Then the custom sections no engine reads go (the toolchain's `producers`, the `target_features`
  # wasm-opt has read): −0.2 KB gz.
  log "wasm-opt --flatten --rereloop -Os --converge"
  # BUILD_NAMES=1 keeps the function names (`-g`) for a profiler to show: not the shipped module.
  local keep=()
  [ -z "${BUILD_NAMES:-}" ] || keep=(-g)
  "$WASM_OPT" --flatten --rereloop -Os --converge "${keep[@]}" --strip-producers --strip-target-features "$2/${NAME}_bg.wasm" -o "$2/${NAME}_bg.opt.wasm"
  mv "$2/${NAME}_bg.opt.wasm" "$2/${NAME}_bg.wasm"
}

# index.d.ts re-exports the public classes and types of <dir>'s module by name (not the raw
# InitOutput exports, nor TaskDone: handle.d.ts gives it the result's type parameter).
typings() { # <dir>
  names() { grep -oE "^export (declare )?$1 [A-Za-z]+" "$DIR/$NAME.d.ts" | awk '{print $NF}' | grep -vxE 'InitInput|InitOutput|SyncInitInput|TaskDone' | sort -u | paste -sd, - | sed 's/,/, /g'; }
  local DIR=$1
  {
    [ -z "$(names class)" ] || echo "export { $(names class) } from \"./$NAME.js\";"
    echo "export type { $(comm -23 <(names '(type|interface)' | tr -d ' ' | tr , '\n') <(names class | tr -d ' ' | tr , '\n') | paste -sd, - | sed 's/,/, /g') } from \"./$NAME.js\";"
    grep -v '__EXPORTS__' src/js/npm/index.d.ts
  } > "$DIR/index.d.ts"
}

# The package: the full and the base build at the root (one shared snippets/ directory: the same
# io.js), the core build and its own entry points in core/.
package() {
  rm -rf "$PKG"
  bindgen "$RAW_FULL" "$PKG"
  bindgen "$RAW_BASE" "$PKG" "${NAME}_base"
  bindgen "$RAW_CORE" "$PKG/core"
  cp src/js/npm/index.js src/js/npm/node.js src/js/npm/node.cjs src/js/npm/node.d.cts src/js/npm/extras.js src/js/npm/extras.d.ts src/js/npm/client.js src/js/npm/client.d.ts src/js/npm/redis.js src/js/npm/handle.js src/js/npm/handle.d.ts src/js/npm/react.js src/js/npm/react.d.ts src/js/npm/auth.js src/js/npm/auth.d.ts src/js/npm/auth-node.js src/js/npm/auth-node.d.ts LICENSE-MIT LICENSE-APACHE "$PKG/"
  # The core entry points (src/js/npm/core/) share the root's extras, client and handle modules
  # (one McpTaskError class, one TaskHandle class; each entry makes its McpTaskClient class).
  cp src/js/npm/core/index.js src/js/npm/core/node.js "$PKG/core/"
  shared='s#"\./\(extras\|client\|handle\|redis\)\.js"#"../\1.js"#'
  # The CommonJS entry loads the ES module next to it: the same file in both builds.
  cp src/js/npm/node.cjs src/js/npm/node.d.cts "$PKG/core/"
  sed -i "$shared" "$PKG/core/$NAME.d.ts"
  # The hand-written modules ship minified too (their .d.ts files carry the documentation).
  local js
  for js in index.js node.js extras.js redis.js react.js auth.js auth-node.js core/index.js core/node.js; do minify "$PKG/$js"; done
  for js in client.js handle.js; do minify "$PKG/$js" local; done
  typings "$PKG"
  typings "$PKG/core"
  sed -i "$shared" "$PKG/core/index.d.ts"
  VERSION=$(awk -F'"' '/^version = /{print $2; exit}' Cargo.toml)
  sed "s/__VERSION__/$VERSION/" src/js/npm/package.json > "$PKG/package.json"
  cp src/js/npm/README.md "$PKG/README.md"
}

# pkg/ is rebuilt only when cargo's output, the tools or what else goes into the package changed (a
# warm rerun of the test command then skips wasm-bindgen and the ~40 s of wasm-opt).
STAMP=$TARGET_DIR/pkg.stamp
INPUTS=$({ cat "$RAW_FULL" "$RAW_BASE" "$RAW_CORE" scripts/build.sh scripts/wasm-module.mjs scripts/unused-shims.mjs scripts/short-names.mjs src/js/npm/*.* src/js/npm/core/* LICENSE-MIT LICENSE-APACHE Cargo.toml; wasm-bindgen --version; "$WASM_OPT" --version; "$ESBUILD" --version; echo "names ${BUILD_NAMES:-}"; } | sha256sum | cut -d' ' -f1)
WASMS=("$PKG/${NAME}_bg.wasm" "$PKG/${NAME}_base_bg.wasm" "$PKG/core/${NAME}_bg.wasm")
built() { ls "${WASMS[@]}" >/dev/null 2>&1 && echo "$INPUTS $(cat "${WASMS[@]}" | sha256sum | cut -d' ' -f1)"; }
if [ -f "$STAMP" ] && [ "$(cat "$STAMP")" = "$(built)" ]; then
  log "pkg/ is up to date"
else
  rm -f "$STAMP"
  package
  built > "$STAMP"
fi

gz() { gzip -9 -c "$@" | wc -c; }
# The snippets (src/driver/io.js, full.js, which wasm-bindgen copies into snippets/) the glue
# <dir>/<name>.js imports.
snippets() { # <dir> <name>
  grep -oE '"\./snippets/[^"]+\.js"' "$1/$2.js" | tr -d '"' | sort -u | sed "s#^\./#$1/#"
}
# What a page fetches for one build: its wasm, and its JS (the entry, client, extras and handle
# modules, the wasm-bindgen glue, its snippets) gzipped as one.
report() { # <label> <dir> <name> <entry>
  local wasm_raw wasm_gz glue_gz
  wasm_raw=$(wc -c < "$2/${3}_bg.wasm")
  wasm_gz=$(gz "$2/${3}_bg.wasm")
  glue_gz=$(cat "$4" "$PKG/extras.js" "$PKG/client.js" "$PKG/handle.js" "$2/$3.js" $(snippets "$2" "$3") | gz)
  log "$1: ${3}_bg.wasm ${wasm_raw} B (${wasm_gz} B gz), JS glue ${glue_gz} B gz"
  echo "gzipped size, $1 (wasm + JS glue): $((wasm_gz + glue_gz)) B"
  eval "SIZE_$1=$((wasm_gz + glue_gz))"
}
# The package root: a page fetches the base build for its default clients (initial) and the full
# build for one with `persist` or `auth` (full: a page whose every client has one).
report initial "$PKG" "${NAME}_base" "$PKG/index.js"
report full "$PKG" "$NAME" "$PKG/index.js"
report core "$PKG/core" "$NAME" "$PKG/core/index.js"
# What a page whose clients need both builds fetches beyond the initial load: the full build's wasm,
# its glue and the snippets the base build's glue did not import.
FULL_JS=$(comm -23 <(snippets "$PKG" "$NAME") <(snippets "$PKG" "${NAME}_base"))
SIZE_added=$(($(gz "$PKG/${NAME}_bg.wasm") + $(cat "$PKG/$NAME.js" $FULL_JS | gz)))
echo "gzipped size, added to the initial load by a client with persist or auth: $SIZE_added B"

# The one place the measured sizes are written: size-budget caps them, scripts/size-check.sh checks
# the READMEs' statements against them.
printf '{\n  "unit": "bytes gzipped (gzip -9): wasm + JS glue",\n  "initial": %s,\n  "fullAdded": %s,\n  "full": %s,\n  "core": %s\n}\n' \
  "$SIZE_initial" "$SIZE_added" "$SIZE_full" "$SIZE_core" > docs/sizes.json
