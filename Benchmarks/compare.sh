#!/usr/bin/env bash
# Old build against new in one run, in alternating rounds (not part of run.sh; writes nothing):
#  - replay: `bench-baseline`, the old `cassette replay` and the new one on section 1's store (300
#    mixed recordings); every cassette round sits between two baseline rounds and is compared with
#    their mean; old and new take turns going first.
#  - record (RECORD=1, the default): `cassette record --mode all` of each build in front of one
#    `bench-baseline` upstream, each 64-connection round between two rounds straight to the
#    upstream, plus the added p50 at one connection.
# Needs the machine to itself: no builds meanwhile.
#   CASSETTE_OLD=/path/to/old/cassette Benchmarks/compare.sh             # 10 rounds of 5 s
#   CASSETTE_OLD=... CASSETTE_NEW=... BENCH_BIN_DIR=... DURATION=3 ROUNDS=2 RECORD=0 Benchmarks/compare.sh
set -euo pipefail
cd "$(dirname "$0")/.."
duration="${DURATION:-5}"
rounds="${ROUNDS:-10}"

scripts/ensure-deps.sh wrk
source scripts/lib.sh
# BENCH_BIN_DIR and CASSETTE_NEW: binaries built before (say, while nothing else builds).
bin="${BENCH_BIN_DIR:-$(CONFIGURATION=release build_products bench-tool bench-baseline)}"
new="${CASSETTE_NEW:-$(CONFIGURATION=release build_products cassette)/cassette}"
old="${CASSETTE_OLD:?set CASSETTE_OLD to the old cassette binary}"
open_workspace

