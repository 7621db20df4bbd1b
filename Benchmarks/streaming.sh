#!/usr/bin/env bash
# The streaming benchmark alone (issue 12 §2), against a Python upstream (streaming-upstream.py):
#  (a) peak resident memory growth of `cassette record` while a client downloads a SIZE_MB body
#      (default 20) through it, as a ratio to the body size, one fresh proxy per round;
#  (b) time to the first Server-Sent Event through `cassette record` and straight from the
#      upstream (events 200 ms apart), measured in the same run.
# Prints one JSON object per measurement on stdout.
#   Benchmarks/streaming.sh                          # release build, 3 rounds
#   ROUNDS=1 CONFIGURATION=debug Benchmarks/streaming.sh   # a smoke run
#   CASSETTE_BIN=/path/to/bin Benchmarks/streaming.sh      # no build (run.sh passes its own)
set -euo pipefail
cd "$(dirname "$0")/.."
rounds="${ROUNDS:-3}"
size_mb="${SIZE_MB:-20}"
gap_ms="${GAP_MS:-200}"

source scripts/lib.sh
if [ -n "${CASSETTE_BIN:-}" ]; then
    bin="$CASSETTE_BIN"
else
    echo "==> Building cassette (${CONFIGURATION:-release})" >&2
    bin="$(CONFIGURATION="${CONFIGURATION:-release}" build_products cassette)"
fi
{ command -v curl && command -v python3; } >/dev/null || scripts/ensure-deps.sh curl python3

open_workspace
read -r up_pid up_url < <(start_server "$work/upstream.log" python3 -u Benchmarks/streaming-upstream.py serve)
pids+=("$up_pid")
body_bytes=$(( size_mb * 1024 * 1024 ))

kb() { awk -v field="$2:" '$1 == field { print $2 }' "/proc/$1/status"; }

echo "==> Streaming (a): resident memory while recording a $size_mb MB body" >&2
for round in $(seq 1 "$rounds"); do
    rm -f "$work/stream.db"*
    read -r rec_pid rec_url < <(start_server "$work/record-$round.log" "$bin/cassette" record --upstream "$up_url" --mode all --db "$work/stream.db" --port 0)
    pids+=("$rec_pid")
    # A small answer first, so start-up allocations are not counted as the body's.
    curl -sf -o /dev/null "$rec_url/large?size=1000"
    before_kb=$(kb "$rec_pid" VmRSS)
    # With a credential, as real APIs are called: redaction then scans the body for it.
    curl -sf -H "Authorization: Bearer bench-token-0123456789abcdef" -o "$work/body" "$rec_url/large?size=$body_bytes"
    # With a Content-Length the client is done before the proxy has stored the body: wait for
    # the log line, so the peak includes storing.
    for _ in $(seq 1 600); do grep -q "size=$body_bytes .*recorded" "$work/record-$round.log" && break; sleep 0.05; done
    peak_kb=$(kb "$rec_pid" VmHWM)
    after_kb=$(kb "$rec_pid" VmRSS)
    received=$(stat -c %s "$work/body")
    stop_server "$rec_pid"
    awk -v body="$body_bytes" -v received="$received" -v before="$before_kb" -v peak="$peak_kb" -v after="$after_kb" -v round="$round" 'BEGIN {
        printf "{\"measure\": \"record-memory\", \"round\": %d, \"bodyBytes\": %d, \"receivedBytes\": %d, \"rssBeforeBytes\": %d, \"peakGrowthBytes\": %d, \"growthAfterBytes\": %d, \"peakGrowthRatio\": %.2f}\n",
            round, body, received, before * 1024, (peak - before) * 1024, (after - before) * 1024, (peak - before) * 1024 / body }'
done

echo "==> Streaming (b): time to the first event, through cassette record and direct" >&2
read -r rec_pid rec_url < <(start_server "$work/record-sse.log" "$bin/cassette" record --upstream "$up_url" --mode all --db "$work/sse.db" --port 0 --quiet)
pids+=("$rec_pid")
for round in $(seq 1 "$rounds"); do
    read -r direct_first direct_total < <(python3 Benchmarks/streaming-upstream.py first-event "$up_url/events?count=5&gap=$gap_ms")
    read -r record_first record_total < <(python3 Benchmarks/streaming-upstream.py first-event "$rec_url/events?count=5&gap=$gap_ms")
    awk -v df="$direct_first" -v dt="$direct_total" -v rf="$record_first" -v rt="$record_total" -v round="$round" -v gap="$gap_ms" 'BEGIN {
        printf "{\"measure\": \"first-event\", \"round\": %d, \"eventGapMs\": %d, \"directFirstEventMs\": %.1f, \"recordFirstEventMs\": %.1f, \"differenceMs\": %.1f, \"ratio\": %.3f, \"directTotalMs\": %.1f, \"recordTotalMs\": %.1f}\n",
            round, gap, df, rf, rf - df, rf / df, dt, rt }'
done
stop_server "$rec_pid"
