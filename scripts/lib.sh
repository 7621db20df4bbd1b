# Shell helpers shared by the demo, the cassettes.db recorder and the benchmarks. Source it.

# Builds the named products (debug, or the configuration in $CONFIGURATION) and prints the bin path.
build_products() {
    local configuration="${CONFIGURATION:-debug}"
    for product in "$@"; do
        swift build -c "$configuration" --product "$product" >/dev/null
    done
    swift build -c "$configuration" --show-bin-path
}

# start_server LOG COMMAND... : starts COMMAND in the background and prints "PID URL" once it has
# printed its "listening on URL" line; fails with the log when it exits or takes over 20 s
# (START_TRIES times 0.05 s).
start_server() {
    local log="$1"; shift
    "$@" >"$log" 2>&1 &
    local pid=$!
    for _ in $(seq 1 "${START_TRIES:-400}"); do
        if grep -q '^listening on ' "$log" 2>/dev/null; then
            echo "$pid $(sed -n 's/^listening on //p' "$log" | head -n1)"
            return 0
        fi
        kill -0 "$pid" 2>/dev/null || { cat "$log" >&2; return 1; }
        sleep 0.05
    done
    echo "error: $* did not print 'listening on' in time" >&2
    return 1
}

# stop_server PID : SIGTERM, then wait (up to 20 s) for the graceful exit. The server may have been
# started in a subshell (`read ... < <(start_server ...)`), where `wait` cannot see it: poll instead.
stop_server() {
    kill -TERM "$1" 2>/dev/null || return 0
    for _ in $(seq 1 400); do
        kill -0 "$1" 2>/dev/null || return 0
        sleep 0.05
    done
    echo "warning: process $1 did not stop within 20 s; killing it" >&2
    kill -KILL "$1" 2>/dev/null || true
}

# open_workspace : a temporary folder in $work and a list $pids of started servers; on exit the
# servers are stopped and the folder removed. Add each server's pid with `pids+=("$pid")`.
open_workspace() {
    work="$(mktemp -d)"
    pids=()
    trap close_workspace EXIT
}

close_workspace() {
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    wait 2>/dev/null || true
    rm -rf "$work"
}
