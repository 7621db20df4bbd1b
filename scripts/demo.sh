#!/usr/bin/env bash
# The main job: the whole record -> replay loop against the bundled sample API.
#   1. start the sample API and record a realistic session through the `cassette` proxy
#   2. stop the sample API, replay the same session offline, every answer from the cassette
#   3. show what a miss looks like, and the CI one-liner (`cassette run --strict`)
# It installs only what the build needs (scripts/ensure-deps.sh); the test suite's peers are
# scripts/test.sh's to install.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/ensure-deps.sh

source scripts/lib.sh

echo "==> Building (debug)"
bin="$(build_products cassette sample-api)"
export CASSETTE_BIN="$bin/cassette"

open_workspace

db="$work/demo.db"

echo
echo "==> 1. Record: sample API + cassette record"
read -r api_pid api_url < <(start_server "$work/api.log" "$bin/sample-api" --port 0)
pids+=("$api_pid")
read -r rec_pid rec_url < <(start_server "$work/record.log" "$bin/cassette" record --upstream "$api_url" --db "$db" --port 0)
pids+=("$rec_pid")
echo "sample API at $api_url, recording proxy at $rec_url"
API_BASE_URL="$rec_url" scripts/sample-session.sh
stop_server "$rec_pid"
echo
echo "--- recorder log ---"
cat "$work/record.log"

echo
echo "==> 2. The sample API goes away"
stop_server "$api_pid"
"$CASSETTE_BIN" request --retries 0 "$api_url/api/health" || echo "(as expected: nothing is listening at $api_url any more)"

echo
echo "\$ cassette list"
"$CASSETTE_BIN" list --db "$db"

echo
echo "==> 3. Replay the same session offline"
read -r rep_pid rep_url < <(start_server "$work/replay.log" "$bin/cassette" replay --db "$db" --port 0)
pids+=("$rep_pid")
API_BASE_URL="$rep_url" scripts/sample-session.sh
echo
echo "\$ cassette request -i /api/users/1   (the X-Cassette header says where the answer came from)"
"$CASSETTE_BIN" request -i "$rep_url/api/users/1"

echo
echo "==> 4. A request that was never recorded is a miss"
echo "\$ curl $rep_url/api/users/2"
curl -s -i "$rep_url/api/users/2" || "$CASSETTE_BIN" request -i --retries 0 "$rep_url/api/users/2" || true
echo
stop_server "$rep_pid"
echo "--- replay log ---"
cat "$work/replay.log"

echo
echo "==> 5. The CI one-liner: proxy on a free port around a command, --strict fails on any miss"
echo "\$ cassette run --strict -- scripts/sample-session.sh"
SESSION_QUIET=1 "$CASSETTE_BIN" run --db "$db" --strict --quiet -- scripts/sample-session.sh
echo "exit status $?: every request of the session was answered from the cassette"
