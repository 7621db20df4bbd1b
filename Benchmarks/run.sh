#!/usr/bin/env bash
# Benchmarks: builds in release mode, measures, prints a table and writes BENCHMARKS.md.
# Kept out of the test suite and out of .ci/run. Needs the machine to itself: no builds meanwhile.
#   Benchmarks/run.sh            # full run (about 20 minutes after the build)
#   DURATION=5 ROUNDS=1 Benchmarks/run.sh   # quicker, noisier
#   Benchmarks/streaming.sh      # section 6 alone (SKIP_STREAMING=1 leaves it out here)
#   SECTIONS="1 3" SCALES="10000 100000" Benchmarks/run.sh   # only the named sections (1-8);
#   SECTIONS="2" DURATION=2 ROUNDS=1 Benchmarks/run.sh     # a partial run leaves BENCHMARKS.md alone
set -euo pipefail
cd "$(dirname "$0")/.."
root="$(pwd)"
duration="${DURATION:-10}"
# Nine rounds: on a shared machine single rounds swing by ±10%, and the median of nine holds still.
rounds="${ROUNDS:-9}"
scales="${SCALES:-10000 100000 1000000}"
sections="${SECTIONS:-1 2 3 4 5 6 7 8}"
runs() { [[ " $sections " == *" $1 "* ]]; }

# nginx: section 2's reverse-proxy baseline (skipped when it is missing).
scripts/ensure-deps.sh wrk nginx

source scripts/lib.sh

echo "==> Building in release mode"
# CASSETTE_BIN_DIR measures another build's `cassette` (say, the commit before a change) instead.
bin="${CASSETTE_BIN_DIR:-$(CONFIGURATION=release build_products cassette)}"
benchbin="$(CONFIGURATION=release build_products bench-tool bench-baseline bench-nio-proxy)"

open_workspace
results="$work/results"
mkdir -p "$results"

warm_up() {  # URL PATHS: a discarded run, so first-touch costs (page faults, allocator growth) are not measured
    PATHS_FILE="$2" wrk -t2 -c64 -d2s -s Benchmarks/paths.lua "$1" >/dev/null
}

run_wrk() {  # NAME CONNECTIONS THREADS URL PATHS
    local name="$1" connections="$2" threads="$3" url="$4" paths="$5"
    PATHS_FILE="$paths" wrk -t"$threads" -c"$connections" -d"${duration}s" --latency -s Benchmarks/paths.lua "$url" >"$results/$name.wrk"
    echo "    $name: $(grep 'Requests/sec' "$results/$name.wrk")"
}

"$benchbin/bench-tool" make-store "$work/replay.db" 300 mixed >"$results/replay-store.json"
if runs 1; then
echo "==> 1. Replay throughput: cassette replay vs a minimal SwiftNIO server, same bytes"
read -r base_pid base_url < <(start_server "$work/baseline.log" "$benchbin/bench-baseline" "$work/replay.db")
pids+=("$base_pid")
read -r rep_pid rep_url < <(start_server "$work/replay.log" "$bin/cassette" replay --db "$work/replay.db" --cassette bench --port 0)
pids+=("$rep_pid")
warm_up "$base_url" "$work/replay.db.paths"
warm_up "$rep_url" "$work/replay.db.paths"
# Every replay round sits between two baseline rounds (one more baseline at the end), so its
# ratio can be taken against both: a machine that slows down or speeds up steadily over the two
# rounds then moves the numerator and the denominator alike.
for round in $(seq 1 "$rounds"); do
    run_wrk "baseline-$round" 64 2 "$base_url" "$work/replay.db.paths"
    run_wrk "replay-$round" 64 2 "$rep_url" "$work/replay.db.paths"
done
run_wrk "baseline-$(( rounds + 1 ))" 64 2 "$base_url" "$work/replay.db.paths"
stop_server "$rep_pid"
stop_server "$base_pid"
# Per core: both servers held to one core (taskset), beside the rounds above on every core.
if command -v taskset >/dev/null; then
    read -r base_pid base_url < <(start_server "$work/baseline-1core.log" taskset -c 1 "$benchbin/bench-baseline" "$work/replay.db")
    pids+=("$base_pid")
    read -r rep_pid rep_url < <(start_server "$work/replay-1core.log" taskset -c 1 "$bin/cassette" replay --db "$work/replay.db" --cassette bench --port 0)
    pids+=("$rep_pid")
    warm_up "$base_url" "$work/replay.db.paths"
    warm_up "$rep_url" "$work/replay.db.paths"
    run_wrk "onecore-baseline-1" 64 2 "$base_url" "$work/replay.db.paths"
    run_wrk "onecore-replay-1" 64 2 "$rep_url" "$work/replay.db.paths"
    stop_server "$rep_pid"
    stop_server "$base_pid"
fi
fi

