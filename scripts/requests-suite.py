#!/usr/bin/env python3
"""The `requests` library's own test suite, pointed at a recording proxy instead of its httpbin.

Run by scripts/requests-suite.sh, which fetches the suite (the sdist from PyPI) and its test
dependencies into a virtual environment. One run, against one httpbin server (pytest-httpbin's,
the upstream the suite is written for):

  direct            the suite against httpbin itself: the tests that pass here are the ones counted
  cassette record   through `cassette record --upstream HTTPBIN`
  mitmdump record   through `mitmdump --mode reverse:HTTPBIN`, saving its flows (for comparison)
  (httpbin stopped)
  cassette replay   through `cassette replay` of what was recorded
  mitmdump replay   through `mitmdump --server-replay` of its flows

Only the tests that reach the plain-HTTP server (they use the `httpbin` fixture, not
`httpbin_secure`) are run. Prints the pass counts, and which counted tests failed where.

Some tests put the proxy's own address in their requests (`/redirect-to?url=http://127.0.0.1:PORT/html`)
and httpbin sends it back in `Location`. cassette records it as its placeholder and replays on
another free port than it recorded on, as `cassette run` does ("The proxy's own address in a
request" in docs/matching.md); mitmdump, which has no such rule, replays on the port it recorded on.

`--summary PATH` writes the counted tests and which of them failed through each run, as JSON.
"""

import argparse
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ElementTree

SELECTION_PLUGIN = '''
import os
import pytest

def pytest_collection_modifyitems(config, items):
    keep = [item for item in items if "httpbin" in getattr(item, "fixturenames", ()) and "httpbin_secure" not in item.fixturenames]
    dropped = [item for item in items if item not in keep]
    if dropped:
        config.hook.pytest_deselected(items=dropped)
    items[:] = keep
'''

# The suite's own fixture, reading the base URL from the environment when it is set.
CONFTEST_FROM = '''@pytest.fixture
def httpbin(httpbin):
    return prepare_url(httpbin)
'''
CONFTEST_TO = '''@pytest.fixture
def httpbin(httpbin):
    import os, types
    base = os.environ.get("REQUESTS_SUITE_BASE")
    return prepare_url(types.SimpleNamespace(url=base) if base else httpbin)
'''

UPSTREAM = '''
import sys, time
from httpbin import app
from pytest_httpbin import serve
server = serve.Server(application=app)
server.start()
print(server.url, flush=True)
sys.stdin.read()
server.stop()
'''


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def wait_for_port(port, process, what, timeout=120):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            sys.exit(f"error: {what} exited with {process.returncode} before listening")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            time.sleep(0.2)
    sys.exit(f"error: {what} did not listen on {port} within {timeout} s")


def stop(process):
    if process.poll() is None:
        process.send_signal(2)  # SIGINT: mitmdump writes its flows, cassette stops cleanly
        try:
            process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def run_suite(python, suite, base, name, work):
    report = os.path.join(work, f"{name}.xml")
    environment = dict(os.environ, REQUESTS_SUITE_BASE=base, PYTHONPATH=work)
    command = [python, "-m", "pytest", "-q", "-p", "suite_selection", "-p", "no:cacheprovider", f"--junitxml={report}", "tests"]
    with open(os.path.join(work, f"{name}.log"), "w") as log:
        subprocess.run(command, cwd=suite, env=environment, stdout=log, stderr=subprocess.STDOUT)
    passed = set()
    for case in ElementTree.parse(report).iter("testcase"):
        if not any(child.tag in ("failure", "error", "skipped") for child in case):
            passed.add(f"{case.get('classname')}::{case.get('name')}")
    return passed


def cassette(binary, arguments, work, name):
    log = open(os.path.join(work, f"{name}.proxy.log"), "w")
    process = subprocess.Popen([binary] + arguments, stdout=subprocess.PIPE, stderr=log, text=True, env=dict(os.environ, NO_COLOR="1"))
    line = process.stdout.readline().strip()
    if not line.startswith("listening on "):
        sys.exit(f"error: cassette {' '.join(arguments)} printed {line!r}; see {log.name}")
    # Its request log goes on to stdout: keep draining it into the log file.
    subprocess.Popen(["cat"], stdin=process.stdout, stdout=log)
    return process, line[len("listening on "):]


