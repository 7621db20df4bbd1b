#!/usr/bin/env bash
# REST replay over HTTP/2 (prior knowledge) against the same over HTTP/1.1, one `cassette replay`
# on section 1's store (300 mixed recordings), both driven by h2load (nghttp2-client: `--h1` for
# HTTP/1.1) with the same connections, in alternating rounds; each HTTP/2 round is compared with the
# mean of the HTTP/1.1 rounds either side of it. Writes nothing. Needs the machine to itself.
#   Benchmarks/http2.sh                                    # 8 rounds of 5 s, 64 connections
#   CASSETTE_NEW=/path/cassette BENCH_BIN_DIR=/dir DURATION=3 ROUNDS=4 CONNECTIONS=16 Benchmarks/http2.sh
#   STREAMS=10 Benchmarks/http2.sh    # HTTP/2 rounds with 10 concurrent streams per connection
# The HTTP/1.1 path against an older build (the preface detection's cost) is Benchmarks/compare.sh
# with RECORD=0.
set -euo pipefail
cd "$(dirname "$0")/.."
duration="${DURATION:-5}"
rounds="${ROUNDS:-8}"
connections="${CONNECTIONS:-64}"
streams="${STREAMS:-1}"

scripts/ensure-deps.sh h2load
source scripts/lib.sh
bin="${BENCH_BIN_DIR:-$(CONFIGURATION=release build_products bench-tool)}"
new="${CASSETTE_NEW:-$(CONFIGURATION=release build_products cassette)/cassette}"
open_workspace

"$bin/bench-tool" make-store "$work/replay.db" 300 mixed >/dev/null
read -r pid url < <(start_server "$work/replay.log" "$new" replay --db "$work/replay.db" --cassette bench --port 0 --quiet)
pids+=("$pid")
sed "s|^|$url|" "$work/replay.db.paths" >"$work/uris"

rate() {  # STREAMS PROTOCOL-FLAGS...: one h2load round, prints requests/s
    local m="$1"; shift
    h2load "$@" -c "$connections" -t 2 -m "$m" -D "$duration" --warm-up-time 1 -i "$work/uris" >"$work/round.out" 2>&1
    grep -q "succeeded, 0 failed, 0 errored" "$work/round.out" || { cat "$work/round.out" >&2; exit 1; }
    awk '/^finished in/ { sub(/,$/, "", $4); print $4 }' "$work/round.out"
}
median() { printf '%s\n' "$@" | sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

echo "cassette: $new"
echo "==> replay, h2load -c $connections -t 2 -D $duration, HTTP/1.1 (--h1, -m 1) and HTTP/2 (prior knowledge, -m $streams) alternating, $rounds rounds"
last="$(rate 1 --h1)"
ratios=() h1=("$last") h2=()
for round in $(seq 1 "$rounds"); do
    r="$(rate "$streams")"
    next="$(rate 1 --h1)"
    h2+=("$r") h1+=("$next")
    ratio="$(awk -v x="$r" -v a="$last" -v b="$next" 'BEGIN { printf "%.3f", x / ((a + b) / 2) }')"
    ratios+=("$ratio")
    echo "round $round: h1 $last, h2 $r, h1 $next: h2/h1 $ratio"
    last="$next"
done
echo "median req/s: HTTP/1.1 $(median "${h1[@]}"), HTTP/2 $(median "${h2[@]}"); median ratio HTTP/2 / HTTP/1.1: $(median "${ratios[@]}")"
