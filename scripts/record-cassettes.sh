#!/usr/bin/env bash
# Regenerates the committed cassettes.db: the sample API's session (scripts/sample-session.sh)
# recorded through `cassette record` into cassette "dev". The interactions are the same on every
# run (the sample API is deterministic and the session runs one request at a time); only the
# recording timestamps and durations differ.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/ensure-deps.sh
source scripts/lib.sh
bin="$(build_products cassette sample-api)"
export CASSETTE_BIN="$bin/cassette"

open_workspace

read -r api_pid api_url < <(start_server "$work/api.log" "$bin/sample-api" --port 0)
pids+=("$api_pid")
read -r rec_pid rec_url < <(start_server "$work/record.log" "$bin/cassette" record --upstream "$api_url" --db "$work/cassettes.db" --cassette dev --port 0)
pids+=("$rec_pid")
SESSION_QUIET=1 API_BASE_URL="$rec_url" scripts/sample-session.sh
stop_server "$rec_pid"
mv "$work/cassettes.db" cassettes.db
"$bin/cassette" list --db cassettes.db
