#!/usr/bin/env bash
# Installs Python packages from PyPI when a module they provide cannot be imported:
#   scripts/ensure-pip-module.sh MODULE PACKAGE...   (e.g. ariadne ariadne uvicorn)
# The GraphQL tests call it for their upstream (ariadne over uvicorn) and client (gql), which are
# libraries rather than commands, so scripts/ensure-pip-tool.sh cannot tell whether they are there.
set -euo pipefail

module="$1"
shift
python3 -c "import $module" >/dev/null 2>&1 && exit 0

echo "Installing $* from PyPI" >&2
if ! python3 -m pip install --quiet "$@" >/dev/null 2>&1; then
    # Debian's system Python refuses global installs; a user install is the usual way out.
    python3 -m pip install --quiet --user --break-system-packages "$@" >/dev/null
fi
python3 -c "import $module" >/dev/null 2>&1 || {
    echo "error: installed $* but python3 cannot import $module; check which python3 pip installed into" >&2
    exit 1
}
