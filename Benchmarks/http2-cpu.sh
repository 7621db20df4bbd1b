#!/usr/bin/env bash
# Benchmarks/http2-cpu.sh BINARY N [h2load flags]: the server's CPU time (user+sys, from
# /proc/PID/stat) per request of `cassette replay` on section 1's store, in µs, for N requests by
# h2load (16 connections) after 4000 to warm up. CPU time per request, unlike requests/s, hardly
# depends on what else the shared machine runs (valgrind 3.19 cannot run the release binary and
# perf has no instruction counter here). Needs BENCH_BIN_DIR's bench-tool.
#   Benchmarks/http2-cpu.sh .build-rel/release/cassette 30000 --h1     # HTTP/1.1
#   Benchmarks/http2-cpu.sh .build-rel/release/cassette 30000          # HTTP/2, 1 stream per connection
#   Benchmarks/http2-cpu.sh .build-rel/release/cassette 30000 -m 10    # HTTP/2, 10 streams
set -euo pipefail
bin="$1"; n="$2"; shift 2
w=$(mktemp -d)
trap 'rm -rf "$w"' EXIT
"${BENCH_BIN_DIR:-/tmp/bench-bin}/bench-tool" make-store $w/replay.db 300 mixed >/dev/null
log=$(mktemp)
"$bin" replay --db $w/replay.db --cassette bench --port 0 --quiet >$log 2>&1 &
pid=$!
for i in $(seq 1 200); do grep -q '^listening on ' $log && break; sleep 0.1; done
url=$(sed -n 's/^listening on //p' $log | head -n1)
sed "s|^|$url|" $w/replay.db.paths >$log.uris
ticks() { awk '{ print $14 + $15 }' /proc/$pid/stat; }
h2load "$@" -c 16 -t 1 -n 4000 -i $log.uris >/dev/null 2>&1
a=$(ticks)
h2load "$@" -c 16 -t 1 -n "$n" -i $log.uris >$log.out 2>&1
b=$(ticks)
grep -q "$n succeeded, 0 failed" $log.out || { cat $log.out; }
kill -TERM $pid; wait $pid 2>/dev/null || true
hz=$(getconf CLK_TCK)
awk -v t=$((b - a)) -v n="$n" -v hz="$hz" 'BEGIN { printf "%.2f\n", t * 1000000 / hz / n }'
rm -f $log $log.uris $log.out
