#!/usr/bin/env bash
# The main job: builds everything, starts the sample API, and calls it through the live client.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/ensure-deps.sh

echo "==> Building (debug)"
swift build --product cassette >/dev/null
swift build --product sample-api >/dev/null
bin="$(swift build --show-bin-path)"

workdir="$(mktemp -d)"
api_pid=""
cleanup() {
    [ -n "$api_pid" ] && kill "$api_pid" 2>/dev/null && wait "$api_pid" 2>/dev/null || true
    rm -rf "$workdir"
}
trap cleanup EXIT

# Starts a server in the background and waits for its "listening on URL" line.
start_server() {
    local log="$1"; shift
    "$@" >"$log" 2>&1 &
    local pid=$!
    for _ in $(seq 1 100); do
        if grep -q '^listening on ' "$log" 2>/dev/null; then
            echo "$pid $(sed -n 's/^listening on //p' "$log" | head -n1)"
            return 0
        fi
        kill -0 "$pid" 2>/dev/null || { cat "$log" >&2; return 1; }
        sleep 0.1
    done
    echo "error: $* did not start within 10 s" >&2
    return 1
}

read -r api_pid api_url < <(start_server "$workdir/sample-api.log" "$bin/sample-api" --port 0)
echo "==> Sample API listening on $api_url"

step() { echo; echo "\$ cassette $*"; "$bin/cassette" "$@"; }
step request "$api_url/api/health"
step request "$api_url/api/users/1"
step request -X POST -d '{"food":"banana","grams":120}' "$api_url/api/nutrition/analyze"
step request -i -X DELETE "$api_url/api/users/3"
echo
echo "\$ cassette request $api_url/api/users/42   (a 404, mapped to APIError)"
"$bin/cassette" request "$api_url/api/users/42" || echo "(exit status $?)"
