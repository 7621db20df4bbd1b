#!/usr/bin/env bash
# The whole test suite: installs what is missing (the build's packages and the tests' peers:
# nginx, openssl, python3, curl, mitmproxy, detect-secrets, openapi-spec-validator; see
# scripts/ensure-test-peers.sh), checks the formatting, builds, runs every test, then (for a full
# run, without arguments) the DocC build, the CassetteTesting end-to-end check, which builds a
# scratch package of its own and is too slow for the suite itself, and the build without libcurl
# (scripts/test-no-curl.sh) with its tests.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/ensure-test-peers.sh
# The formatter's rules (.swift-format) hold for every source and test file.
swift format lint --strict --recursive --parallel Sources Tests
swift test "$@"
if [[ $# -eq 0 ]]; then
    # The DocC catalogs of the public products build without a warning.
    scripts/docs.sh
    scripts/e2e-cassette-testing.sh
    # The library and CassetteTesting as they build where libcurl does not exist.
    scripts/test-no-curl.sh
fi
