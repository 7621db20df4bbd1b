#!/usr/bin/env bash
# Two builds of `cassette replay --ws-timing fast` against the bare echo server, in the same run:
# Benchmarks/websocket.sh's replay part with one replay server per build, both replaying the same
# recorded echo conversation. Each round runs baseline, old, new, and the ratio of each replay
# round is taken against the mean of the baseline rounds either side of it; medians are reported.
#   OLD=/tmp/main-build NEW=.build/release Benchmarks/websocket-compare.sh
# OLD and NEW hold a `cassette`; the echo server and the load client are NEW's `bench-websocket`
# (CLIENT_BIN to take another's).
set -euo pipefail
cd "$(dirname "$0")/.."
rounds="${ROUNDS:-5}"
duration="${DURATION:-5}"
turns="${TURNS:-2000}"
old="${OLD:?OLD: the directory of the build to compare against}"
new="${NEW:-.build/release}"
client="${CLIENT_BIN:-$new}/bench-websocket"

source scripts/lib.sh
open_workspace
results="$work/results"
mkdir -p "$results"

read -r echo_pid echo_url < <(start_server "$work/echo.log" "$client" echo)
pids+=("$echo_pid")
read -r rec_pid rec_url < <(start_server "$work/record.log" "$new/cassette" record --upstream "$echo_url" --db "$work/ws.db" --port 0 --quiet)
pids+=("$rec_pid")
"$client" load "$rec_url/echo" 1 0 "$turns" >/dev/null
stop_server "$rec_pid"
read -r old_pid old_url < <(start_server "$work/old.log" "$old/cassette" replay --db "$work/ws.db" --port 0 --quiet --ws-timing fast)
pids+=("$old_pid")
read -r new_pid new_url < <(start_server "$work/new.log" "$new/cassette" replay --db "$work/ws.db" --port 0 --quiet --ws-timing fast)
pids+=("$new_pid")

load() {  # NAME URL CONNECTIONS
    "$client" load "$2/echo" "$3" "$duration" "$turns" >"$results/$1.json"
    echo "    $1: $(cat "$results/$1.json")"
}

for connections in 1 64; do
    load "warm-baseline-$connections" "$echo_url" "$connections" >/dev/null
    load "warm-old-$connections" "$old_url" "$connections" >/dev/null
    load "warm-new-$connections" "$new_url" "$connections" >/dev/null
    for round in $(seq 1 "$rounds"); do
        load "baseline-$connections-$round" "$echo_url" "$connections"
        load "old-$connections-$round" "$old_url" "$connections"
        load "new-$connections-$round" "$new_url" "$connections"
    done
    load "baseline-$connections-$(( rounds + 1 ))" "$echo_url" "$connections"
done

python3 - "$results" "$rounds" "$old" "$new" <<'PY'
import json, statistics, sys
results, rounds, old, new = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
def rate(name):
    return json.load(open("%s/%s.json" % (results, name)))["per_second"]
print()
print("| connections | baseline msg/s | old (%s) msg/s | old / baseline | new (%s) msg/s | new / baseline | new / old |" % (old, new))
print("|---|---:|---:|---:|---:|---:|---:|")
for c in (1, 64):
    base = [(rate("baseline-%d-%d" % (c, r)) + rate("baseline-%d-%d" % (c, r + 1))) / 2 for r in range(1, rounds + 1)]
    olds = [rate("old-%d-%d" % (c, r)) for r in range(1, rounds + 1)]
    news = [rate("new-%d-%d" % (c, r)) for r in range(1, rounds + 1)]
    med = statistics.median
    print("| %d | %.0f | %.0f | %.3fx | %.0f | %.3fx | %.3fx |" % (
        c, med(base), med(olds), med([o / b for o, b in zip(olds, base)]), med(news), med([n / b for n, b in zip(news, base)]),
        med([n / o for n, o in zip(news, olds)])))
PY
