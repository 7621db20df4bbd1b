#!/usr/bin/env bash
# What the progress line costs: CPU time (user + system, median of ROUNDS runs) of the long
# commands on a store of COUNT recordings (default 20,000) over 100 endpoints, with standard
# error on a pseudo-terminal (the line drawn, up to ten times a second) against the same command
# with --quiet and standard error on a pipe (no line), the baseline, in the same run. CPU time,
# not wall time: the drawing's cost is CPU, and it is far steadier than wall time on a busy machine.
#   Benchmarks/progress.sh                                        # release build, 5 rounds
#   COUNT=2000 ROUNDS=1 CONFIGURATION=debug Benchmarks/progress.sh   # a smoke run
set -euo pipefail
cd "$(dirname "$0")/.."
count="${COUNT:-20000}"
rounds="${ROUNDS:-5}"
configuration="${CONFIGURATION:-release}"

source scripts/lib.sh
scripts/ensure-deps.sh python3 >&2

echo "==> Building ($configuration)" >&2
bin="$(CONFIGURATION="$configuration" build_products cassette bench-tool)"

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
store="$work/api.db"
echo "==> Generating $count recordings" >&2
stats="$("$bin/bench-tool" make-api-store "$store" "$count")"
echo "    $stats" >&2

# cpu TERMINAL COMMAND...: the command's CPU seconds, its stderr on a new pseudo-terminal
# (TERMINAL=1, TERM=xterm, 100 columns) or on a pipe with --quiet added (TERMINAL=0).
cpu() {
    python3 - "$@" <<'PY'
import fcntl, os, pty, struct, subprocess, sys, termios
terminal, command = sys.argv[1] == "1", sys.argv[2:]
environment = dict(os.environ, TERM="xterm")
if terminal:
    master, replica = pty.openpty()
    fcntl.ioctl(replica, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 100, 0, 0))
    child = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=replica, env=environment)
    os.close(replica)
    drawn = b""
    while True:
        try:
            chunk = os.read(master, 65536)
        except OSError:
            break
        if not chunk:
            break
        drawn += chunk
    if b"\r" not in drawn:
        sys.exit("no progress line was drawn: " + repr(drawn[:200]))
else:
    child = subprocess.Popen(command + ["--quiet"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=environment)
    if child.stderr.read():
        sys.exit("--quiet printed on stderr")
_, status, usage = os.wait4(child.pid, 0)
if status != 0:
    sys.exit(f"{command} exited with {status}")
print(f"{usage.ru_utime + usage.ru_stime:.3f}")
PY
}

median() { sort -n | sed -n "$(( (rounds + 1) / 2 ))p"; }

echo
echo "### The progress line on $count recordings ($configuration build)"
echo
echo "| command | CPU, --quiet on a pipe (baseline) | CPU, line drawn on a terminal | ratio |"
echo "|---|---:|---:|---:|"
while IFS='|' read -r name arguments; do
    read -r -a words <<<"$arguments"
    quiet=() drawn=()
    for _ in $(seq 1 "$rounds"); do
        quiet+=("$(cpu 0 "$bin/cassette" "${words[@]}")")
        drawn+=("$(cpu 1 "$bin/cassette" "${words[@]}")")
    done
    a="$(printf '%s\n' "${quiet[@]}" | median)"
    b="$(printf '%s\n' "${drawn[@]}" | median)"
    echo "| \`cassette $name\` | $a s | $b s | $(awk -v a="$a" -v b="$b" 'BEGIN { printf "%.3f", b / a }') |"
done <<EOF_COMMANDS
audit|audit --db $store
redact --dry-run|redact --dry-run --db $store
openapi|openapi --db $store --out $work/openapi.json
codegen swift|codegen swift --db $store --out $work/Models
EOF_COMMANDS
