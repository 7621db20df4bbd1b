#!/usr/bin/env bash
# GraphQL replay against REST replay of the same answers (docs/graphql.md, issue 37): `cassette
# replay` of 300 GraphQL POSTs (ten operations, ~1 KB bodies: operationName, a document, variables)
# against 300 REST requests answered with the same bodies, as JSON POSTs of the same size and as
# GETs; rounds alternate the three servers, so the ratios are taken within a round. Then the keying
# cost alone, in process: keys/s of the GraphQL bodies against the same-sized JSON bodies.
# Prints the rounds and the medians; writes nothing (BENCHMARKS.md quotes a run).
#   Benchmarks/graphql.sh                                     # release build, 5 rounds of 10 s
#   CONFIGURATION=debug DURATION=2 ROUNDS=1 Benchmarks/graphql.sh   # smoke run
set -euo pipefail
cd "$(dirname "$0")/.."
duration="${DURATION:-10}"
rounds="${ROUNDS:-5}"
count="${COUNT:-300}"

scripts/ensure-deps.sh wrk
source scripts/lib.sh
configuration="${CONFIGURATION:-release}"
bin="$(CONFIGURATION="$configuration" build_products cassette)"
benchbin="$(CONFIGURATION="$configuration" build_products bench-tool)"
open_workspace

"$benchbin/bench-tool" make-graphql-store "$work/graphql.db" "$count"

declare -A urls
for cassette in graphql rest-post rest-get; do
    read -r pid url < <(start_server "$work/$cassette.log" "$bin/cassette" replay --db "$work/graphql.db" --cassette "$cassette" --port 0 --quiet)
    pids+=("$pid")
    urls[$cassette]="$url"
    REQUESTS_FILE="$work/graphql.db.$cassette" wrk -t2 -c64 -d2s -s Benchmarks/requests.lua "$url" >/dev/null
done

declare -A rates
for round in $(seq 1 "$rounds"); do
    line="round $round:"
    for cassette in graphql rest-post rest-get; do
        out="$(REQUESTS_FILE="$work/graphql.db.$cassette" wrk -t2 -c64 -d"${duration}s" -s Benchmarks/requests.lua "${urls[$cassette]}")"
        # Every answer must be a replayed 200: a miss is a 404, which wrk reports as non-2xx.
        if grep -q "Non-2xx" <<<"$out"; then echo "error: $cassette answered non-2xx responses:" >&2; echo "$out" >&2; exit 1; fi
        rate="$(awk '/Requests\/sec/ {print $2}' <<<"$out")"
        rates[$cassette]+="$rate "
        line+=" $cassette $rate req/s"
    done
    echo "$line"
done

python3 - "${rates[graphql]}" "${rates[rest-post]}" "${rates[rest-get]}" <<'PY'
import statistics, sys
graphql, post, get = ([float(x) for x in arg.split()] for arg in sys.argv[1:4])
def ratios(a, b): return [x / y for x, y in zip(a, b)]
print(f"median req/s: graphql {statistics.median(graphql):.0f}, rest-post {statistics.median(post):.0f}, rest-get {statistics.median(get):.0f}")
for name, other in (("rest-post", post), ("rest-get", get)):
    r = ratios(graphql, other)
    print(f"graphql / {name}: median {statistics.median(r):.2f} (rounds: {', '.join(f'{x:.2f}' for x in r)}; target >= 0.9)")
PY
"$benchbin/bench-tool" graphql-keying "$work/graphql.db"
