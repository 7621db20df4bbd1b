#!/usr/bin/env bash
# Installs the Debian packages the build needs, only when they are missing, so the README's
# commands work on a fresh machine with nothing but Swift installed.
set -euo pipefail

missing=()
have_header() { printf '#include <%s>\n' "$1" | cc -E -x c - >/dev/null 2>&1; }

command -v pkg-config >/dev/null 2>&1 || missing+=(pkg-config)
have_header curl/curl.h || missing+=(libcurl4-openssl-dev)
have_header sqlite3.h || missing+=(libsqlite3-dev)
# nginx (Debian's, HTTP/2 built in) is the tests' HTTPS upstream that offers HTTP/2; it lives in
# /usr/sbin, which is not on every user's PATH.
command -v nginx >/dev/null 2>&1 || [ -x /usr/sbin/nginx ] || missing+=(nginx-light)
for extra in "$@"; do
    command -v "$extra" >/dev/null 2>&1 || missing+=("$extra")
done

# Real peers the tests compare against (PyPI; mitmproxy takes about two minutes to install on
# a busy two-core machine); each test also installs its own on demand.
for tool in openapi-spec-validator:openapi-spec-validator detect-secrets:detect-secrets mitmdump:mitmproxy; do
    "$(dirname "$0")/ensure-pip-tool.sh" "${tool%%:*}" "${tool#*:}" \
        || echo "warning: could not install ${tool#*:} now; its tests will try again" >&2
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
