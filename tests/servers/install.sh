#!/usr/bin/env bash
# Installs what the real MCP test servers need; idempotent, and a fast no-op when already installed.
#
#   tests/servers/install.sh [ts-sdk python rust fastmcp fastmcp3 mcp-framework arcade pmcp turbomcp mcpkit] (none=all)
#
# ts-sdk, mcp-framework: `npm ci` in tests/servers/<part> (exact versions from package-lock.json).
# python: a venv outside the repo, ${MCP_TASK_CLIENT_VENV:-${XDG_CACHE_HOME:-~/.cache}/mcp-task-client/venv},
#         with requirements.txt (every package pinned). Reused while requirements.txt is unchanged.
# rust:   runs tests/servers/rust/install.sh when that file exists (owned by the Rust servers).
# fastmcp: its own venv (its `mcp` 2.x conflicts with the python part's 1.x), ${MCP_TASK_CLIENT_VENV_FASTMCP:-
#         …/mcp-task-client/venv-fastmcp}, with fastmcp/requirements.txt (every package pinned).
# arcade, fastmcp3: the same, venv-<part> with <part>/requirements.txt.
# pmcp, turbomcp, mcpkit: lib/cargo-build.sh (a cargo workspace of its own) into the Rust servers' target dir.
# Uses the package registries only, through npm and pip.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
venv="${MCP_TASK_CLIENT_VENV:-${XDG_CACHE_HOME:-$HOME/.cache}/mcp-task-client/venv}"
want=("$@")
[ ${#want[@]} -eq 0 ] && want=(ts-sdk python rust fastmcp fastmcp3 mcp-framework arcade pmcp turbomcp mcpkit)

fingerprint() { sha256sum "$@" | sha256sum | cut -d' ' -f1; }
say() { printf '[install] %s\n' "$*" >&2; }

# install_npm PART: `npm ci` in tests/servers/PART; reused while its package(-lock).json are unchanged.
install_npm() {
  local dir="$here/$1" stamp="$here/$1/node_modules/.mcp-task-client-stamp" fp
  fp="$(fingerprint "$dir/package.json" "$dir/package-lock.json")"
  if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$fp" ]; then
    say "$1: up to date"
    return
  fi
  say "$1: npm ci"
  (cd "$dir" && npm ci --no-audit --no-fund --loglevel=error)
  echo "$fp" > "$stamp"
}

pick_python() {
  local p
  for p in python3.11 python3.12 python3.13 python3; do
    if command -v "$p" >/dev/null 2>&1 && "$p" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 10) else 1)'; then
      echo "$p"
      return
    fi
  done
  say "python: need Python >= 3.10 with venv"
  exit 1
}

# install_venv NAME VENV REQUIREMENTS: a venv with every pinned package; reused while REQUIREMENTS is unchanged.
install_venv() {
  local name="$1" dir="$2" req="$3" stamp="$2/.mcp-task-client-stamp" fp py
  fp="$(fingerprint "$req")"
  if [ -x "$dir/bin/python" ] && [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$fp" ]; then
    say "$name: up to date ($dir)"
    return
  fi
  if [ ! -x "$dir/bin/python" ]; then
    py="$(pick_python)"
    say "$name: creating venv with $py at $dir"
    mkdir -p "$(dirname "$dir")"
    "$py" -m venv "$dir"
  fi
  say "$name: pip install -r $(basename "$(dirname "$req")")/requirements.txt"
  "$dir/bin/python" -m pip install --disable-pip-version-check --no-input -q -r "$req"
  echo "$fp" > "$stamp"
}

install_python() { install_venv python "$venv" "$here/python/requirements.txt"; }

# install_library_venv NAME: venv-NAME (MCP_TASK_CLIENT_VENV_<NAME> overrides) with NAME/requirements.txt.
install_library_venv() {
  local var="MCP_TASK_CLIENT_VENV_${1^^}"
  install_venv "$1" "${!var:-${XDG_CACHE_HOME:-$HOME/.cache}/mcp-task-client/venv-$1}" "$here/$1/requirements.txt"
}

for w in "${want[@]}"; do
  case "$w" in
    ts-sdk | mcp-framework) install_npm "$w" ;;
    python) install_python ;;
    rust)
      if [ -f "$here/rust/install.sh" ]; then
        bash "$here/rust/install.sh"
      else
        say "rust: no tests/servers/rust/install.sh, skipped"
      fi
      ;;
    fastmcp | fastmcp3 | arcade) install_library_venv "$w" ;;
    pmcp | turbomcp | mcpkit) bash "$here/lib/cargo-build.sh" "$w" "$w-server" | sed "s/^/[install] $w: /" >&2 ;;
    *) say "unknown part: $w (ts-sdk | python | rust | fastmcp | fastmcp3 | mcp-framework | arcade | pmcp | turbomcp | mcpkit)"; exit 2 ;;
  esac
done
