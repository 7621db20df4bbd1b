#!/usr/bin/env bash
# Installs what the test suite needs beyond the build, only when it is missing: the build's own
# packages (scripts/ensure-deps.sh), the Debian tools the tests start (nginx, the HTTPS upstream
# that offers HTTP/2; openssl for test certificates; python3 and its pip; curl; h2load, many
# concurrent HTTP/2 streams on one connection; nghttpd, an upstream that speaks h2c only), and the real peers
# the tests compare against, from PyPI (openapi-spec-validator, detect-secrets, mitmproxy's
# mitmdump, websockets, wsproto). scripts/test.sh calls it; the demo needs none of these.
#   scripts/ensure-test-peers.sh [COMMAND...]   (more Debian packages, as ensure-deps.sh takes them)
set -euo pipefail
here="$(dirname "$0")"

"$here/ensure-deps.sh" nginx openssl python3 pip3 curl h2load nghttpd "$@"

# mitmproxy takes about two minutes to install on a busy two-core machine. A failure here is not
# fatal: each test that needs a peer installs it again on demand (ExternalTool.ensure).
for tool in openapi-spec-validator:openapi-spec-validator detect-secrets:detect-secrets mitmdump:mitmproxy; do
    "$here/ensure-pip-tool.sh" "${tool%%:*}" "${tool#*:}" \
        || echo "warning: could not install ${tool#*:} now; its tests will try again" >&2
done

# The WebSocket tests' peers: the websockets package (its upstream and client) and wsproto (a
# sans-IO client that also writes bad frames).
"$here/ensure-pip-tool.sh" websockets websockets || echo "warning: could not install websockets now; its tests will try again" >&2
"$here/ensure-pip-module.sh" wsproto wsproto || echo "warning: could not install wsproto now; its tests will try again" >&2
# Socket.IO over Engine.IO v4: python-socketio's server under uvicorn, its client on websocket-client.
"$here/ensure-pip-module.sh" socketio python-socketio uvicorn websocket-client \
    || echo "warning: could not install python-socketio now; its tests will try again" >&2

# Several operations on one socket: a strawberry-graphql server under uvicorn and the gql
# client's websockets transport (Tests/Peers/multiplexed_peers.py).
"$here/ensure-pip-module.sh" strawberry strawberry-graphql uvicorn || echo "warning: could not install strawberry-graphql now; its tests will try again" >&2
"$here/ensure-pip-module.sh" gql.transport.websockets "gql[websockets]" || echo "warning: could not install gql's websockets transport now; its tests will try again" >&2

# An upstream that speaks HTTP/1.1 and h2c with prior knowledge on one port (Tests/Peers/h2c_upstream.py).
"$here/ensure-pip-module.sh" hypercorn hypercorn || echo "warning: could not install hypercorn now; its tests will try again" >&2

# The web UI's browser tests: Debian's chromium and chromium-driver, PyPI's selenium, and the
# accessibility audit's axe-core script (PyPI's axe-playwright-python).
"$here/ensure-axe.sh" || echo "warning: could not install the browser peers now; the UI's browser tests will try again" >&2
