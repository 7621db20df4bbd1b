#!/usr/bin/env bash
# Replay throughput with the web UI's Live view following, against the same proxy with nobody
# following, in one run (issue 38: at least 0.95x). One `cassette replay` of section 1's store (300
# mixed recordings, wrk -t2 -c64 cycling through every path). Rounds alternate: alone, followed,
# alone, followed, ...; each followed round is compared with the mean of the alone rounds either
# side of it, so a machine that slows down or speeds up moves both sides alike.
#
# The follower is what a Live page's EventSource is: one connection to /__cassette/ui/api/live
# reading every event the feed sends (curl -N into a file, counted after the round), so the figure
# is the proxy's cost, not a browser's. It prints the events it received and how many the feed dropped for it.
#   Benchmarks/live.sh                           # 7 rounds of 5 s each side, release build
#   DURATION=2 ROUNDS=1 CONFIGURATION=debug Benchmarks/live.sh   # a smoke run
#   BENCH_BIN_DIR=.build/release Benchmarks/live.sh              # binaries built before
set -euo pipefail
cd "$(dirname "$0")/.."
duration="${DURATION:-5}"
rounds="${ROUNDS:-7}"

scripts/ensure-deps.sh wrk curl
source scripts/lib.sh
bin="${BENCH_BIN_DIR:-$(CONFIGURATION="${CONFIGURATION:-release}" build_products cassette bench-tool)}"
open_workspace

ticks() { awk '{ print $14 + $15 }' "/proc/$pid/stat"; }  # the proxy's CPU time (user + system), in 1/100 s
rate() {  # NAME URL: one wrk round, prints requests/s and the proxy's CPU microseconds per request
    local before after
    before="$(ticks)"
    PATHS_FILE="$work/replay.db.paths" wrk -t2 -c64 -d"${duration}s" -s Benchmarks/paths.lua "$2" >"$work/$1.wrk"
    after="$(ticks)"
    awk -v t=$((after - before)) '/requests in/ { n = $1 } /Requests\/sec/ { r = $2 } END { printf "%s %.2f\n", r, t * 10000 / n }' "$work/$1.wrk"
}
median() { printf '%s\n' "$@" | sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

"$bin/bench-tool" make-store "$work/replay.db" 300 mixed >/dev/null
echo "    replay: $bin/cassette replay --db replay.db --cassette bench --port 0"
read -r pid url < <(start_server "$work/replay.log" "$bin/cassette" replay --db "$work/replay.db" --cassette bench --port 0)
pids+=("$pid")
PATHS_FILE="$work/replay.db.paths" wrk -t2 -c64 -d2s -s Benchmarks/paths.lua "$url" >/dev/null

echo "==> replay, wrk -t2 -c64 -d${duration}s, $rounds rounds: alone, then with a Live follower"
read -r last last_cpu < <(rate alone-0 "$url")
ratios=() alone=("$last") followed=() cpu_ratios=()
for round in $(seq 1 "$rounds"); do
    # The follower ends by itself (--max-time) a little after wrk; its stream is counted after.
    curl -sN --max-time $((duration + 2)) -o "$work/follower-$round.sse" "$url/__cassette/ui/api/live" &
    follower=$!
    sleep 0.5
    read -r with with_cpu < <(rate followed-$round "$url")
    wait "$follower" || true
    read -r next next_cpu < <(rate alone-$round "$url")
    read -r received dropped < <(awk '
        /^event: request/ { received++ }
        /^data: \{"count":/ { sub(/^data: \{"count":/, ""); sub(/\}.*/, ""); dropped += $0 }
        END { print received + 0, dropped + 0 }' "$work/follower-$round.sse")
    pct="$(awk -v w="$with" -v a="$last" -v b="$next" 'BEGIN { printf "%.1f", 100 * w / ((a + b) / 2) }')"
    cpu_pct="$(awk -v w="$with_cpu" -v a="$last_cpu" -v b="$next_cpu" 'BEGIN { printf "%.1f", 100 * w / ((a + b) / 2) }')"
    requests="$(awk '/requests in/ { print $1 }' "$work/followed-$round.wrk")"
    echo "round $round: alone $last, followed $with ($pct%), alone $next; proxy CPU per request: alone $last_cpu µs, followed $with_cpu µs ($cpu_pct%), alone $next_cpu µs; the follower received $received events of $requests requests, $dropped dropped"
    ratios+=("$pct") alone+=("$next") followed+=("$with") cpu_ratios+=("$cpu_pct")
    last="$next" last_cpu="$next_cpu"
done
echo "followed/alone requests/s: median $(median "${ratios[@]}")% (rounds: ${ratios[*]})"
echo "followed/alone proxy CPU per request: median $(median "${cpu_ratios[@]}")% (rounds: ${cpu_ratios[*]})"
echo "requests/s alone: median $(median "${alone[@]}"); followed: median $(median "${followed[@]}")"
stop_server "$pid"
