"""A WebSocket client for cassette's tests, on the PyPI `websockets` package.

usage: websocket_client.py URL [script] [--proxy PROXY_URL] [--cafile CA_PEM] [--header "NAME: VALUE"] [--deflate] [--times]
(--proxy: through an HTTP proxy with CONNECT, as websockets does; --cafile: the CA that `wss://`
certificates are checked against; --header: one more handshake header; --deflate: offer permessage-deflate, and print the extensions
agreed as {"extensions": ...} first; --times: each message line also has "at", the milliseconds since the
connection opened.)
Scripts: "chat" (hello, auth with a token, an add request, an echo, three ticks, bye),
"changed" (the add request with other parameters), "large N" (one text message of N bytes),
"fragments" (asks for the upstream's fragmented message and prints its frames as {"fragments": [...]}, then bye),
"host" (asks for the Host header the upstream's handshake carried, then bye),
"markup" (a text message holding <script> and <img onerror>, then 5 binary bytes, each echoed, then bye),
"ids BASE [changed]" (add requests with the client-chosen ids BASE+1..BASE+3, then bye; "changed":
the second with other parameters),
"shapes TOKEN" (a note that carries TOKEN in free text, echoed, then the client closes with 4001
"revoked TOKEN").
Prints one JSON line per message received ({"recv_hex": ...} for a binary one), then {"closed": CODE, "reason": REASON}.
"""
import json
import ssl
import sys
import time

from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

arguments = sys.argv[1:]
options = {}
for name in ("--proxy", "--cafile", "--header"):
    if name in arguments:
        at = arguments.index(name)
        options[name] = arguments[at + 1]
        del arguments[at:at + 2]
deflate = "--deflate" in arguments
if deflate:
    arguments.remove("--deflate")
times = "--times" in arguments
if times:
    arguments.remove("--times")
opened = None
url = arguments[0]
script = arguments[1] if len(arguments) > 1 else "chat"
extra = {"proxy": options.get("--proxy")}
if "--header" in options:
    name, _, value = options["--header"].partition(":")
    extra["additional_headers"] = {name.strip(): value.strip()}
if "--cafile" in options:
    extra["ssl"] = ssl.create_default_context(cafile=options["--cafile"])


def show(message):
    line = {"recv": message} if isinstance(message, str) else {"recv_hex": message.hex()}
    if times:
        line["at"] = round((time.monotonic() - opened) * 1000, 1)
    print(json.dumps(line), flush=True)


def receive_until(connection, predicate):
    while True:
        message = connection.recv(timeout=10)
        show(message)
        if predicate(message):
            return


with connect(url, subprotocols=["chat.v1"], compression="deflate" if deflate else None, max_size=None, open_timeout=10, **extra) as connection:
    opened = time.monotonic()
    if deflate:
        print(json.dumps({"extensions": connection.response.headers.get("Sec-WebSocket-Extensions")}), flush=True)
    try:
        receive_until(connection, lambda m: "hello" in m)
        if script == "fragments":
            connection.send("fragments")
            print(json.dumps({"fragments": list(connection.recv_streaming())}), flush=True)
            connection.send("bye")
            receive_until(connection, lambda m: False)
        if script == "host":
            connection.send("host")
            receive_until(connection, lambda m: '"host"' in m)
            connection.send("bye")
            receive_until(connection, lambda m: False)
        if script == "markup":
            markup = '<script>window.__pwned = 3</script><img src="x" onerror="window.__pwned = 4">'
            connection.send(markup)
            receive_until(connection, lambda m: m == markup)
            connection.send(bytes([0, 1, 2, 254, 255]))
            receive_until(connection, lambda m: isinstance(m, bytes))
            connection.send("bye")
            receive_until(connection, lambda m: False)
        if script.startswith("ids"):
            # "ids BASE [changed]": add requests numbered BASE+1, BASE+2, BASE+3, each answered
            # before the next; "changed" sends the second with other parameters.
            words = script.split()
            first, changed = int(words[1]), words[2:] == ["changed"]
            for n in (1, 2, 3):
                params = [n, 11 if changed and n == 2 else 10]
                connection.send(json.dumps({"id": first + n, "method": "add", "params": params}))
                receive_until(connection, lambda m: '"result"' in m)
            connection.send("bye")
            receive_until(connection, lambda m: False)
        if script.startswith("shapes"):
            token = script.split()[1]
            connection.send(json.dumps({"type": "note", "text": "deploy with " + token}))
            receive_until(connection, lambda m: "deploy with" in m)
            connection.close(4001, "revoked " + token)
            receive_until(connection, lambda m: False)
        if script.startswith("large"):
            connection.send("x" * int(script.split()[1]))
            receive_until(connection, lambda m: False)
        connection.send(json.dumps({"type": "auth", "token": "sk-live-token-1234567890"}))
        receive_until(connection, lambda m: "authed" in m)
        params = [1, 3] if script == "changed" else [1, 2]
        connection.send(json.dumps({"id": 7, "method": "add", "params": params}))
        receive_until(connection, lambda m: '"id": 7' in m)
        connection.send("echo me")
        receive_until(connection, lambda m: m == "echo me")
        receive_until(connection, lambda m: '"n": 3' in m)
        connection.send("bye")
        receive_until(connection, lambda m: False)
    except ConnectionClosed as closed:
        frame = closed.rcvd
        print(json.dumps({"closed": frame.code if frame else None, "reason": frame.reason if frame else None}), flush=True)
