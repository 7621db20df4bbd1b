#!/usr/bin/env bash
# The size and time of `cassette report --html` for a generated store of COUNT interactions
# (default 10000), against two baselines measured in the same run: the store file itself and
# `cassette export --har` of the same store (both carry every body).
#   Benchmarks/report.sh                     # 10,000 interactions, release build
#   COUNT=500 CONFIGURATION=debug Benchmarks/report.sh   # a smoke run
set -euo pipefail
cd "$(dirname "$0")/.."
count="${COUNT:-10000}"
export CONFIGURATION="${CONFIGURATION:-release}"

source scripts/lib.sh
echo "==> Building ($CONFIGURATION)" >&2
bin="$(build_products cassette bench-tool)"

open_workspace
echo "==> Generating $count interactions" >&2
"$bin/bench-tool" make-store "$work/report.db" "$count" small >/dev/null
seconds() { local start end; start=$(date +%s.%N); "$@" >/dev/null; end=$(date +%s.%N); awk -v s="$start" -v e="$end" 'BEGIN { printf "%.3f", e - s }'; }
report_s=$(seconds "$bin/cassette" report --db "$work/report.db" --html "$work/report.html")
har_s=$(seconds "$bin/cassette" export --db "$work/report.db" --har "$work/report.har")
store=$(stat -c %s "$work/report.db")
report=$(stat -c %s "$work/report.html")
har=$(stat -c %s "$work/report.har")
gzipped=$(gzip -c "$work/report.html" | wc -c)
awk -v n="$count" -v r="$report" -v g="$gzipped" -v s="$store" -v h="$har" -v rs="$report_s" -v hs="$har_s" 'BEGIN {
    printf "{\"interactions\": %d, \"reportBytes\": %d, \"reportGzipBytes\": %d, \"storeBytes\": %d, \"harBytes\": %d, ", n, r, g, s, h
    printf "\"reportToStore\": %.2f, \"reportToHar\": %.2f, \"reportSeconds\": %s, \"harSeconds\": %s}\n", r / s, r / h, rs, hs
}'