if runs 2; then
echo "==> 2. Record overhead: through cassette record vs straight to the upstream"
"$benchbin/bench-tool" make-store "$work/upstream.db" 300 small >/dev/null
read -r up_pid up_url < <(start_server "$work/upstream.log" "$benchbin/bench-baseline" "$work/upstream.db")
pids+=("$up_pid")
echo "    upstream: $benchbin/bench-baseline $work/upstream.db  ($up_url)"
echo "    recorder: $bin/cassette record --upstream $up_url --mode all --db $work/recorded.db --port 0"
read -r rec_pid rec_url < <(start_server "$work/record.log" "$bin/cassette" record --upstream "$up_url" --mode all --db "$work/recorded.db" --port 0)
pids+=("$rec_pid")
# Same-round ceilings: forwarding alone through cassette (libcurl, nothing stored: a replay of a
# cassette holding one path no benchmark request asks for, passing misses through), a minimal
# SwiftNIO reverse proxy (bench-nio-proxy), and nginx as a keep-alive reverse proxy.
read -r probe_pid probe_url < <(start_server "$work/probe.log" "$bin/cassette" record --upstream "$up_url" --db "$work/forward.db" --cassette forward --port 0 --quiet)
curl -s -o /dev/null "$probe_url/not-benchmarked"
stop_server "$probe_pid"
echo "    forwarder: $bin/cassette replay --on-miss passthrough --upstream $up_url --db $work/forward.db --cassette forward --port 0"
read -r fwd_pid fwd_url < <(start_server "$work/forward.log" "$bin/cassette" replay --on-miss passthrough --upstream "$up_url" --db "$work/forward.db" --cassette forward --port 0)
pids+=("$fwd_pid")
echo "    minimal SwiftNIO proxy: $benchbin/bench-nio-proxy ${up_url##*:}"
read -r nio_pid nio_url < <(start_server "$work/nio-proxy.log" "$benchbin/bench-nio-proxy" "${up_url##*:}")
pids+=("$nio_pid")
nginx_bin="$(command -v nginx || echo /usr/sbin/nginx)"
nginx_url=""
if [ -x "$nginx_bin" ]; then
    nginx_port="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
    mkdir -p "$work/nginx"
    sed -e "s|@WORK@|$work/nginx|g" -e "s|@UPSTREAM@|${up_url#http://}|" -e "s|@PORT@|$nginx_port|" Benchmarks/nginx-proxy.conf >"$work/nginx/nginx.conf"
    "$nginx_bin" -c "$work/nginx/nginx.conf" -p "$work/nginx" &
    nginx_pid=$!
    pids+=("$nginx_pid")
    for _ in $(seq 1 100); do curl -s -o /dev/null "http://127.0.0.1:$nginx_port/" && break; sleep 0.05; done
    nginx_url="http://127.0.0.1:$nginx_port"
    echo "    nginx: $nginx_bin -c Benchmarks/nginx-proxy.conf ($nginx_url)"
fi
warm_up "$up_url" "$work/upstream.db.paths"
warm_up "$rec_url" "$work/upstream.db.paths"
warm_up "$fwd_url" "$work/upstream.db.paths"
warm_up "$nio_url" "$work/upstream.db.paths"
[ -z "$nginx_url" ] || warm_up "$nginx_url" "$work/upstream.db.paths"
for round in $(seq 1 "$rounds"); do
    run_wrk "direct-c1-$round" 1 1 "$up_url" "$work/upstream.db.paths"
    run_wrk "record-c1-$round" 1 1 "$rec_url" "$work/upstream.db.paths"
    run_wrk "forward-c1-$round" 1 1 "$fwd_url" "$work/upstream.db.paths"
    run_wrk "nio-c1-$round" 1 1 "$nio_url" "$work/upstream.db.paths"
    [ -z "$nginx_url" ] || run_wrk "nginx-c1-$round" 1 1 "$nginx_url" "$work/upstream.db.paths"
    run_wrk "direct-c64-$round" 64 2 "$up_url" "$work/upstream.db.paths"
    run_wrk "record-c64-$round" 64 2 "$rec_url" "$work/upstream.db.paths"
    run_wrk "forward-c64-$round" 64 2 "$fwd_url" "$work/upstream.db.paths"
    run_wrk "nio-c64-$round" 64 2 "$nio_url" "$work/upstream.db.paths"
    [ -z "$nginx_url" ] || run_wrk "nginx-c64-$round" 64 2 "$nginx_url" "$work/upstream.db.paths"
done
stop_server "$fwd_pid"
stop_server "$nio_pid"
[ -z "$nginx_url" ] || stop_server "$nginx_pid"
stop_server "$rec_pid"
stop_server "$up_pid"
"$benchbin/bench-tool" count "$work/recorded.db" >"$results/recorded-count.json"
fi

