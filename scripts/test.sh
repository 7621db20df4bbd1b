#!/usr/bin/env bash
# The whole test suite: installs missing system packages, builds, runs every test.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/ensure-deps.sh openssl python3
exec swift test "$@"
