#!/usr/bin/env bash
# The forward proxy's added latency: an HTTPS request through `cassette record --forward` against
# the same request straight to the upstream, both from curl in the same round. The first request
# to a host pays for everything (curl's CONNECT and TLS handshake with the proxy, the certificate
# the proxy issues for that host, the proxy's own TLS handshake with the upstream); later requests
# reuse the connections. Every request has its own query, so each one is forwarded and recorded.
# Before the measured requests, each new proxy serves one request to another host (warm-up).
#   Benchmarks/forward.sh                            # release build, 15 rounds of 1 + 20 requests
#   CONFIGURATION=debug ROUNDS=2 Benchmarks/forward.sh   # smoke run
set -euo pipefail
cd "$(dirname "$0")/.."
rounds="${ROUNDS:-15}"
later="${LATER:-20}"

scripts/ensure-deps.sh openssl python3 curl
source scripts/lib.sh
bin="$(CONFIGURATION="${CONFIGURATION:-release}" build_products cassette)"
open_workspace

# A CA and a certificate for localhost, as the tests make them.
openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj "/CN=Bench CA" -keyout "$work/ca.key" -out "$work/ca.pem" \
    -addext basicConstraints=critical,CA:TRUE -addext keyUsage=critical,keyCertSign,cRLSign 2>/dev/null
openssl req -newkey rsa:2048 -nodes -subj /CN=localhost -keyout "$work/localhost.key" -out "$work/localhost.csr" 2>/dev/null
printf 'subjectAltName=DNS:localhost,IP:127.0.0.1\nextendedKeyUsage=serverAuth\n' >"$work/ext"
openssl x509 -req -in "$work/localhost.csr" -CA "$work/ca.pem" -CAkey "$work/ca.key" -CAcreateserial -days 2 -extfile "$work/ext" \
    -out "$work/localhost.pem" 2>/dev/null
"$bin/cassette" ca init --dir "$work/cassette-ca" >/dev/null

read -r upstream_pid upstream < <(start_server "$work/upstream.log" python3 -u Benchmarks/tls-upstream.py "$work/localhost.pem" "$work/localhost.key")
pids+=("$upstream_pid")

# timings ROUND PREFIX CURL-ARGS...: one curl, 1 + $later URLs over one connection; one time per line.
timings() {
    local round="$1" prefix="$2"; shift 2
    local urls=()
    for n in $(seq 0 "$later"); do urls+=(-o /dev/null "$upstream/v1/me?round=$round&n=$n&via=$prefix"); done
    curl -s -w '%{time_total} %{time_appconnect}\n' "$@" "${urls[@]}" | sed "s/^/$prefix /"
}

for round in $(seq 1 "$rounds"); do
    timings "$round" direct --cacert "$work/ca.pem" >>"$work/times"
    read -r pid proxy < <(start_server "$work/proxy-$round.log" "$bin/cassette" record --forward --ca-dir "$work/cassette-ca" \
        --cacert "$work/ca.pem" --db "$work/recorded-$round.db" --port 0 --quiet)
    pids+=("$pid")
    # One request to another host first (127.0.0.1, its own certificate): what is measured next is
    # a new host for a proxy that has already started its transport, store and TLS.
    curl -s -o /dev/null -x "$proxy" --cacert "$work/cassette-ca/cassette-ca.pem" "https://127.0.0.1:${upstream##*:}/warm-up?round=$round"
    timings "$round" proxy -x "$proxy" --cacert "$work/cassette-ca/cassette-ca.pem" >>"$work/times"
    stop_server "$pid"
    echo "round $round done" >&2
done

python3 - "$work/times" "$rounds" "$later" <<'PY'
import statistics, sys
lines = [line.split()[:2] for line in open(sys.argv[1])]
handshakes = [float(line.split()[2]) * 1000 for line in open(sys.argv[1]) if line.startswith("proxy")]
rounds, later = int(sys.argv[2]), int(sys.argv[3])
per = 1 + later
direct = [float(t) * 1000 for kind, t in lines if kind == "direct"]
proxy = [float(t) * 1000 for kind, t in lines if kind == "proxy"]
first_added, later_added, first_ratio, later_ratio = [], [], [], []
for r in range(rounds):
    d, p = direct[r * per:(r + 1) * per], proxy[r * per:(r + 1) * per]
    # curl's time_total is cumulative over one connection's transfers only for the first; each
    # later line is that transfer's own time.
    first_added.append(p[0] - d[0])
    first_ratio.append(p[0] / d[0])
    later_added.append(statistics.median(p[1:]) - statistics.median(d[1:]))
    later_ratio.append(statistics.median(p[1:]) / statistics.median(d[1:]))
med = statistics.median
print(f"first request to a new host: direct {med(direct[0::per]):.2f} ms, through record --forward {med(proxy[0::per]):.2f} ms, "
      f"added {med(first_added):.2f} ms (x{med(first_ratio):.1f}; rounds: {', '.join(f'{a:.2f}' for a in first_added)})")
print(f"later requests: direct {med([med(direct[r*per+1:(r+1)*per]) for r in range(rounds)]):.2f} ms, "
      f"through record --forward {med([med(proxy[r*per+1:(r+1)*per]) for r in range(rounds)]):.2f} ms, "
      f"added {med(later_added):.2f} ms (x{med(later_ratio):.1f}; rounds: {', '.join(f'{a:.2f}' for a in later_added)})")
print(f"of the first request through the proxy, CONNECT + certificate issue + TLS handshake with the client took {med(handshakes[0::per]):.2f} ms; "
      f"the rest is the proxy's first connection to the upstream (libcurl: TCP, TLS, verification) and the recording")
PY
