#!/usr/bin/env bash
# WebSocket replay and recording against a minimal SwiftNIO WebSocket echo server (the baseline,
# `bench-websocket echo`), all in the same run. The load client (`bench-websocket load`) sends
# `message N` and waits for its echo, TURNS times per connection, then closes and reconnects.
#  1. Replay: one echo conversation of TURNS messages recorded through `cassette record`, then
#     `cassette replay --ws-timing fast` against the echo server, messages per second with 1 and
#     with 64 connections. Every replay round sits between two baseline rounds; the ratio of each
#     is taken against their mean, and the median of the ratios is reported.
#  2. Recording: round-trip p50 at 1 connection through `cassette record` against straight to the
#     echo server, alternating; the added latency is the median of the per-round differences.
#   Benchmarks/websocket.sh                               # release build, 5 rounds of 5 s
#   CONFIGURATION=debug ROUNDS=1 DURATION=2 Benchmarks/websocket.sh   # smoke run
#   BIN=/tmp/old-build Benchmarks/websocket.sh                  # binaries built before
set -euo pipefail
cd "$(dirname "$0")/.."
rounds="${ROUNDS:-5}"
duration="${DURATION:-5}"
turns="${TURNS:-2000}"

source scripts/lib.sh
# BIN: a directory holding `cassette` and `bench-websocket` built before (another commit's, to compare).
bin="${BIN:-$(CONFIGURATION="${CONFIGURATION:-release}" build_products cassette bench-websocket)}"
open_workspace
results="$work/results"
mkdir -p "$results"

read -r echo_pid echo_url < <(start_server "$work/echo.log" "$bin/bench-websocket" echo)
pids+=("$echo_pid")

# One conversation of $turns echoes, recorded.
read -r rec_pid rec_url < <(start_server "$work/record.log" "$bin/cassette" record --upstream "$echo_url" --db "$work/ws.db" --port 0 --quiet)
pids+=("$rec_pid")
"$bin/bench-websocket" load "$rec_url/echo" 1 0 "$turns" >"$results/recording.json"
stop_server "$rec_pid"
"$bin/cassette" list --db "$work/ws.db" | tail -n +2 | sed 's/^/    recorded: /'

read -r rep_pid rep_url < <(start_server "$work/replay.log" "$bin/cassette" replay --db "$work/ws.db" --port 0 --quiet --ws-timing fast)
pids+=("$rep_pid")

load() {  # NAME URL CONNECTIONS
    "$bin/bench-websocket" load "$2/echo" "$3" "$duration" "$turns" >"$results/$1.json"
    echo "    $1: $(cat "$results/$1.json")"
}

echo "==> 1. Replay: messages per second, cassette replay --ws-timing fast against the echo server"
for connections in 1 64; do
    load "warm-baseline-$connections" "$echo_url" "$connections" >/dev/null
    load "warm-replay-$connections" "$rep_url" "$connections" >/dev/null
    for round in $(seq 1 "$rounds"); do
        load "baseline-$connections-$round" "$echo_url" "$connections"
        load "replay-$connections-$round" "$rep_url" "$connections"
    done
    load "baseline-$connections-$(( rounds + 1 ))" "$echo_url" "$connections"
done
stop_server "$rep_pid"

echo "==> 2. Recording: round trip at 1 connection, through cassette record against straight to the echo server"
read -r rec_pid rec_url < <(start_server "$work/record-latency.log" "$bin/cassette" record --upstream "$echo_url" --db "$work/latency.db" --port 0 --quiet)
pids+=("$rec_pid")
load "warm-recording" "$rec_url" 1 >/dev/null
for round in $(seq 1 "$rounds"); do
    load "direct-$round" "$echo_url" 1
    load "recording-$round" "$rec_url" 1
done
stop_server "$rec_pid"

python3 - "$results" "$rounds" <<'PY'
import json, statistics, sys
results, rounds = sys.argv[1], int(sys.argv[2])
def read(name):
    return json.load(open("%s/%s.json" % (results, name)))
print()
print("| measure | baseline | cassette | ratio (median of rounds) |")
print("|---|---|---|---|")
for connections in (1, 64):
    ratios, bases, replays = [], [], []
    for r in range(1, rounds + 1):
        before = read("baseline-%d-%d" % (connections, r))["per_second"]
        after = read("baseline-%d-%d" % (connections, r + 1))["per_second"]
        replay = read("replay-%d-%d" % (connections, r))["per_second"]
        ratios.append(replay / ((before + after) / 2))
        bases.append((before + after) / 2)
        replays.append(replay)
    print("| replay, %d connection%s, messages/s | %.0f | %.0f | %.3fx |" % (
        connections, "" if connections == 1 else "s", statistics.median(bases), statistics.median(replays), statistics.median(ratios)))
direct = [read("direct-%d" % r)["p50_ms"] for r in range(1, rounds + 1)]
recording = [read("recording-%d" % r)["p50_ms"] for r in range(1, rounds + 1)]
added = [b - a for a, b in zip(direct, recording)]
print("| recording, 1 connection, round trip p50 | %.3f ms | %.3f ms | +%.3f ms added (median of per-round differences) |" % (
    statistics.median(direct), statistics.median(recording), statistics.median(added)))
PY
