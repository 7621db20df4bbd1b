"""A WebSocket client for cassette's tests, on the PyPI `websockets` package: sends the messages
it is given, one at a time, each after the answer to the one before.

usage: websocket_send.py URL MESSAGE...
Waits for the server's hello, then for each MESSAGE sends it and waits for one answer; then sends
"bye" and reads until the connection closes. Prints one JSON line per message received, then
{"closed": CODE, "reason": REASON}, as websocket_client.py does.
"""
import json
import sys

from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

url, messages = sys.argv[1], sys.argv[2:]

with connect(url, subprotocols=["chat.v1"], compression=None, open_timeout=10) as connection:
    try:
        print(json.dumps({"recv": connection.recv(timeout=10)}), flush=True)
        for message in messages:
            connection.send(message)
            print(json.dumps({"recv": connection.recv(timeout=10)}), flush=True)
        connection.send("bye")
        while True:
            print(json.dumps({"recv": connection.recv(timeout=10)}), flush=True)
    except ConnectionClosed as closed:
        frame = closed.rcvd
        print(json.dumps({"closed": frame.code if frame else None, "reason": frame.reason if frame else None}), flush=True)
