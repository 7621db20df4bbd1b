#!/usr/bin/env bash
# The web UI's interactions list in headless Chromium (Debian's chromium, selenium): a store of
# COUNT interactions (default 100,000) against a baseline store of 1,000 in the same run, both
# served by `cassette ui`. For each: the first rows drawn after navigation, the path filter
# /api/medium/ (a third of the rows) drawn after its submit, and the last row after a scroll to the
# end, medians of ROUNDS page loads (Tests/CassetteUITests/Browser/ui_list_test.py measures).
#   Benchmarks/ui-list.sh                                   # 100,000 vs 1,000, 5 rounds, release
#   COUNT=20000 ROUNDS=1 CONFIGURATION=debug Benchmarks/ui-list.sh   # a smoke run
set -euo pipefail
cd "$(dirname "$0")/.."
count="${COUNT:-100000}"
rounds="${ROUNDS:-5}"

scripts/ensure-browser.sh
source scripts/lib.sh
bin="${BENCH_BIN_DIR:-$(CONFIGURATION="${CONFIGURATION:-release}" build_products cassette bench-tool)}"
open_workspace

measure() {  # N: prints the script's json line for a store of N interactions
    local n="$1"
    "$bin/bench-tool" make-store "$work/list-$n.db" "$n" small >/dev/null
    "$bin/cassette" ui --db "$work/list-$n.db" --port 0 >"$work/ui-$n.log" 2>&1 &
    local ui_pid=$!
    pids+=("$ui_pid")
    for _ in $(seq 1 400); do grep -q '^ui on ' "$work/ui-$n.log" && break; sleep 0.05; done
    local url
    url="$(sed -n 's/^ui on //p' "$work/ui-$n.log" | head -n1)"
    [ -n "$url" ] || { cat "$work/ui-$n.log" >&2; exit 1; }
    # make-store cycles small, medium and large: a third of the rows are /api/medium/N.
    local filtered=$(( (n + 1) / 3 ))
    python3 Tests/CassetteUITests/Browser/ui_list_test.py --ui "$url" --count "$n" --filter /api/medium/ \
        --filtered "$filtered" --rounds "$rounds" >"$work/list-$n.out" || { cat "$work/list-$n.out" >&2; exit 1; }
    grep '^measured:' "$work/list-$n.out" >&2
    sed -n 's/^json: //p' "$work/list-$n.out"
    stop_server "$ui_pid"
}

echo "==> $count interactions, against 1,000, $rounds rounds each" >&2
baseline="$(measure 1000)"
large="$(measure "$count")"
python3 - "$baseline" "$large" <<'EOF'
import json, sys
base, large = json.loads(sys.argv[1]), json.loads(sys.argv[2])
print("| | %d interactions | %d interactions | ratio |" % (base["interactions"], large["interactions"]))
print("|---|---|---|---|")
for name, label in [("firstRowsMs", "first rows after navigation"), ("filterMs", "path filter, submit to rows"), ("scrollToEndMs", "scroll to the last row")]:
    print("| %s | %.0f ms | %.0f ms | %.2fx |" % (label, base[name], large[name], large[name] / base[name]))
EOF
