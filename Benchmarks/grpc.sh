#!/usr/bin/env bash
# Unary gRPC (issue 46): `cassette replay` against a bare swift-nio-http2 server answering the same
# bytes (bench-grpc), and what `cassette record` adds to a call. Writes nothing. Needs the machine
# to itself: no builds meanwhile.
#  1. bench-grpc serves `shop.v1.Catalog/GetItem`; one call recorded through `cassette record`
#     (curl --http2-prior-knowledge), then `cassette replay --grpc-timing fast` of that store (the
#     bare server answers at once, so the recorded wait is left out) with no upstream. Both
#     answers are checked byte for byte (message and `grpc-status: 0`) before any round.
#  2. Throughput: h2load (nghttp2-client) unary calls against the bare server and the replay in
#     alternating rounds; each replay round is compared with the mean of the bare rounds either
#     side of it.
#     Then the server's CPU time per call (user+sys from /proc/PID/stat, h2load -n CPU_CALLS), which
#     hardly depends on what else the shared machine runs, in the same alternation.
#  3. Recording cost: one call at a time (h2load -c 1 -m 1, per-call times from --log-file),
#     straight to bench-grpc and through `cassette record` in front of it, alternating; the
#     difference of the p50s per pair of rounds.
#   Benchmarks/grpc.sh                                   # 8 rounds of 5 s, 16 connections, 1 stream each
#   STREAMS=10 CONNECTIONS=8 Benchmarks/grpc.sh          # 10 concurrent calls per connection
#   CASSETTE_NEW=/path/cassette BENCH_BIN_DIR=/dir DURATION=3 ROUNDS=4 CALLS=1000 Benchmarks/grpc.sh
set -euo pipefail
cd "$(dirname "$0")/.."
duration="${DURATION:-5}"
rounds="${ROUNDS:-8}"
connections="${CONNECTIONS:-16}"
streams="${STREAMS:-1}"
calls="${CALLS:-2000}"
cpu_calls="${CPU_CALLS:-30000}"

scripts/ensure-deps.sh h2load
source scripts/lib.sh
bin="${BENCH_BIN_DIR:-$(CONFIGURATION=release build_products bench-grpc)}"
new="${CASSETTE_NEW:-$(CONFIGURATION=release build_products cassette)/cassette}"
open_workspace

# GetItemRequest { id: "item-1", quantity: 2 }, length-prefixed.
printf '\x00\x00\x00\x00\x0a\x0a\x06item-1\x10\x02' >"$work/request.bin"
method=/shop.v1.Catalog/GetItem
grpc_headers=(-H 'content-type: application/grpc' -H 'te: trailers')

read -r bare_pid bare_url < <(start_server "$work/bare.log" "$bin/bench-grpc" 0)
pids+=("$bare_pid")

call() {  # URL NAME: one call with curl; its message in NAME.body, headers and trailers in NAME.headers
    curl -sS --http2-prior-knowledge --max-time 10 "${grpc_headers[@]}" --data-binary @"$work/request.bin" \
        -D "$work/$2.headers" -o "$work/$2.body" "$1$method"
    grep -qi '^grpc-status: 0' "$work/$2.headers" || { echo "error: $1$method did not end with grpc-status 0:" >&2; cat "$work/$2.headers" >&2; exit 1; }
}

read -r rec_pid rec_url < <(start_server "$work/record.log" "$new" record --upstream "$bare_url" --db "$work/grpc.db" --port 0 --quiet)
call "$rec_url" recorded
kill -TERM "$rec_pid"; wait "$rec_pid" 2>/dev/null || true
read -r rep_pid rep_url < <(start_server "$work/replay.log" "$new" replay --db "$work/grpc.db" --strict --grpc-timing fast --port 0 --quiet)
pids+=("$rep_pid")
call "$bare_url" bare
call "$rep_url" replayed
cmp -s "$work/bare.body" "$work/replayed.body" || { echo "error: the replayed message differs from the bare server's" >&2; exit 1; }

