#!/usr/bin/env bash
# Called by tests/servers/install.sh: builds the rmcp test servers (see build.sh); binary paths go to stderr.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
bash "$here/build.sh" | sed 's/^/[install] rust: /' >&2
