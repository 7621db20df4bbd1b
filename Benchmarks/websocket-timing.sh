#!/usr/bin/env bash
# How closely `cassette replay` keeps a conversation's recorded timing (issue 36: server pushes
# within 50 ms of their recorded offsets with `--ws-timing recorded`). The PyPI `websockets`
# upstream (Tests/Peers/websocket_upstream.py) pushes three ticks 200 ms apart; its `chat` is
# recorded once through `cassette record`, the upstream is stopped, and the same client
# (Tests/Peers/websocket_client.py --times) replays it ROUNDS times. For every server message,
# its arrival (ms since the client's connection opened) is set against its recorded offset (ms
# since the proxy's upstream connection opened): lateness = arrival - recorded offset. The client's
# own round trips and Python's start-up are inside both, so this is an end-to-end figure.
#   Benchmarks/websocket-timing.sh                 # release build, 20 rounds
#   CONFIGURATION=debug ROUNDS=5 Benchmarks/websocket-timing.sh
set -euo pipefail
cd "$(dirname "$0")/.."
rounds="${ROUNDS:-20}"

source scripts/lib.sh
scripts/ensure-pip-module.sh websockets websockets >/dev/null
bin="$(CONFIGURATION="${CONFIGURATION:-release}" build_products cassette)"
open_workspace
peers=Tests/Peers

read -r up_pid up_url < <(start_server "$work/upstream.log" python3 -u "$peers/websocket_upstream.py")
pids+=("$up_pid")
read -r rec_pid rec_url < <(start_server "$work/record.log" "$bin/cassette" record --upstream "${up_url/ws:/http:}" --db "$work/ws.db" --port 0 --quiet)
pids+=("$rec_pid")
python3 "$peers/websocket_client.py" "${rec_url/http:/ws:}/chat" >/dev/null
stop_server "$rec_pid"
stop_server "$up_pid"

read -r rep_pid rep_url < <(start_server "$work/replay.log" "$bin/cassette" replay --db "$work/ws.db" --port 0 --quiet)
pids+=("$rep_pid")
for round in $(seq 1 "$rounds"); do
    python3 "$peers/websocket_client.py" "${rep_url/http:/ws:}/chat" --times >"$work/round-$round.jsonl"
done
stop_server "$rep_pid"

python3 - "$work" "$rounds" <<'PY'
import json, sqlite3, statistics, sys
work, rounds = sys.argv[1], int(sys.argv[2])
store = sqlite3.connect("%s/ws.db" % work)
recorded = [offset for (offset,) in store.execute(
    "SELECT offset_ms FROM conversation_messages WHERE direction = 'server' AND kind IN ('text', 'binary') ORDER BY position")]
late_all, late_pushes, worst = [], [], 0.0
for r in range(1, rounds + 1):
    arrivals = [json.loads(line)["at"] for line in open("%s/round-%d.jsonl" % (work, r)) if '"at"' in line]
    assert len(arrivals) == len(recorded), (arrivals, recorded)
    for index, (arrival, offset) in enumerate(zip(arrivals, recorded)):
        late_all.append(arrival - offset)
        # The pushes: the messages recorded at least 150 ms after the one before them.
        if index > 0 and offset - recorded[index - 1] >= 150:
            late_pushes.append(arrival - offset)
def p(values, q):
    values = sorted(values)
    return values[min(len(values) - 1, int(round(q * (len(values) - 1))))]
print("recorded server offsets (ms): %s" % ", ".join("%.1f" % o for o in recorded))
print()
print("| messages | count | lateness p50 | p95 | max | earliest |")
print("|---|---:|---:|---:|---:|---:|")
for name, values in (("pushes (ticks)", late_pushes), ("every server message", late_all)):
    print("| %s | %d | %.1f ms | %.1f ms | %.1f ms | %.1f ms |" % (
        name, len(values), statistics.median(values), p(values, 0.95), max(values), min(values)))
PY
