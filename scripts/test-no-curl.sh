#!/usr/bin/env bash
# The build where libcurl does not exist (iOS, tvOS, watchOS, visionOS), proven on Linux: with
# WELLPLATE_NO_CURL=1 the package declares the core, the library and CassetteTesting without libcurl,
# and their tests (the transport conformance suite among them) run over URLSession alone. A scratch
# directory of its own keeps it from rebuilding the normal build's products.
set -euo pipefail
cd "$(dirname "$0")/.."
export WELLPLATE_NO_CURL=1
scratch=.build/no-curl
swift build --build-tests --scratch-path "$scratch" 2>&1 | tee "$scratch.log" >/dev/null || { cat "$scratch.log"; exit 1; }
# No warnings in our code in this build either (CCurl is not even declared, so any unguarded
# `import CCurl` fails it).
if grep -E "^$(pwd)/(Sources|Tests)/.*warning:" "$scratch.log"; then
    echo "the build without libcurl has warnings" >&2
    exit 1
fi
swift test --skip-build --scratch-path "$scratch" "$@"
