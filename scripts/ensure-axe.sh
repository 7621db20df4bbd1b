#!/usr/bin/env bash
# Installs what the web UI's accessibility audit needs, only when it is missing: the browser
# (scripts/ensure-browser.sh) and axe-core's axe.min.js, which PyPI's axe-playwright-python ships
# (axe-core 4.12.1 in 0.1.8; Debian packages no axe-core). Only its script is read, so the
# package is installed without its playwright dependency (no browser is downloaded).
#   scripts/ensure-axe.sh
set -euo pipefail
here="$(dirname "$0")"

"$here/ensure-browser.sh"
"$here/ensure-pip-module.sh" axe_playwright_python --no-deps "axe-playwright-python==0.1.8"