rate() {  # NAME CONNECTIONS THREADS URL PATHS: one wrk round, prints "requests/s p50-ms"
    PATHS_FILE="$5" wrk -t"$3" -c"$2" -d"${duration}s" --latency -s Benchmarks/paths.lua "$4" >"$work/$1.wrk"
    awk '/Requests\/sec/ { r = $2 } $1 == "50%" { p = $2; if (p ~ /us$/) p = p / 1000; else if (p ~ /ms$/) p = p + 0; else if (p ~ /s$/) p = p * 1000 } END { print r, p }' "$work/$1.wrk"
}
median() { printf '%s\n' "$@" | sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
ratio() { awk -v x="$1" -v a="$2" -v b="$3" 'BEGIN { printf "%.1f", 100 * x / ((a + b) / 2) }'; }
warm() { PATHS_FILE="$2" wrk -t2 -c64 -d2s -s Benchmarks/paths.lua "$1" >/dev/null; }

echo "old: $old"
echo "new: $new"
"$bin/bench-tool" make-store "$work/replay.db" 300 mixed >/dev/null
paths="$work/replay.db.paths"
read -r base_pid base_url < <(start_server "$work/baseline.log" "$bin/bench-baseline" "$work/replay.db")
pids+=("$base_pid")
read -r new_pid new_url < <(start_server "$work/new.log" "$new" replay --db "$work/replay.db" --cassette bench --port 0)
pids+=("$new_pid")
read -r old_pid old_url < <(start_server "$work/old.log" "$old" replay --db "$work/replay.db" --cassette bench --port 0)
pids+=("$old_pid")
for url in "$base_url" "$new_url" "$old_url"; do warm "$url" "$paths"; done

echo "==> replay, wrk -t2 -c64 -d${duration}s, $rounds rounds"
read -r last _ < <(rate base-0 64 2 "$base_url" "$paths")
new_ratios=() old_ratios=() pair_ratios=() base_rates=("$last")
for round in $(seq 1 "$rounds"); do
    order=(new old)
    [ $((round % 2)) = 1 ] || order=(old new)
    line="round $round: base $last"
    for which in "${order[@]}"; do
        url="$new_url"
        [ "$which" = new ] || url="$old_url"
        read -r r _ < <(rate "$which-$round" 64 2 "$url" "$paths")
        read -r next _ < <(rate "base-$round-$which" 64 2 "$base_url" "$paths")
        base_rates+=("$next")
        pct="$(ratio "$r" "$last" "$next")"
        if [ "$which" = new ]; then new_ratios+=("$pct"); else old_ratios+=("$pct"); fi
        line+=", $which $r ($pct%), base $next"
        last="$next"
    done
    pair_ratios+=("$(awk -v n="${new_ratios[-1]}" -v o="${old_ratios[-1]}" 'BEGIN { printf "%.1f", 100 * n / o }')")
    echo "$line; new/old ${pair_ratios[-1]}%"
done
echo "replay new/baseline: median $(median "${new_ratios[@]}")% (rounds: ${new_ratios[*]})"
echo "replay old/baseline: median $(median "${old_ratios[@]}")% (rounds: ${old_ratios[*]})"
echo "replay new/old (each round's ratios): median $(median "${pair_ratios[@]}")% (rounds: ${pair_ratios[*]})"
echo "baseline requests/s: median $(median "${base_rates[@]}")"
stop_server "$new_pid"
stop_server "$old_pid"
stop_server "$base_pid"

[ "${RECORD:-1}" = 1 ] || exit 0
echo "==> record --mode all, wrk -t2 -c64 and -t1 -c1, ${duration}s, $rounds rounds"
"$bin/bench-tool" make-store "$work/upstream.db" 300 small >/dev/null
upaths="$work/upstream.db.paths"
read -r up_pid up_url < <(start_server "$work/upstream.log" "$bin/bench-baseline" "$work/upstream.db")
pids+=("$up_pid")
read -r nrec_pid nrec_url < <(start_server "$work/new-record.log" "$new" record --upstream "$up_url" --mode all --db "$work/new-recorded.db" --port 0 --quiet)
pids+=("$nrec_pid")
read -r orec_pid orec_url < <(start_server "$work/old-record.log" "$old" record --upstream "$up_url" --mode all --db "$work/old-recorded.db" --port 0 --quiet)
pids+=("$orec_pid")
for url in "$up_url" "$nrec_url" "$orec_url"; do warm "$url" "$upaths"; done
read -r last _ < <(rate direct-0 64 2 "$up_url" "$upaths")
nrec=() orec=() nadd=() oadd=()
for round in $(seq 1 "$rounds"); do
    order=(new old)
    [ $((round % 2)) = 1 ] || order=(old new)
    line="round $round: direct $last"
    for which in "${order[@]}"; do
        url="$nrec_url"
        [ "$which" = new ] || url="$orec_url"
        read -r r _ < <(rate "rec-$which-$round" 64 2 "$url" "$upaths")
        read -r next _ < <(rate "direct-$round-$which" 64 2 "$up_url" "$upaths")
        pct="$(ratio "$r" "$last" "$next")"
        read -r _ d1 < <(rate "direct1-$round-$which" 1 1 "$up_url" "$upaths")
        read -r _ r1 < <(rate "rec1-$which-$round" 1 1 "$url" "$upaths")
        add="$(awk -v r="$r1" -v d="$d1" 'BEGIN { printf "%.2f", r - d }')"
        if [ "$which" = new ]; then nrec+=("$pct") nadd+=("$add"); else orec+=("$pct") oadd+=("$add"); fi
        line+=", $which $r ($pct%, +$add ms at c1), direct $next"
        last="$next"
    done
    echo "$line"
done
echo "record new, 64 connections: median $(median "${nrec[@]}")% of direct (rounds: ${nrec[*]}); added p50 at 1 connection median +$(median "${nadd[@]}") ms (rounds: ${nadd[*]})"
echo "record old, 64 connections: median $(median "${orec[@]}")% of direct (rounds: ${orec[*]}); added p50 at 1 connection median +$(median "${oadd[@]}") ms (rounds: ${oadd[*]})"
