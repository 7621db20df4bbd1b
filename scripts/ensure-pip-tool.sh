#!/usr/bin/env bash
# Installs a Python command-line tool from PyPI when its command is missing:
#   scripts/ensure-pip-tool.sh COMMAND [PACKAGE]   (PACKAGE defaults to COMMAND)
# Tests that compare against a real peer (detect-secrets) call it, so they work on a fresh machine.
set -euo pipefail

command_name="$1"
package="${2:-$1}"
command -v "$command_name" >/dev/null 2>&1 && exit 0

if command -v pip3 >/dev/null 2>&1; then pip=(pip3)
elif command -v pip >/dev/null 2>&1; then pip=(pip)
elif command -v python3 >/dev/null 2>&1; then pip=(python3 -m pip)
else
    echo "error: $command_name is missing and neither pip nor python3 is installed; install python3-pip, then: pip install $package" >&2
    exit 1
fi
echo "Installing $package from PyPI" >&2
if ! "${pip[@]}" install --quiet "$package" >/dev/null 2>&1; then
    # Debian's system Python refuses global installs; a user install is the usual way out.
    "${pip[@]}" install --quiet --user --break-system-packages "$package" >/dev/null
fi
hash -r
command -v "$command_name" >/dev/null 2>&1 || [ -x "$HOME/.local/bin/$command_name" ] || {
    echo "error: installed $package but $command_name is not on PATH; add ~/.local/bin to PATH" >&2
    exit 1
}
