#!/usr/bin/env python3
"""The store of the replay-price benchmarks (stale.sh, urls.sh): a HAR of 300 JSON recordings of
100 B to 8 KiB from http://127.0.0.1:8081, for `cassette import`, and the paths wrk requests.

  items-har.py WORK [--recorded ISO-DATE] [--paged]

Writes WORK/items.har and WORK/paths. --paged names the pages /api/items?page=N and gives each a
`Link` to the next and the first page at the upstream's address (what urls.sh rewrites)."""
import argparse
import json

parser = argparse.ArgumentParser()
parser.add_argument("work")
parser.add_argument("--recorded", default="2026-06-15T15:06:40.000Z")
parser.add_argument("--paged", action="store_true")
arguments = parser.parse_args()

upstream = "http://127.0.0.1:8081"
entries, paths = [], []
for n in range(300):
    body = json.dumps({"id": n, "items": ["x" * 40] * (2 + (n * 7) % 200)})
    path = f"/api/items?page={n}" if arguments.paged else f"/api/items/{n}"
    paths.append(path)
    headers = [{"name": "Content-Type", "value": "application/json"}]
    if arguments.paged:
        headers.append({"name": "Link", "value": f'<{upstream}/api/items?page={n + 1}>; rel="next", <{upstream}/api/items?page=0>; rel="first"'})
    entries.append({
        "startedDateTime": arguments.recorded, "time": 5,
        "request": {"method": "GET", "url": upstream + path, "httpVersion": "HTTP/1.1",
                    "cookies": [], "headers": [{"name": "Accept", "value": "application/json"}],
                    "queryString": [], "headersSize": -1, "bodySize": 0},
        "response": {"status": 200, "statusText": "OK", "httpVersion": "HTTP/1.1", "cookies": [],
                     "headers": headers,
                     "content": {"size": len(body), "mimeType": "application/json", "text": body},
                     "redirectURL": "", "headersSize": -1, "bodySize": len(body)},
        "cache": {}, "timings": {"send": 0, "wait": 5, "receive": 0},
    })
with open(f"{arguments.work}/items.har", "w") as har:
    json.dump({"log": {"version": "1.2", "creator": {"name": "items-har.py", "version": "1"}, "entries": entries}}, har)
with open(f"{arguments.work}/paths", "w") as listing:
    listing.write("\n".join(paths) + "\n")
