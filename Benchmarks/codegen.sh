#!/usr/bin/env bash
# Benchmarks of `cassette codegen swift` and `cassette openapi` on a store of COUNT recordings
# (default 10,000) over 100 endpoints: wall time (median of ROUNDS runs) and peak resident memory
# of the whole command, measured with /usr/bin/time, beside the same-run baseline of `sqlite3`
# reading every column of the same rows. Prints a Markdown table, or JSON lines with FORMAT=json
# (run.sh's section 8):
#   Benchmarks/codegen.sh              # 10,000 recordings, 5 rounds
#   COUNT=1000 ROUNDS=1 CONFIGURATION=debug Benchmarks/codegen.sh   # a smoke run, no release build
set -euo pipefail
cd "$(dirname "$0")/.."
count="${COUNT:-10000}"
rounds="${ROUNDS:-5}"
configuration="${CONFIGURATION:-release}"
format="${FORMAT:-markdown}"

source scripts/lib.sh
scripts/ensure-deps.sh sqlite3 >&2

echo "==> Building ($configuration)" >&2
bin="${CASSETTE_BIN_DIR:-$(CONFIGURATION="$configuration" build_products cassette)}"
benchbin="$(CONFIGURATION="$configuration" build_products bench-tool)"

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
store="$work/api.db"
echo "==> Generating $count recordings" >&2
stats="$("$benchbin/bench-tool" make-api-store "$store" "$count")"
echo "    $stats" >&2

measure() {  # NAME COMMAND...: prints "NAME median_seconds max_rss_kib"
    local name="$1"; shift
    local times=() peak=0
    for _ in $(seq 1 "$rounds"); do
        # Wall time to the nanosecond (time's %e has 10 ms steps, coarse beside the baseline).
        local started
        started=$(date +%s%N)
        /usr/bin/time -f "%M" -o "$work/time" "$@" >/dev/null
        times+=("$(awk -v ns="$(( $(date +%s%N) - started ))" 'BEGIN { printf "%.4f", ns / 1e9 }')")
        read -r kib <"$work/time"
        [ "$kib" -gt "$peak" ] && peak="$kib"
    done
    local median
    median="$(printf '%s\n' "${times[@]}" | sort -n | sed -n "$(( (rounds + 1) / 2 ))p")"
    echo "$name $median $peak"
}

echo "==> Measuring ($rounds rounds each)" >&2
{
    measure "sqlite3" sqlite3 -readonly "$store" "SELECT id, method, url, request_key, sequence, request_headers, status, response_headers, response_body, recorded_at, duration_ms FROM interactions"
    measure "codegen swift" "$bin/cassette" codegen swift --db "$store" --out "$work/Models" --tests "$work/Tests"
    measure "codegen swift --check" "$bin/cassette" codegen swift --db "$store" --out "$work/Models" --tests "$work/Tests" --check
    measure "openapi (JSON)" "$bin/cassette" openapi --db "$store" --out "$work/openapi.json"
    measure "openapi (YAML)" "$bin/cassette" openapi --db "$store" --format yaml --out "$work/openapi.yaml"
} >"$work/results"

types="$(find "$work/Models" -name '*.swift' | wc -l)"
json_bytes="$(wc -c <"$work/openapi.json")"
yaml_bytes="$(wc -c <"$work/openapi.yaml")"
# Lines of results: NAME... MEDIAN PEAK_KIB; the name is every field before the last two.
if [ "$format" = json ]; then
    echo "$stats" | sed "s/^{/{\"store\": true, \"files\": $types, \"jsonBytes\": $json_bytes, \"yamlBytes\": $yaml_bytes, /"
    baseline=true
    while read -r line; do
        fields=($line)
        n=${#fields[@]}
        name="${fields[*]:0:n-2}"
        [ "$baseline" = true ] && command="$name" || command="cassette $name"
        printf '{"command": "%s", "seconds": %s, "peakResidentKiB": %s, "rounds": %s, "baseline": %s}\n' "$command" "${fields[n-2]}" "${fields[n-1]}" "$rounds" "$baseline"
        baseline=false
    done <"$work/results"
    exit 0
fi
echo
echo "### codegen and openapi on $count recordings ($(echo "$stats" | sed 's/[{}"]//g'))"
echo
echo "| command | median wall time | peak RSS |"
echo "|---|---:|---:|"
first=true
while read -r line; do
    fields=($line)
    n=${#fields[@]}
    name="${fields[*]:0:n-2}"
    if [ "$first" = true ]; then label="\`$name\` reading every column of the same rows (baseline)"; else label="\`cassette $name\`"; fi
    first=false
    echo "| $label | ${fields[n-2]} s | $(( fields[n-1] / 1024 )) MiB |"
done <"$work/results"
echo
echo "$types generated files; openapi.json $json_bytes bytes, openapi.yaml $yaml_bytes bytes."
