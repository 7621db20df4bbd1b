#!/usr/bin/env bash
# Keying one large request body (issue 45: the core's SHA-256 and HMAC became swift-crypto's).
# `bench-tool body-keying` keys an application/octet-stream body as the proxy keys a request
# (`ReplayKeyer.key`: redaction, the learned-secret scrub of bodies up to 1 MiB, the SHA-256
# fingerprint): 1 MiB and 16 MiB with nothing learned, and 1 MiB after one secret was learned (then
# every token of the body is hashed with HMAC-SHA-256). Two measures of each build in BINS:
#   - instructions per key, counted by callgrind, which a loaded machine does not change: a run
#     that keys N times less one that only sets up and warms up, divided by N;
#   - milliseconds per key, ROUNDS rounds that alternate the builds; the median of each build and,
#     for two builds, the ratio of the second's median to the first's.
# Prints a Markdown table; writes nothing (BENCHMARKS.md quotes a run).
#   Benchmarks/body-keying.sh                         # release build of this tree
#   BINS="OLD_BIN NEW_BIN" Benchmarks/body-keying.sh  # each directory holds a release `bench-tool`
set -euo pipefail
cd "$(dirname "$0")/.."
rounds="${ROUNDS:-7}"

source scripts/lib.sh
bins="${BINS:-$(CONFIGURATION=release build_products bench-tool)}"
open_workspace

# The same two workarounds as Benchmarks/websocket-callgrind.sh: valgrind 3.19 cannot read the
# DWARF of Swift 6.3 binaries (the copies run keep their symbols only), and a preloaded sigsuspend
# keeps it from crashing in libdispatch's main thread.
swiftc -O -emit-library -o "$work/sigsuspend.so" Benchmarks/valgrind/sigsuspend.swift
copies=()
for bin in $bins; do
    copy="$work/bin-${#copies[@]}"
    mkdir -p "$copy"
    objcopy --strip-debug "$bin/bench-tool" "$copy/bench-tool"
    copies+=("$copy")
done

# Each case: MIB, keys under callgrind, keys per timed run, and `learned` or nothing.
cases=("1 4 40" "16 1 5" "1 1 5 learned")

# instructions COPY MIB KEYS [learned] : user-space instructions of one run.
instructions() {
    local copy="$1"; shift
    local out="$work/cg.$RANDOM"
    LD_PRELOAD="$work/sigsuspend.so" valgrind --tool=callgrind --callgrind-out-file="$out" "$copy/bench-tool" body-keying "$@" >/dev/null 2>&1
    awk '/^summary:/ {print $2}' "$out"
    rm -f "$out"
}

results="$work/results"
for entry in "${cases[@]}"; do
    read -r mib cg_keys timed_keys learned <<<"$entry"
    for index in "${!copies[@]}"; do
        copy="${copies[$index]}"
        base=$(instructions "$copy" "$mib" 0 $learned)
        keyed=$(instructions "$copy" "$mib" "$cg_keys" $learned)
        echo "ir $mib${learned:+ $learned} $index $(( (keyed - base) / cg_keys ))" >>"$results"
    done
    for _ in $(seq 1 "$rounds"); do
        for index in "${!copies[@]}"; do
            seconds=$("${copies[$index]}/bench-tool" body-keying "$mib" "$timed_keys" $learned | python3 -c 'import json, sys; print(json.load(sys.stdin)["secondsPerKey"])')
            echo "time $mib${learned:+ $learned} $index $seconds" >>"$results"
        done
    done
done

python3 - "$results" $bins <<'PY'
import statistics, sys
lines = [line.split() for line in open(sys.argv[1])]
# A build is named by its scratch directory (`.build-bench-old/release` is `.build-bench-old`).
bins = [(b.rstrip("/").split("/")[-2] if b.rstrip("/").split("/")[-1] in ("release", "debug") else b.rstrip("/").split("/")[-1]) for b in sys.argv[2:]]
cases = []
ir, times = {}, {}
for fields in lines:
    kind, index = fields[0], int(fields[-2])
    case = " ".join(fields[1:-2])
    if case not in cases: cases.append(case)
    (ir if kind == "ir" else times).setdefault((case, index), []).append(float(fields[-1]))
def label(case):
    parts = case.split()
    return f"{parts[0]} MiB" + (", one secret learned" if len(parts) > 1 else "")
header = "| body | " + " | ".join(f"{b}: instructions/key | {b}: ms/key (median)" for b in bins)
if len(bins) == 2: header += " | instructions, 2nd / 1st | time, 2nd / 1st (rounds)"
print(header + " |")
print("|---|" + "---:|---:|" * len(bins) + ("---:|---|" if len(bins) == 2 else ""))
for case in cases:
    row = f"| {label(case)} |"
    for index in range(len(bins)):
        row += f" {int(ir[(case, index)][0]):,} | {statistics.median(times[(case, index)]) * 1000:.3f} |"
    if len(bins) == 2:
        ratio_ir = ir[(case, 1)][0] / ir[(case, 0)][0]
        rounds = [new / old for old, new in zip(times[(case, 0)], times[(case, 1)])]
        ratio_t = statistics.median(times[(case, 1)]) / statistics.median(times[(case, 0)])
        row += f" {ratio_ir:.3f}x | {ratio_t:.3f}x ({', '.join(f'{r:.2f}' for r in rounds)}) |"
    print(row)
PY
