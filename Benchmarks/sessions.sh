#!/usr/bin/env bash
# Sessions (docs/control.md) against the proxy's main port, in the same run: replay throughput of
# the 300 recordings of section 1 through a session's own port and through the main port with
# `X-Cassette-Session`, each round between two rounds on the main port (the ratio is taken against
# their mean); the session's port and the main port loaded at the same time; then the time from `POST /__cassette/sessions` to the session's first answer, beside
# one request on the main port over the same kind of connection. Prints the rounds and a summary;
# writes nothing. Needs the machine to itself: no builds meanwhile.
#   Benchmarks/sessions.sh                                   # release build, 9 rounds of 5 s
#   CONFIGURATION=debug DURATION=2 ROUNDS=1 Benchmarks/sessions.sh   # smoke run
#   CASSETTE_BIN=/path/to/old/cassette Benchmarks/sessions.sh      # another build's proxy
set -euo pipefail
cd "$(dirname "$0")/.."
duration="${DURATION:-5}"
rounds="${ROUNDS:-9}"

scripts/ensure-deps.sh wrk
source scripts/lib.sh
configuration="${CONFIGURATION:-release}"
bin="$(CONFIGURATION="$configuration" build_products cassette bench-tool)"
cassette="${CASSETTE_BIN:-$bin/cassette}"
open_workspace

"$bin/bench-tool" make-store "$work/replay.db" 300 mixed >/dev/null
read -r proxy_pid main_url < <(start_server "$work/proxy.log" "$cassette" replay --db "$work/replay.db" --cassette bench --port 0 --quiet)
pids+=("$proxy_pid")
created="$(curl -s -X POST "$main_url/__cassette/sessions" -d '{"cassette": "bench"}')"
session_url="$(python3 -c 'import json, sys; print(json.loads(sys.argv[1])["baseURL"])' "$created")"
session_id="$(python3 -c 'import json, sys; print(json.loads(sys.argv[1])["id"])' "$created")"
echo "proxy: $cassette replay --db replay.db --cassette bench --port 0 --quiet ($main_url)"
echo "session $session_id: $session_url"

rate() {  # NAME URL [HEADER]: one round of wrk, prints requests/s
    local name="$1" url="$2"; shift 2
    local header=()
    [ $# -eq 0 ] || header=(-H "$1")
    PATHS_FILE="$work/replay.db.paths" wrk -t2 -c64 -d"${duration}s" "${header[@]}" -s Benchmarks/paths.lua "$url" >"$work/$name.wrk"
    awk '/Requests\/sec/ { print $2 }' "$work/$name.wrk"
}

for url in "$main_url" "$session_url"; do  # warm-up, discarded
    PATHS_FILE="$work/replay.db.paths" wrk -t2 -c64 -d2s -s Benchmarks/paths.lua "$url" >/dev/null
done
main_rates=("$(rate main-0 "$main_url")")
session_ratios=()
header_ratios=()
for round in $(seq 1 "$rounds"); do
    session="$(rate "session-$round" "$session_url")"
    main_a="$(rate "main-$round-a" "$main_url")"
    header="$(rate "header-$round" "$main_url" "X-Cassette-Session: $session_id")"
    main_b="$(rate "main-$round-b" "$main_url")"
    before="${main_rates[-1]}"
    main_rates+=("$main_a" "$main_b")
    session_ratios+=("$(awk -v s="$session" -v a="$before" -v b="$main_a" 'BEGIN { printf "%.1f", 100 * s / ((a + b) / 2) }')")
    header_ratios+=("$(awk -v h="$header" -v a="$main_a" -v b="$main_b" 'BEGIN { printf "%.1f", 100 * h / ((a + b) / 2) }')")
    echo "round $round: main $before, session port $session (${session_ratios[-1]}%), main $main_a, main port + X-Cassette-Session $header (${header_ratios[-1]}%), main $main_b"
done
median() { printf '%s\n' "$@" | sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
echo "session port: median $(median "${session_ratios[@]}")% of the main port (rounds: ${session_ratios[*]}; target >= 95%)"
echo "main port with X-Cassette-Session: median $(median "${header_ratios[@]}")% of the main port (rounds: ${header_ratios[*]})"
# The same comparison with both measured at once: a wrk on the main port and one on the session's
# port side by side, 32 connections each, so whatever else the machine does slows both alike.
together_ratios=()
for round in $(seq 1 "$rounds"); do
    PATHS_FILE="$work/replay.db.paths" wrk -t1 -c32 -d"${duration}s" -s Benchmarks/paths.lua "$main_url" >"$work/together-main-$round.wrk" &
    main_wrk=$!
    PATHS_FILE="$work/replay.db.paths" wrk -t1 -c32 -d"${duration}s" -s Benchmarks/paths.lua "$session_url" >"$work/together-session-$round.wrk"
    wait "$main_wrk"
    main="$(awk '/Requests\/sec/ { print $2 }' "$work/together-main-$round.wrk")"
    session="$(awk '/Requests\/sec/ { print $2 }' "$work/together-session-$round.wrk")"
    together_ratios+=("$(awk -v s="$session" -v m="$main" 'BEGIN { printf "%.1f", 100 * s / m }')")
    echo "together, round $round: main port $main, session port $session (${together_ratios[-1]}%)"
done
echo "session port beside the main port at the same time: median $(median "${together_ratios[@]}")% (rounds: ${together_ratios[*]}; target >= 95%)"
journal="$(curl -s "$main_url/__cassette/sessions/$session_id" | python3 -c 'import json, sys; print(json.load(sys.stdin)["requests"])')"
echo "the session journaled $journal requests"

# Time to a served request: POST /__cassette/sessions, then GET on the new baseURL (fresh
# connections, as a test opening a session would), against one GET on the main port over a
# fresh connection; 30 sessions, each ended after its request.
python3 - "$main_url" "$(head -n1 "$work/replay.db.paths")" <<'PY'
import http.client, json, statistics, sys, time, urllib.parse

main = urllib.parse.urlparse(sys.argv[1])
path = sys.argv[2]

def request(host, port, method, target, body=None):
    connection = http.client.HTTPConnection(host, port)
    connection.request(method, target, body=body)
    response = connection.getresponse()
    data = response.read()
    connection.close()
    return response.status, data

opening, plain = [], []
for _ in range(30):
    started = time.perf_counter()
    status, data = request(main.hostname, main.port, "GET", path)
    plain.append(time.perf_counter() - started)
    assert status == 200, status
    started = time.perf_counter()
    status, data = request(main.hostname, main.port, "POST", "/__cassette/sessions", json.dumps({"cassette": "bench"}))
    assert status == 201, data
    created = json.loads(data)
    base = urllib.parse.urlparse(created["baseURL"])
    status, _ = request(base.hostname, base.port, "GET", path)
    opening.append(time.perf_counter() - started)
    assert status == 200, status
    request(main.hostname, main.port, "DELETE", "/__cassette/sessions/" + created["id"])
ms = lambda values: statistics.median(values) * 1000
print("POST /__cassette/sessions to its first served request: median %.2f ms (p90 %.2f ms) over %d sessions; one request on the main port: median %.2f ms"
      % (ms(opening), sorted(opening)[int(len(opening) * 0.9)] * 1000, len(opening), ms(plain)))
PY
stop_server "$proxy_pid"
