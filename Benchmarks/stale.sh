#!/usr/bin/env bash
# The price of `cassette replay --max-age`: replay throughput with no maximum age (the default),
# with one that no recording exceeds, and with one that every recording exceeds (a warning per
# request, through the request log). Prints requests/s per round; writes nothing.
#   Benchmarks/stale.sh                                   # release build, 5 rounds of 10 s
#   CONFIGURATION=debug DURATION=2 ROUNDS=1 Benchmarks/stale.sh   # smoke run
# The store is made by `cassette import` of a generated HAR: 300 JSON recordings of 100 B to 8 KiB.
set -euo pipefail
cd "$(dirname "$0")/.."
duration="${DURATION:-10}"
rounds="${ROUNDS:-5}"

scripts/ensure-deps.sh wrk
source scripts/lib.sh
bin="$(CONFIGURATION="${CONFIGURATION:-release}" build_products cassette)"
open_workspace

# Recorded 2025-06-15: older than 90 days, younger than 100000.
python3 Benchmarks/items-har.py "$work" --recorded 2025-06-15T15:06:40.000Z
"$bin/cassette" import "$work/items.har" --db "$work/items.db" --cassette bench >/dev/null

measure() {  # NAME FLAGS...
    local name="$1"; shift
    read -r pid url < <(start_server "$work/$name.log" "$bin/cassette" replay --db "$work/items.db" --cassette bench --port 0 --quiet "$@")
    pids+=("$pid")
    PATHS_FILE="$work/paths" wrk -t2 -c64 -d2s -s Benchmarks/paths.lua "$url" >/dev/null
    PATHS_FILE="$work/paths" wrk -t2 -c64 -d"${duration}s" -s Benchmarks/paths.lua "$url" | awk -v n="$name" '/Requests\/sec/ {printf "    %-22s %s req/s\n", n, $2}'
    stop_server "$pid"
}

for round in $(seq 1 "$rounds"); do
    echo "round $round"
    measure "no-max-age"
    measure "max-age-none-stale" --max-age 100000
    measure "max-age-all-stale" --max-age 90 2>/dev/null
done