def mitmdump(arguments, work, name, port):
    log = open(os.path.join(work, f"{name}.proxy.log"), "w")
    command = ["mitmdump", "--listen-host", "127.0.0.1", "--listen-port", str(port), "--set", f"confdir={work}/mitmproxy"] + arguments
    process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT)
    wait_for_port(port, process, "mitmdump")
    return process, f"http://127.0.0.1:{port}"


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--python", required=True, help="the virtual environment's python, with the suite's dependencies")
    parser.add_argument("--suite", required=True, help="the unpacked requests sdist")
    parser.add_argument("--cassette", required=True, help="the cassette binary")
    parser.add_argument("--work", help="where logs, reports, the store and the flows go (default: a new temporary directory)")
    parser.add_argument("--no-mitmproxy", action="store_true", help="skip the mitmdump comparison")
    parser.add_argument("--summary", help="write the counted tests and the failures of each run to this JSON file")
    options = parser.parse_args()
    work = options.work or tempfile.mkdtemp(prefix="requests-suite-")
    os.makedirs(work, exist_ok=True)

    conftest = os.path.join(options.suite, "tests", "conftest.py")
    text = open(conftest).read()
    if CONFTEST_TO not in text:
        if CONFTEST_FROM not in text:
            sys.exit(f"error: {conftest} has no httpbin fixture of the expected form; this script knows requests 2.3x")
        open(conftest, "w").write(text.replace(CONFTEST_FROM, CONFTEST_TO))
    open(os.path.join(work, "suite_selection.py"), "w").write(SELECTION_PLUGIN)

    upstream_log = open(os.path.join(work, "httpbin.log"), "w")
    upstream = subprocess.Popen([options.python, "-c", UPSTREAM], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=upstream_log, text=True)
    base = upstream.stdout.readline().strip()
    if not base.startswith("http"):
        sys.exit("error: httpbin did not start")
    print(f"httpbin at {base}; logs and reports in {work}", flush=True)
    store = os.path.join(work, "cassettes.db")
    flows = os.path.join(work, "mitmproxy.flows")
    results = {}

    results["direct"] = run_suite(options.python, options.suite, base, "direct", work)
    print(f"direct: {len(results['direct'])} tests pass", flush=True)

    cassette_port, mitmdump_port = str(free_port()), free_port()
    proxy, url = cassette(options.cassette, ["record", "--upstream", base, "--port", cassette_port, "--db", store], work, "cassette-record")
    results["cassette record"] = run_suite(options.python, options.suite, url, "cassette-record", work)
    stop(proxy)
    if not options.no_mitmproxy:
        proxy, url = mitmdump(["--mode", f"reverse:{base}", "-w", flows], work, "mitmdump-record", mitmdump_port)
        results["mitmdump record"] = run_suite(options.python, options.suite, url, "mitmdump-record", work)
        stop(proxy)

    upstream.stdin.close()
    upstream.wait(timeout=60)

    replay_port = str(free_port())
    while replay_port == cassette_port:
        replay_port = str(free_port())
    proxy, url = cassette(options.cassette, ["replay", "--port", replay_port, "--db", store], work, "cassette-replay")
    results["cassette replay"] = run_suite(options.python, options.suite, url, "cassette-replay", work)
    stop(proxy)
    if not options.no_mitmproxy:
        # Lazily: with httpbin gone, an eager connection to it would fail every request.
        replay = [
            "--mode", f"reverse:{base}", "--server-replay", flows, "--set", "server_replay_extra=kill", "--set", "server_replay_reuse=true",
            "--set", "connection_strategy=lazy",
        ]
        proxy, url = mitmdump(replay, work, "mitmdump-replay", mitmdump_port)
        results["mitmdump replay"] = run_suite(options.python, options.suite, url, "mitmdump-replay", work)
        stop(proxy)

    counted = results["direct"]
    if options.summary:
        summary = {"counted": sorted(counted), "failed": {name: sorted(counted - passed) for name, passed in results.items() if name != "direct"}}
        with open(options.summary, "w") as file:
            json.dump(summary, file, indent=1)
    print()
    print(f"{'run':<18} passed (of the {len(counted)} that pass against httpbin directly)")
    for name, passed in results.items():
        print(f"{name:<18} {len(passed & counted)}")
    for name, passed in results.items():
        failed = sorted(counted - passed)
        if failed and name != "direct":
            print(f"\nfailed through {name}:")
            for test in failed:
                print(f"  {test}")


if __name__ == "__main__":
    main()