rate() {  # URL: one h2load round of unary calls, prints calls/s
    h2load "${grpc_headers[@]}" -d "$work/request.bin" -c "$connections" -t 2 -m "$streams" -D "$duration" --warm-up-time 1 \
        "$1$method" >"$work/round.out" 2>&1
    grep -q "succeeded, 0 failed, 0 errored" "$work/round.out" || { cat "$work/round.out" >&2; exit 1; }
    awk '/^finished in/ { sub(/,$/, "", $4); print $4 }' "$work/round.out"
}
p50() {  # URL: CALLS calls one at a time, prints the median call time in ms
    h2load "${grpc_headers[@]}" -d "$work/request.bin" -c 1 -t 1 -m 1 -n "$calls" --log-file="$work/calls.log" "$1$method" >"$work/round.out" 2>&1
    grep -q "$calls succeeded, 0 failed" "$work/round.out" || { cat "$work/round.out" >&2; exit 1; }
    awk '{ print $3 }' "$work/calls.log" | sort -n | awk '{ v[NR] = $1 } END { printf "%.3f\n", v[int((NR + 1) / 2)] / 1000 }'
}
cpu() {  # URL PID: CPU_CALLS calls after 2000 to warm up, prints the server's CPU µs per call
    h2load "${grpc_headers[@]}" -d "$work/request.bin" -c "$connections" -t 1 -m "$streams" -n 2000 "$1$method" >/dev/null 2>&1
    local a b
    a="$(awk '{ print $14 + $15 }' "/proc/$2/stat")"
    h2load "${grpc_headers[@]}" -d "$work/request.bin" -c "$connections" -t 1 -m "$streams" -n "$cpu_calls" "$1$method" >"$work/round.out" 2>&1
    b="$(awk '{ print $14 + $15 }' "/proc/$2/stat")"
    grep -q "$cpu_calls succeeded, 0 failed" "$work/round.out" || { cat "$work/round.out" >&2; exit 1; }
    awk -v t=$((b - a)) -v n="$cpu_calls" -v hz="$(getconf CLK_TCK)" 'BEGIN { printf "%.2f\n", t * 1000000 / hz / n }'
}
median() { printf '%s\n' "$@" | sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

echo "cassette: $new"
echo "==> 1. unary replay against bench-grpc, h2load -c $connections -t 2 -m $streams -D $duration, alternating, $rounds rounds"
last="$(rate "$bare_url")"
ratios=() bare=("$last") replayed=()
for round in $(seq 1 "$rounds"); do
    r="$(rate "$rep_url")"
    next="$(rate "$bare_url")"
    replayed+=("$r") bare+=("$next")
    ratio="$(awk -v x="$r" -v a="$last" -v b="$next" 'BEGIN { printf "%.3f", x / ((a + b) / 2) }')"
    ratios+=("$ratio")
    echo "round $round: bare $last, replay $r, bare $next: replay/bare $ratio"
    last="$next"
done
echo "median calls/s: bare $(median "${bare[@]}"), replay $(median "${replayed[@]}"); median ratio replay / bare: $(median "${ratios[@]}")"
echo "==> 1b. server CPU per call (µs), h2load -c $connections -m $streams -n $cpu_calls, alternating, $rounds rounds"
cpu_ratios=() cpu_bare=() cpu_replay=()
for round in $(seq 1 "$rounds"); do
    b="$(cpu "$bare_url" "$bare_pid")"
    r="$(cpu "$rep_url" "$rep_pid")"
    cpu_bare+=("$b") cpu_replay+=("$r")
    cpu_ratios+=("$(awk -v r="$r" -v b="$b" 'BEGIN { printf "%.3f", r / b }')")
    echo "round $round: bare $b, replay $r: replay/bare ${cpu_ratios[-1]}"
done
echo "median CPU µs per call: bare $(median "${cpu_bare[@]}"), replay $(median "${cpu_replay[@]}"); median ratio replay / bare: $(median "${cpu_ratios[@]}") (below 1.11 is 0.9x of the bare server's calls per CPU second)"
curl -sS "$rep_url/__cassette/stats" >"$work/stats.json"
grep -q '"misses" *: *0\|"missed" *: *0' "$work/stats.json" || { echo "error: the replay missed:" >&2; cat "$work/stats.json" >&2; exit 1; }

echo "==> 2. recording cost: $calls calls one at a time, straight to bench-grpc and through cassette record, alternating, $rounds rounds"
read -r rec_pid rec_url < <(start_server "$work/record2.log" "$new" record --upstream "$bare_url" --db "$work/recorded.db" --port 0 --quiet)
pids+=("$rec_pid")
p50 "$rec_url" >/dev/null
added=()
for round in $(seq 1 "$rounds"); do
    direct="$(p50 "$bare_url")"
    through="$(p50 "$rec_url")"
    add="$(awk -v a="$through" -v b="$direct" 'BEGIN { printf "%.3f", a - b }')"
    added+=("$add")
    echo "round $round: p50 straight $direct ms, through record $through ms: added $add ms"
done
echo "median p50 added by recording: $(median "${added[@]}") ms per unary call"
