#!/usr/bin/env bash
# The `requests` library's own test suite through cassette (record, then replay with the upstream
# stopped) and through mitmproxy for comparison, in one run against one httpbin server; prints the
# pass counts of the tests that reach the server and pass against it directly.
#   scripts/requests-suite.sh [WORK_DIR [OPTION...]]   (default: a new temporary directory; options go to
#   scripts/requests-suite.py: --no-mitmproxy, --summary PATH)
#   CASSETTE=path/to/cassette scripts/requests-suite.sh   (a binary already built, such as a debug one)
# Fetches the suite as the sdist from PyPI (pip download --no-binary :all:) and its test
# dependencies (pytest, pytest-httpbin, httpbin, trustme, PySocks) into a virtual environment in
# WORK_DIR; builds cassette (release) when it is missing. Takes a few minutes.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
work="${1:-$(mktemp -d -t requests-suite-XXXXXX)}"
mkdir -p "$work"
# Absolute: the suite runs from its own directory.
work="$(cd "$work" && pwd)"
"$root/scripts/ensure-test-peers.sh" >/dev/null

cassette="${CASSETTE:-}"
if [[ -z "$cassette" ]]; then
    echo "Building cassette (release)" >&2
    (cd "$root" && swift build -c release --product cassette >&2)
    cassette="$(cd "$root" && swift build -c release --show-bin-path)/cassette"
fi

if [[ ! -x "$work/venv/bin/python" ]]; then
    python3 -m venv "$work/venv"
fi
if [[ ! -d "$work/suite" ]]; then
    rm -rf "$work/download"
    "$work/venv/bin/pip" download --quiet --no-deps --no-binary :all: requests -d "$work/download"
    mkdir -p "$work/suite"
    tar -xzf "$work"/download/requests-*.tar.gz -C "$work/suite" --strip-components=1
fi
echo "Installing the suite's test dependencies into $work/venv" >&2
"$work/venv/bin/pip" install --quiet "pytest>=2.8.0,<10" "pytest-httpbin==2.1.0" "httpbin~=0.10.0" trustme pysocks "$work/suite"

exec "$work/venv/bin/python" "$root/scripts/requests-suite.py" \
    --python "$work/venv/bin/python" --suite "$work/suite" --cassette "$cassette" --work "$work/run-$(date +%Y%m%d-%H%M%S)" "${@:2}"
