#!/usr/bin/env bash
# The `cassette audit` benchmark alone: a generated store of COUNT interactions (default
# 100000), scanned in process (time, peak memory) and by the release CLI (wall time).
#   Benchmarks/audit.sh            # 100,000 interactions
#   COUNT=2000 Benchmarks/audit.sh # a smoke run
set -euo pipefail
cd "$(dirname "$0")/.."
count="${COUNT:-100000}"

source scripts/lib.sh
echo "==> Building in release mode" >&2
bin="$(CONFIGURATION=release build_products cassette)"
rm -f Benchmarks/.build/release.yaml Benchmarks/.build/release/description.json
benchbin="$(CONFIGURATION=release build_products bench-tool)"

open_workspace
echo "==> Generating $count interactions" >&2
"$benchbin/bench-tool" make-store "$work/audit.db" "$count" small >/dev/null
echo "==> Audit in process" >&2
"$benchbin/bench-tool" audit "$work/audit.db"
echo "==> cassette audit (release CLI)" >&2
start=$(date +%s.%N)
status=0
"$bin/cassette" audit --db "$work/audit.db" --format json >"$work/audit.json" || status=$?
end=$(date +%s.%N)
awk -v s="$start" -v e="$end" -v status="$status" 'BEGIN { printf "{\"cliSeconds\": %.3f, \"exitStatus\": %d}\n", e - s, status }'
