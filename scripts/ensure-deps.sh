#!/usr/bin/env bash
# Installs the Debian packages the build needs (pkg-config, libcurl4-openssl-dev, libsqlite3-dev,
# zlib1g-dev for WebSocket permessage-deflate),
# only when they are missing, so the README's first command (scripts/demo.sh) works on a fresh
# machine with nothing but Swift installed. The test suite's peers (nginx, mitmproxy, ...) are
# not build dependencies: scripts/ensure-test-peers.sh installs them, for scripts/test.sh.
#   scripts/ensure-deps.sh [COMMAND...]
# Each COMMAND is also installed when it is not found (on PATH, or in /usr/sbin or /sbin, where
# Debian puts nginx), from the Debian package of the same name, except where package_of says
# otherwise. Benchmarks and scripts name what they use beyond the build (wrk, sqlite3, nginx).
set -euo pipefail

missing=()
have_header() { printf '#include <%s>\n' "$1" | cc -E -x c - >/dev/null 2>&1; }
have_command() { command -v "$1" >/dev/null 2>&1 || [ -x "/usr/sbin/$1" ] || [ -x "/sbin/$1" ]; }
# The Debian package that provides a command, where its name differs.
package_of() {
    case "$1" in
        # Debian's nginx with HTTP/2 built in: the tests' HTTPS upstream that offers HTTP/2.
        nginx) echo nginx-light ;;
        pip3) echo python3-pip ;;
        chromedriver) echo chromium-driver ;;
        # HTTP/2 load client: the HTTP/2 listener tests and the HTTP/2 benchmark.
        h2load) echo nghttp2-client ;;
        # HTTP/2 server that speaks h2c only (no HTTP/1.1): the h2c fallback tests.
        nghttpd) echo nghttp2-server ;;
        # Sampling profiler: Benchmarks/http2-split.sh.
        perf) echo linux-perf ;;
        *) echo "$1" ;;
    esac
}

have_command pkg-config || missing+=(pkg-config)
have_header curl/curl.h || missing+=(libcurl4-openssl-dev)
have_header sqlite3.h || missing+=(libsqlite3-dev)
have_header zlib.h || missing+=(zlib1g-dev)
for extra in "$@"; do
    have_command "$extra" || missing+=("$(package_of "$extra")")
done

[ ${#missing[@]} -eq 0 ] && exit 0

echo "Installing missing system packages: ${missing[*]}" >&2
if [ "$(id -u)" -eq 0 ]; then
    sudo_cmd=()
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
    sudo_cmd=(sudo -n)
else
    echo "error: cannot install ${missing[*]} without root; run: sudo apt-get install -y ${missing[*]}" >&2
    exit 1
fi
if ! command -v apt-get >/dev/null 2>&1; then
    echo "error: apt-get not found; install ${missing[*]} (or your system's equivalent) by hand" >&2
    exit 1
fi

export DEBIAN_FRONTEND=noninteractive
# A fresh image has empty package lists; refresh them only when the first attempt fails.
if ! "${sudo_cmd[@]}" apt-get install -y -qq "${missing[@]}" >/dev/null 2>&1; then
    "${sudo_cmd[@]}" apt-get update -qq >/dev/null
    if ! "${sudo_cmd[@]}" apt-get install -y -qq "${missing[@]}" >/dev/null; then
        echo "error: apt-get could not install ${missing[*]}; check the network and the apt sources" >&2
        exit 1
    fi
fi
