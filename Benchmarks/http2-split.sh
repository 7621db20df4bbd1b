#!/usr/bin/env bash
# Where a request's server CPU goes, for the REST replay over HTTP/1.1 and HTTP/2 and for
# bench-rest-bare's bare servers (Benchmarks/http2.sh's ceiling): perf samples the server while
# h2load (16 connections, one thread, one stream per connection) sends N requests on section 1's
# store, and Benchmarks/perf-split.py divides the samples into the kernel, frames of
# swift-nio-http2 (NIOHTTP2, NIOHPACK) and of everything above it, in µs per request. CPU time per
# request hardly depends on what else the machine runs; requests/s does (Benchmarks/http2.sh).
#   CASSETTE_NEW=/path/cassette BENCH_BIN_DIR=/dir Benchmarks/http2-split.sh      # N=150000
set -euo pipefail
cd "$(dirname "$0")/.."
n="${N:-150000}"
scripts/ensure-deps.sh h2load perf
source scripts/lib.sh
bin="${BENCH_BIN_DIR:-$(CONFIGURATION=release build_products bench-tool bench-rest-bare)}"
new="${CASSETTE_NEW:-$(CONFIGURATION=release build_products cassette)/cassette}"
open_workspace

"$bin/bench-tool" make-store "$work/replay.db" 300 mixed >/dev/null
read -r replay_pid replay_url < <(start_server "$work/replay.log" "$new" replay --db "$work/replay.db" --cassette bench --port 0 --quiet)
pids+=("$replay_pid")
mkdir -p "$work/answers"
for kind in small:0 medium:1 large:2; do
    curl -sS -D "$work/answers/${kind%%:*}.headers" -o "$work/answers/${kind%%:*}.body" "$replay_url/api/${kind%%:*}/${kind##*:}"
done
read -r h1_pid h1_url < <(start_server "$work/bare-h1.log" "$bin/bench-rest-bare" h1 "$work/answers")
read -r h2_pid h2_url < <(start_server "$work/bare-h2.log" "$bin/bench-rest-bare" h2 "$work/answers")
pids+=("$h1_pid" "$h2_pid")

split() {  # NAME PID URL H2LOAD-FLAGS...: one perf-sampled h2load run, one line of µs per request
    local name="$1" pid="$2" url="$3"; shift 3
    sed "s|^|$url|" "$work/replay.db.paths" >"$work/uris"
    h2load "$@" -c 16 -t 1 -n 4000 -i "$work/uris" >/dev/null 2>&1
    perf record -F 2000 -g -p "$pid" -o "$work/$name.data" 2>/dev/null & local perf_pid=$!
    sleep 0.5
    h2load "$@" -c 16 -t 1 -n "$n" -i "$work/uris" >"$work/round.out" 2>&1
    kill -INT "$perf_pid"; wait "$perf_pid" || true
    grep -q "$n succeeded, 0 failed" "$work/round.out" || { cat "$work/round.out" >&2; exit 1; }
    perf script -i "$work/$name.data" 2>/dev/null | python3 Benchmarks/perf-split.py "$name" "$n"
}
echo "server CPU per request (µs), h2load -c 16 -t 1 -n $n, one stream per connection"
split bare-h1 "$h1_pid" "$h1_url" --h1
split replay-h1 "$replay_pid" "$replay_url" --h1
split bare-h2 "$h2_pid" "$h2_url"
split replay-h2 "$replay_pid" "$replay_url"
