#!/usr/bin/env bash
# Regenerates the example of docs/drift.md ("Catching drift"): records the sample API through the
# cassette proxy, writes fixtures from the recorded bodies with one deliberately drifted, and runs
# `cassette diff` on them. Prints the commands and their real output; paste it into docs/drift.md.
#
# Fixtures are written with python3 from `cassette show --json`, so the script needs nothing but
# the two binaries; `cassette export` would harvest the same files.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/ensure-deps.sh >/dev/null

source scripts/lib.sh
bin="$(build_products cassette sample-api)"
open_workspace

cd "$work"
read -r api_pid api_url < <(start_server sample-api.log "$bin/sample-api" --port 0)
pids+=("$api_pid")
read -r proxy_pid proxy_url < <(start_server proxy.log "$bin/cassette" record --upstream "$api_url" --port 0 --quiet)
pids+=("$proxy_pid")

for path in /api/health /api/users/1 /api/users/2 '/api/users?limit=2'; do
    "$bin/cassette" request "$proxy_url$path" >/dev/null
done
"$bin/cassette" request -X POST -d '{"food":"banana","grams":120}' "$proxy_url/api/nutrition/analyze" >/dev/null

# Once the proxy has exited, the store is closed and every recording is in the file.
stop_server "$proxy_pid"

# One fixture per recorded GET, named as the mocks expect, from the recorded bodies. The users
# fixture drifts on purpose: "id" becomes a string and "email" is gone.
mkdir Fixtures
for key in 'GET /api/health' 'GET /api/users/1' 'GET /api/users?limit=2'; do
    "$bin/cassette" show --json "$key"
done | python3 -c '
import json, sys
decoder = json.JSONDecoder()
text = sys.stdin.read()
names = {"GET /api/health": "mock_api_health_get", "GET /api/users/1": "mock_api_users_id_get",
         "GET /api/users?limit=2": "mock_api_users_get"}
position = 0
while position < len(text):
    if text[position].isspace():
        position += 1
        continue
    recordings, position = decoder.raw_decode(text, position)
    for recording in recordings:
        body = recording["responseBody"]["json"]
        if recording["key"] == "GET /api/users/1":
            body["id"] = str(body["id"])
            del body["email"]
        with open("Fixtures/%s.json" % names[recording["key"]], "w") as file:
            json.dump(body, file, indent=2, sort_keys=True)
            file.write("\n")
'

echo '$ cassette list'
NO_COLOR=1 "$bin/cassette" list
echo
echo '$ ls Fixtures'
ls Fixtures
echo
echo '$ cat Fixtures/mock_api_users_id_get.json    # "id" is now a string, "email" is gone'
cat Fixtures/mock_api_users_id_get.json
echo
echo '$ cassette diff --fixtures Fixtures'
status=0
NO_COLOR=1 "$bin/cassette" diff --fixtures Fixtures || status=$?
echo "(exit status $status)"
