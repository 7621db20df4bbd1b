#!/usr/bin/env bash
# The size and time of `cassette report --html` for a generated store of COUNT interactions
# (default 10000), against two baselines measured in the same run: the store file itself and
# `cassette export --har` of the same store (both carry every body). MIX is bench-tool make-store's
# (small: three bodies repeated, as recordings of one endpoint repeat; distinct: every body its own,
# the report's worst case). With BROWSER=1, the report is also opened from file:// in headless
# Chromium (Tests/CassetteUITests/Browser/ui_list_test.py, ROUNDS page loads, medians) against the
# report of a 1,000-interaction store in the same run: first rows drawn after navigation (the
# whole file read and its data parsed), a path filter, the scroll to the last row.
#   Benchmarks/report.sh                                  # 10,000 interactions, release build
#   COUNT=100000 BROWSER=1 Benchmarks/report.sh           # 100,000, and Chromium
#   COUNT=500 CONFIGURATION=debug Benchmarks/report.sh    # a smoke run
set -euo pipefail
cd "$(dirname "$0")/.."
count="${COUNT:-10000}"
mix="${MIX:-small}"
rounds="${ROUNDS:-3}"
export CONFIGURATION="${CONFIGURATION:-release}"

source scripts/lib.sh
echo "==> Building ($CONFIGURATION)" >&2
bin="${BENCH_BIN_DIR:-$(build_products cassette bench-tool)}"

open_workspace
echo "==> Generating $count interactions ($mix)" >&2
"$bin/bench-tool" make-store "$work/report.db" "$count" "$mix" >/dev/null
seconds() { local start end; start=$(date +%s.%N); "$@" >/dev/null; end=$(date +%s.%N); awk -v s="$start" -v e="$end" 'BEGIN { printf "%.3f", e - s }'; }
report_s=$(seconds "$bin/cassette" report --db "$work/report.db" --html "$work/report.html")
har_s=$(seconds "$bin/cassette" export --db "$work/report.db" --har "$work/report.har")
store=$(stat -c %s "$work/report.db")
report=$(stat -c %s "$work/report.html")
har=$(stat -c %s "$work/report.har")
gzipped=$(gzip -c "$work/report.html" | wc -c)
awk -v n="$count" -v m="$mix" -v r="$report" -v g="$gzipped" -v s="$store" -v h="$har" -v rs="$report_s" -v hs="$har_s" 'BEGIN {
    printf "{\"interactions\": %d, \"mix\": \"%s\", \"reportBytes\": %d, \"reportGzipBytes\": %d, \"storeBytes\": %d, \"harBytes\": %d, ", n, m, r, g, s, h
    printf "\"reportToStore\": %.2f, \"reportToHar\": %.2f, \"reportSeconds\": %s, \"harSeconds\": %s}\n", r / s, r / h, rs, hs
}'

[ "${BROWSER:-0}" = 1 ] || exit 0
scripts/ensure-browser.sh
browse() {  # N FILE: the json line of ui_list_test.py for the report FILE of N interactions
    local n="$1" file="$2"
    # make-store cycles small, medium and large: a third of the rows are /api/medium/N.
    python3 Tests/CassetteUITests/Browser/ui_list_test.py --ui "file://$file" --count "$n" --filter /api/medium/ \
        --filtered $(( (n + 1) / 3 )) --rounds "$rounds" >"$work/browse-$n.out" || { cat "$work/browse-$n.out" >&2; exit 1; }
    grep '^measured:' "$work/browse-$n.out" >&2
    sed -n 's/^json: //p' "$work/browse-$n.out"
}
echo "==> The report in Chromium from file://, against the report of 1,000 interactions, $rounds rounds each" >&2
"$bin/bench-tool" make-store "$work/base.db" 1000 "$mix" >/dev/null
"$bin/cassette" report --db "$work/base.db" --html "$work/base.html" >/dev/null
baseline="$(browse 1000 "$work/base.html")"
large="$(browse "$count" "$work/report.html")"
python3 - "$baseline" "$large" <<'PY'
import json, sys
base, large = json.loads(sys.argv[1]), json.loads(sys.argv[2])
print("| | %d interactions | %d interactions | ratio |" % (base["interactions"], large["interactions"]))
print("|---|---|---|---|")
for name, label in [("firstRowsMs", "first rows after navigation"), ("filterMs", "path filter, submit to rows"), ("scrollToEndMs", "scroll to the last row")]:
    print("| %s | %.0f ms | %.0f ms | %.2fx |" % (label, base[name], large[name], large[name] / base[name]))
PY
