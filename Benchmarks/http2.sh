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
# Section 2, the ceiling: bench-rest-bare, the least SwiftNIO does to answer the same GETs with the
# same bytes (fetched from the replay), over HTTP/1.1 (NIOHTTP1) and over HTTP/2 (swift-nio-http2's
# handler, answered at the connection), in the same alternation: what HTTP/2 costs in the library
# itself, which no server built on it beats. Then the replay's HTTP/2 against that bare HTTP/2.
# CEILING=0 leaves it out.
set -euo pipefail
cd "$(dirname "$0")/.."
duration="${DURATION:-5}"
rounds="${ROUNDS:-8}"
connections="${CONNECTIONS:-64}"
streams="${STREAMS:-1}"

scripts/ensure-deps.sh h2load
source scripts/lib.sh
bin="${BENCH_BIN_DIR:-$(CONFIGURATION=release build_products bench-tool bench-rest-bare)}"
new="${CASSETTE_NEW:-$(CONFIGURATION=release build_products cassette)/cassette}"
open_workspace

"$bin/bench-tool" make-store "$work/replay.db" 300 mixed >/dev/null
read -r pid url < <(start_server "$work/replay.log" "$new" replay --db "$work/replay.db" --cassette bench --port 0 --quiet)
pids+=("$pid")
sed "s|^|$url|" "$work/replay.db.paths" >"$work/uris"

rate() {  # STREAMS PROTOCOL-FLAGS...: one h2load round against URIS (default: the replay's), prints requests/s
    local m="$1"; shift
    h2load "$@" -c "$connections" -t 2 -m "$m" -D "$duration" --warm-up-time 1 -i "${URIS:-$work/uris}" >"$work/round.out" 2>&1
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

[ "${CEILING:-1}" = 1 ] || exit 0
# alternate NAME-A NAME-B: ROUNDS rounds of `rate` with A's then B's arguments (A_ARGS, B_ARGS
# arrays), each B round against the mean of the A rounds either side; prints each round and the medians.
alternate() {
    local a_name="$1" b_name="$2" last next r
    last="$(URIS="$a_uris" rate "${a_args[@]}")"
    local ratios=() as=("$last") bs=()
    for round in $(seq 1 "$rounds"); do
        r="$(URIS="$b_uris" rate "${b_args[@]}")"
        next="$(URIS="$a_uris" rate "${a_args[@]}")"
        bs+=("$r") as+=("$next")
        ratios+=("$(awk -v x="$r" -v a="$last" -v b="$next" 'BEGIN { printf "%.3f", x / ((a + b) / 2) }')")
        echo "round $round: $a_name $last, $b_name $r, $a_name $next: $b_name/$a_name ${ratios[-1]}"
        last="$next"
    done
    echo "median req/s: $a_name $(median "${as[@]}"), $b_name $(median "${bs[@]}"); median ratio $b_name / $a_name: $(median "${ratios[@]}")"
}
mkdir -p "$work/answers"
for kind in small:0 medium:1 large:2; do
    curl -sS -D "$work/answers/${kind%%:*}.headers" -o "$work/answers/${kind%%:*}.body" "$url/api/${kind%%:*}/${kind##*:}"
done
read -r bare1_pid bare1_url < <(start_server "$work/bare-h1.log" "$bin/bench-rest-bare" h1 "$work/answers")
read -r bare2_pid bare2_url < <(start_server "$work/bare-h2.log" "$bin/bench-rest-bare" h2 "$work/answers")
pids+=("$bare1_pid" "$bare2_pid")
sed "s|^|$bare1_url|" "$work/replay.db.paths" >"$work/bare1.uris"
sed "s|^|$bare2_url|" "$work/replay.db.paths" >"$work/bare2.uris"
for check in "$work/bare1.uris:--http1.1" "$work/bare2.uris:--http2-prior-knowledge"; do
    cmp -s <(curl -sS "${check##*:}" "$(sed -n 3p "${check%:*}")") "$work/answers/large.body" ||
        { echo "error: bench-rest-bare answers other bytes than the replay (${check##*:})" >&2; exit 1; }
done
echo "==> 2. the ceiling: bench-rest-bare over HTTP/1.1 (--h1, -m 1) and HTTP/2 (-m $streams), alternating, $rounds rounds"
a_uris="$work/bare1.uris" b_uris="$work/bare2.uris" a_args=(1 --h1) b_args=("$streams")
alternate "bare-h1" "bare-h2"
echo "==> 3. the replay's HTTP/2 against bench-rest-bare's HTTP/2 (-m $streams), alternating, $rounds rounds"
a_uris="$work/bare2.uris" b_uris="$work/uris" a_args=("$streams") b_args=("$streams")
alternate "bare-h2" "replay-h2"
