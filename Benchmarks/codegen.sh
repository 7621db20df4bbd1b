#!/usr/bin/env bash
# Benchmarks of `cassette codegen swift` and `cassette openapi` on a store of COUNT recordings
# (default 10,000) over 100 endpoints: wall time (median of ROUNDS runs) and peak resident memory
# of the whole command, measured with /usr/bin/time. Prints a Markdown table. Separate from run.sh
# so it can run alone:
#   Benchmarks/codegen.sh              # 10,000 recordings, 5 rounds
#   COUNT=1000 ROUNDS=1 CONFIGURATION=debug Benchmarks/codegen.sh   # a smoke run, no release build
set -euo pipefail
cd "$(dirname "$0")/.."
count="${COUNT:-10000}"
rounds="${ROUNDS:-5}"
configuration="${CONFIGURATION:-release}"

source scripts/lib.sh

echo "==> Building ($configuration)" >&2
bin="$(CONFIGURATION="$configuration" build_products cassette)"
# As in run.sh: drop the cached plan so files added to the project since are seen.
rm -f "Benchmarks/.build/$configuration.yaml" "Benchmarks/.build/$configuration/description.json"
swift build -c "$configuration" --package-path Benchmarks --product bench-tool >/dev/null
benchbin="$(swift build -c "$configuration" --package-path Benchmarks --show-bin-path)"

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
        /usr/bin/time -f "%e %M" -o "$work/time" "$@" >/dev/null
        read -r seconds kib <"$work/time"
        times+=("$seconds")
        [ "$kib" -gt "$peak" ] && peak="$kib"
    done
    local median
    median="$(printf '%s\n' "${times[@]}" | sort -n | sed -n "$(( (rounds + 1) / 2 ))p")"
    echo "$name $median $peak"
}

echo "==> Measuring ($rounds rounds each)" >&2
{
    measure "codegen swift" "$bin/cassette" codegen swift --db "$store" --out "$work/Models" --tests "$work/Tests"
    measure "codegen swift --check" "$bin/cassette" codegen swift --db "$store" --out "$work/Models" --tests "$work/Tests" --check
    measure "openapi (JSON)" "$bin/cassette" openapi --db "$store" --out "$work/openapi.json"
    measure "openapi (YAML)" "$bin/cassette" openapi --db "$store" --format yaml --out "$work/openapi.yaml"
} >"$work/results"

types="$(find "$work/Models" -name '*.swift' | wc -l)"
echo
echo "### codegen and openapi on $count recordings ($(echo "$stats" | sed 's/[{}"]//g'))"
echo
echo "| command | median wall time | peak RSS |"
echo "|---|---:|---:|"
while read -r c1 c2 c3 c4 c5; do
    # Names have one or two words; the last two fields are the numbers.
    fields=($c1 $c2 $c3 $c4 $c5)
    n=${#fields[@]}
    name="${fields[*]:0:n-2}"
    echo "| \`cassette $name\` | ${fields[n-2]} s | $(( fields[n-1] / 1024 )) MiB |"
done <"$work/results"
echo
echo "$types generated files; openapi.json $(wc -c <"$work/openapi.json") bytes, openapi.yaml $(wc -c <"$work/openapi.yaml") bytes."
