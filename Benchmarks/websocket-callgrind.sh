#!/usr/bin/env bash
# Instructions per WebSocket turn, counted by callgrind (repeatable where timings on a shared
# machine are not): the bare echo server (`bench-websocket echo`) and `cassette replay --ws-timing
# fast` of a recorded echo conversation, each under valgrind, the counters zeroed after a warm-up
# connection, then one connection of TURNS turns (`message N` and its echo). The client runs
# natively. Prints the user-space instructions per turn of each server, and their ratio.
#   Benchmarks/websocket-callgrind.sh                      # release build of this tree
#   BINS="/tmp/old /tmp/new" Benchmarks/websocket-callgrind.sh   # several builds, same run
# Each directory in BINS holds `cassette` and `bench-websocket`.
set -euo pipefail
cd "$(dirname "$0")/.."
turns="${TURNS:-2000}"

source scripts/lib.sh
bins="${BINS:-$(CONFIGURATION="${CONFIGURATION:-release}" build_products cassette bench-websocket)}"
open_workspace

# valgrind 3.19 cannot read the DWARF of Swift 6.3 binaries ("Possibly corrupted debuginfo
# file"): the copies it runs keep their symbols but no debug info.
# It also crashes in libdispatch's main thread, which calls sigsuspend with a mask in read-only
# memory that valgrind rewrites in place: a preloaded sigsuspend (Swift, Benchmarks/valgrind/)
# passes glibc's a copy.
swiftc -O -emit-library -o "$work/sigsuspend.so" Benchmarks/valgrind/sigsuspend.swift

# measure NAME BIN COMMAND... : the command's instructions per turn under callgrind.
measure() {
    local name="$1" bin="$2"; shift 2
    local pid url
    read -r pid url < <(START_TRIES=2400 start_server "$work/$name.log" env LD_PRELOAD="$work/sigsuspend.so" \
        valgrind --tool=callgrind --callgrind-out-file="$work/$name.cg" "$@")
    pids+=("$pid")
    "$bin/bench-websocket" load "$url/echo" 1 0 200 >/dev/null
    callgrind_control --zero "$pid" >/dev/null 2>&1
    "$bin/bench-websocket" load "$url/echo" 1 0 "$turns" >/dev/null
    callgrind_control --dump "$pid" >/dev/null 2>&1
    stop_server "$pid"
    awk '/^summary:/ {print $2}' "$work/$name.cg.1"
}

printf '| build | echo server, instructions/turn | cassette replay, instructions/turn | replay / echo |\n|---|---:|---:|---:|\n'
for bin in $bins; do
    copy="$work/bin-$(echo "$bin" | tr -c 'A-Za-z0-9\n' '_')"
    mkdir -p "$copy"
    for product in cassette bench-websocket; do objcopy --strip-debug "$bin/$product" "$copy/$product"; done
    read -r echo_pid echo_url < <(start_server "$work/echo.log" "$copy/bench-websocket" echo)
    pids+=("$echo_pid")
    read -r rec_pid rec_url < <(start_server "$work/record.log" "$copy/cassette" record --upstream "$echo_url" --db "$copy/ws.db" --port 0 --quiet)
    pids+=("$rec_pid")
    "$copy/bench-websocket" load "$rec_url/echo" 1 0 "$turns" >/dev/null
    stop_server "$rec_pid"
    stop_server "$echo_pid"
    echo_ir=$(measure echo "$copy" "$copy/bench-websocket" echo)
    replay_ir=$(measure replay "$copy" "$copy/cassette" replay --db "$copy/ws.db" --port 0 --quiet --ws-timing fast)
    python3 -c "import sys; e, r, t = int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]); print('| %s | %d | %d | %.2fx |' % (sys.argv[1], e // t, r // t, r / e))" \
        "$bin" "$echo_ir" "$replay_ir" "$turns"
done
