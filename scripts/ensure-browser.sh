#!/usr/bin/env bash
# Installs what the web UI's browser tests drive, only when it is missing: Debian's chromium and
# chromium-driver (through scripts/ensure-deps.sh) and the PyPI selenium package. No browser is
# downloaded from anywhere else (selenium is given /usr/bin/chromium and /usr/bin/chromedriver).
#   scripts/ensure-browser.sh
set -euo pipefail
here="$(dirname "$0")"

"$here/ensure-deps.sh" chromium chromedriver python3 pip3
python3 -c 'import selenium' 2>/dev/null && exit 0
echo "Installing selenium from PyPI" >&2
if ! python3 -m pip install --quiet selenium >/dev/null 2>&1; then
    # Debian's system Python refuses global installs; a user install is the usual way out.
    python3 -m pip install --quiet --user --break-system-packages selenium >/dev/null
fi
python3 -c 'import selenium' || { echo "error: installed selenium but python3 cannot import it; run: python3 -m pip install selenium" >&2; exit 1; }
