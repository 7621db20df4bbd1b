#!/usr/bin/env bash
# A realistic session against the WellPlate API at $API_BASE_URL, made with the live client
# (`cassette request`). Used to record the demo and the committed cassettes.db, and replayed as is.
set -uo pipefail
cassette="${CASSETTE_BIN:-cassette}"
quiet="${SESSION_QUIET:-}"

call() {
    [ -z "$quiet" ] && printf '\n$ cassette request %s\n' "$*"
    if [ -z "$quiet" ]; then
        "$cassette" request --retries 0 "$@"
    else
        "$cassette" request --retries 0 "$@" >/dev/null 2>&1
    fi
}

call /api/health
call /api/users
call /api/users/1
call -X POST -d '{"name":"Katherine Johnson","email":"katherine@example.com","role":"member"}' /api/users
call -X PATCH -d '{"role":"admin"}' /api/users/4
call -H 'Authorization: Bearer demo-secret-token' /api/me
call -X POST -d '{"food":"banana","grams":120}' /api/nutrition/analyze
call "/api/nutrition/history?limit=3"
call -X DELETE /api/users/4
# A 404 is recorded and replayed like any other answer.
call /api/users/42 || true
# One more call, for tests that check what a call the recordings lack does (a miss in replay).
if [ -n "${SESSION_EXTRA_CALL:-}" ]; then call "$SESSION_EXTRA_CALL"; fi
