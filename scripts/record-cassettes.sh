#!/usr/bin/env bash
# Regenerates the committed cassettes.db: the sample API's session (scripts/sample-session.sh)
# recorded through `cassette record` into cassette "dev". The interactions are the same on every
# run (the sample API is deterministic and the session runs one request at a time); only the
# recording timestamps and durations differ.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/ensure-deps.sh
swift build --product cassette >/dev/null
swift build --product sample-api >/dev/null
bin="$(swift build --show-bin-path)"
export CASSETTE_BIN="$bin/cassette"

work="$(mktemp -d)"
pids=()
trap 'for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null; rm -rf "$work"' EXIT

wait_for() {
    for _ in $(seq 1 200); do
        grep -q '^listening on ' "$1" 2>/dev/null && { sed -n 's/^listening on //p' "$1" | head -n1; return 0; }
        sleep 0.05
    done
    echo "error: no 'listening on' line in $1" >&2; cat "$1" >&2; return 1
}

"$bin/sample-api" --port 0 >"$work/api.log" 2>&1 & pids+=($!)
api_url="$(wait_for "$work/api.log")"
"$bin/cassette" record --upstream "$api_url" --db "$work/cassettes.db" --cassette dev --port 0 >"$work/record.log" 2>&1 & rec_pid=$!
pids+=("$rec_pid")
rec_url="$(wait_for "$work/record.log")"
SESSION_QUIET=1 API_BASE_URL="$rec_url" scripts/sample-session.sh
kill -TERM "$rec_pid"; wait "$rec_pid"
mv "$work/cassettes.db" cassettes.db
"$bin/cassette" list --db cassettes.db
