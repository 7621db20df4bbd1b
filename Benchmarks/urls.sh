#!/usr/bin/env bash
# The price of serving upstream URLs pointing at the proxy (docs/urls.md): replay throughput of
# 300 recordings that each carry `Link: <upstream URL>; rel="next"`, with rewriting off
# (--no-rewrite-urls), on for a client using the address the answers were prepared for at start-up
# (127.0.0.1:PORT, no work per request), and on for a client naming the proxy differently
# (localhost:PORT, rewritten per request). Prints requests/s per round; writes nothing.
#   Benchmarks/urls.sh                                    # release build, 5 rounds of 10 s
#   CONFIGURATION=debug DURATION=2 ROUNDS=1 Benchmarks/urls.sh   # smoke run
set -euo pipefail
cd "$(dirname "$0")/.."
duration="${DURATION:-10}"
rounds="${ROUNDS:-5}"

scripts/ensure-deps.sh wrk
source scripts/lib.sh
bin="$(CONFIGURATION="${CONFIGURATION:-release}" build_products cassette)"
open_workspace

python3 Benchmarks/items-har.py "$work" --paged
"$bin/cassette" import "$work/items.har" --db "$work/items.db" --cassette bench >/dev/null

free_port() {
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

measure() {  # NAME HOST FLAGS...
    local name="$1" host="$2"; shift 2
    local port; port="$(free_port)"
    read -r pid _ < <(start_server "$work/$name.log" "$bin/cassette" replay --db "$work/items.db" --cassette bench --upstream http://127.0.0.1:8081 --port "$port" --quiet "$@")
    pids+=("$pid")
    local url="http://$host:$port"
    PATHS_FILE="$work/paths" wrk -t2 -c64 -d2s -s Benchmarks/paths.lua "$url" >/dev/null
    PATHS_FILE="$work/paths" wrk -t2 -c64 -d"${duration}s" -s Benchmarks/paths.lua "$url" | awk -v n="$name" '/Requests\/sec/ {printf "    %-26s %s req/s\n", n, $2}'
    stop_server "$pid"
}

for round in $(seq 1 "$rounds"); do
    echo "round $round"
    measure "rewriting-off" 127.0.0.1 --no-rewrite-urls
    measure "prepared-for-this-host" 127.0.0.1
    measure "rewritten-per-request" localhost
done