if runs 3; then
echo "==> 3. Scale: open time, memory and lookup time"
for count in $scales; do
    "$benchbin/bench-tool" make-store "$work/scale.db" "$count" small >"$results/make-$count.json"
    # Three fresh processes, so one slow moment of the machine does not make the number.
    {
        echo "["
        for run in 1 2 3; do
            [ "$run" = 1 ] || echo ","
            "$benchbin/bench-tool" scale "$work/scale.db"
        done
        echo "]"
    } >"$results/scale-$count.json"
    echo "    $count: $(tr -d '\n' <"$results/scale-$count.json")"
    # Same-run baseline: SQLite alone reading every column of the same rows (sqlite3 shell).
    if command -v sqlite3 >/dev/null; then
        started=$(date +%s%N)
        sqlite3 -readonly "$work/scale.db" "SELECT id, method, url, request_key, sequence, request_headers, status, response_headers, response_body, recorded_at, duration_ms FROM interactions" >/dev/null
        awk -v ns="$(( $(date +%s%N) - started ))" 'BEGIN { printf "{\"rawReadSeconds\": %.6f}\n", ns / 1e9 }' >"$results/raw-$count.json"
        echo "    $count, sqlite3 reading the same rows: $(cat "$results/raw-$count.json")"
    fi
    # The whole proxy on the same store: index, prepared answers, event loops.
    started=$(date +%s%N)
    read -r scale_pid _ < <(START_TRIES=2400 start_server "$work/scale-proxy.log" "$bin/cassette" replay --db "$work/scale.db" --cassette bench --port 0 --quiet)
    listening=$(( $(date +%s%N) - started ))
    resident_kb=$(awk '/^VmRSS:/ { print $2 }' "/proc/$scale_pid/status")
    stop_server "$scale_pid"
    awk -v ns="$listening" -v kb="$resident_kb" 'BEGIN { printf "{\"listeningSeconds\": %.6f, \"residentBytes\": %d}\n", ns / 1e9, kb * 1024 }' >"$results/proxy-$count.json"
    echo "    $count, cassette replay: $(cat "$results/proxy-$count.json")"
    rm -f "$work/scale.db" "$work/scale.db.paths"
done
fi

if runs 4; then
echo "==> 4. In-process: ReplayAPIClient and key normalization"
"$benchbin/bench-tool" inprocess "$work/replay.db" >"$results/inprocess.json"
"$benchbin/bench-tool" schema 10 >"$results/schema.json"
fi

if runs 5; then
echo "==> 5. Start-up"
"$benchbin/bench-tool" startup "$bin/cassette" "$work/replay.db" >"$results/startup.json"
fi

if runs 6 && [ "${SKIP_STREAMING:-0}" != 1 ]; then
    echo "==> 6. Streaming: memory while recording a large body, time to the first event (SKIP_STREAMING=1 skips)"
    CASSETTE_BIN="$bin" ROUNDS="$(( rounds < 3 ? rounds : 3 ))" Benchmarks/streaming.sh | tee "$results/streaming.jsonl"
fi

if runs 7; then
    echo "==> 7. cassette audit on 100,000 interactions, against reading the same rows"
    "$benchbin/bench-tool" make-store "$work/audit.db" 100000 small >/dev/null
    "$benchbin/bench-tool" audit "$work/audit.db" >"$results/audit.json"
    echo "    in process: $(cat "$results/audit.json")"
    started=$(date +%s%N)
    status=0
    "$bin/cassette" audit --db "$work/audit.db" --format json >"$work/audit-findings.json" || status=$?
    awk -v ns="$(( $(date +%s%N) - started ))" -v status="$status" 'BEGIN { printf "{\"cliSeconds\": %.3f, \"exitStatus\": %d}\n", ns / 1e9, status }' >"$results/audit-cli.json"
    echo "    release CLI: $(cat "$results/audit-cli.json")"
    rm -f "$work/audit.db" "$work/audit.db.paths" "$work/audit-findings.json"
fi

if runs 8; then
    echo "==> 8. cassette codegen swift and cassette openapi on 10,000 recordings, against sqlite3 reading them"
    CASSETTE_BIN_DIR="$bin" FORMAT=json ROUNDS="$(( rounds < 3 ? rounds : 3 ))" Benchmarks/codegen.sh | tee "$results/codegen.jsonl"
fi

if [ "$sections" != "1 2 3 4 5 6 7 8" ]; then
    # A partial run reports what it measured and leaves BENCHMARKS.md to full runs.
    echo
    if runs 2; then "$benchbin/bench-tool" record-report "$results" "$duration"; fi
    if runs 7 || runs 8; then "$benchbin/bench-tool" tools-report "$results"; fi
    echo "(sections $sections only: BENCHMARKS.md left as it was; results above)"
    exit 0
fi

# Written aside first: a report that fails leaves the last BENCHMARKS.md as it was.
"$benchbin/bench-tool" report "$results" "$duration" "$rounds" >"$work/BENCHMARKS.md"
cat Benchmarks/profiling.md >>"$work/BENCHMARKS.md"
# Sections measured by their own scripts (sessions.sh, forward.sh, progress.sh, ...) stay as
# they were: everything from the marker line on.
marker='<!-- Sections below come from their own scripts'
if [ -f "$root/BENCHMARKS.md" ] && grep -q "^$marker" "$root/BENCHMARKS.md"; then
    echo >>"$work/BENCHMARKS.md"
    sed -n "/^$marker/,\$p" "$root/BENCHMARKS.md" >>"$work/BENCHMARKS.md"
fi
mv "$work/BENCHMARKS.md" "$root/BENCHMARKS.md"
echo
cat "$root/BENCHMARKS.md"
