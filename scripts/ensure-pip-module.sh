#!/usr/bin/env bash
# Installs a Python library from PyPI when python3 cannot import it (a library with no command of
# its own, such as wsproto; scripts/ensure-pip-tool.sh is for commands):
#   scripts/ensure-pip-module.sh MODULE [PACKAGE]   (PACKAGE defaults to MODULE)
# The WebSocket tests' peers call it, so they work on a fresh machine.
set -euo pipefail

module="$1"
package="${2:-$1}"
python3 -c "import $module" >/dev/null 2>&1 && exit 0

echo "Installing $package from PyPI" >&2
if ! python3 -m pip install --quiet "$package" >/dev/null 2>&1; then
    # Debian's system Python refuses global installs; a user install is the usual way out.
    python3 -m pip install --quiet --user --break-system-packages "$package" >/dev/null
fi
python3 -c "import $module" >/dev/null 2>&1 || {
    echo "error: installed $package but python3 cannot import $module; check that pip and python3 are the same Python" >&2
    exit 1
}
