"""A WebSocket client for cassette's tests on the PyPI `wsproto` package (sans-IO, over a plain
socket), which also writes frames byte by byte where a well-behaved client never would.

usage: websocket_wsproto_client.py URL [script [argument]] [--deflate] [--proxy http://HOST:PORT]
--deflate: offer permessage-deflate (server_no_context_takeover, server_max_window_bits=10), print
the agreement as {"extensions": ...} after the handshake, and after the end how many of the
messages received came compressed: {"compressed": N, "messages": M}.
--proxy: connect to that HTTP proxy and send the handshake to it in absolute form,
`GET http://host:port/path HTTP/1.1`, without CONNECT, as RFC 9112 §3.2.2 has clients talk to
a proxy.
Scripts:
  chat             the same conversation as websocket_client.py's "chat" (hello, auth, add, echo,
                   three ticks, bye), through wsproto;
  chat-fragmented  the same, with "echo me" sent in two fragments ("echo " and "me");
  unmasked         after hello, a text frame without a mask (RFC 6455 §5.1 forbids it);
  reserved-opcode  after hello, a masked frame with the reserved opcode 0x3;
  bad-utf8         after hello, a masked text frame whose payload is not UTF-8;
  echo             after hello, "echo me", then reads until the connection ends;
  hold FILE        after hello, "echo me" and its echo, creates FILE and reads until the end;
  slow-close       after hello, "bye", and the server's close answered only 500 ms later (a
                   client whose close reply comes after the proxy has stored the server's close).
Prints one JSON line per message received, then {"closed": CODE, "reason": REASON}, with nulls
when the connection dropped without a close frame.
"""
import json
import os
import socket
import struct
import sys
import time
from urllib.parse import urlparse

from wsproto import ConnectionType, WSConnection
from wsproto.events import (AcceptConnection, BytesMessage, CloseConnection, Message, Ping,
                            RejectConnection, Request, TextMessage)
from wsproto.extensions import PerMessageDeflate

arguments = sys.argv[1:]
deflate = "--deflate" in arguments
if deflate:
    arguments.remove("--deflate")
proxy = None
if "--proxy" in arguments:
    at = arguments.index("--proxy")
    proxy = urlparse(arguments[at + 1])
    del arguments[at:at + 2]
url = urlparse(arguments[0])
script = arguments[1] if len(arguments) > 1 else "chat"
argument = arguments[2] if len(arguments) > 2 else None
counts = {"compressed": 0, "messages": 0}


class CountingDeflate(PerMessageDeflate):
    """wsproto's own permessage-deflate, counting the messages whose first frame sets RSV1."""

    def frame_inbound_header(self, proto, opcode, rsv, payload_length):
        if opcode.value in (1, 2):
            counts["messages"] += 1
            counts["compressed"] += 1 if rsv.rsv1 else 0
        return super().frame_inbound_header(proto, opcode, rsv, payload_length)


peer = proxy or url
sock = socket.create_connection((peer.hostname, peer.port), timeout=10)
ws = WSConnection(ConnectionType.CLIENT)
pending = []
partial = []


class Ended(Exception):
    pass


def show(message):
    print(json.dumps({"recv": message}), flush=True)


def end(code, reason):
    print(json.dumps({"closed": code, "reason": reason}), flush=True)
    raise Ended()


def next_event():
    while not pending:
        data = sock.recv(65536)
        if not data:
            end(None, None)
        ws.receive_data(data)
        pending.extend(ws.events())
    return pending.pop(0)


def receive():
    """The next whole message; answers pings and the close handshake."""
    while True:
        event = next_event()
        if isinstance(event, Ping):
            sock.sendall(ws.send(event.response()))
        elif isinstance(event, CloseConnection):
            if script == "slow-close":
                time.sleep(0.5)
            try:
                sock.sendall(ws.send(event.response()))
            except Exception:
                pass
            end(event.code, event.reason or "")
        elif isinstance(event, RejectConnection):
            end(None, "rejected with %d" % event.status_code)
        elif isinstance(event, (TextMessage, BytesMessage)):
            partial.append(event.data)
            if event.message_finished:
                joined = "".join(partial) if isinstance(event, TextMessage) else b"".join(partial).hex()
                partial.clear()
                show(joined)
                return joined


def receive_until(predicate):
    while not predicate(receive()):
        pass


def send_text(text):
    sock.sendall(ws.send(TextMessage(data=text)))


def raw_frame(first_byte, payload, masked=True):
    """A frame written by hand: wsproto refuses to write the bad ones."""
    if not masked:
        return bytes([first_byte, len(payload)]) + payload
    mask = os.urandom(4)
    return bytes([first_byte, 0x80 | len(payload)]) + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload))


def handshake():
    target = url.path or "/"
    if url.query:
        target += "?" + url.query
    if proxy:
        # The request-target a proxy gets: the whole URL, with the scheme HTTP spells it in.
        target = ("https" if url.scheme == "wss" else "http") + "://" + url.netloc + target
    extensions = [CountingDeflate(server_no_context_takeover=True, server_max_window_bits=10)] if deflate else []
    sock.sendall(ws.send(Request(host=url.netloc, target=target, subprotocols=["chat.v1"], extensions=extensions)))
    event = next_event()
    if isinstance(event, RejectConnection):
        end(None, "rejected with %d" % event.status_code)
    assert isinstance(event, AcceptConnection), event
    if deflate:
        print(json.dumps({"extensions": [repr(extension) for extension in event.extensions]}), flush=True)


try:
    handshake()
    receive_until(lambda m: "hello" in m)
    if script in ("chat", "chat-fragmented"):
        send_text(json.dumps({"type": "auth", "token": "sk-live-token-1234567890"}))
        receive_until(lambda m: "authed" in m)
        send_text(json.dumps({"id": 7, "method": "add", "params": [1, 2]}))
        receive_until(lambda m: '"id": 7' in m)
        if script == "chat-fragmented":
            sock.sendall(ws.send(Message(data="echo ", message_finished=False)))
            sock.sendall(ws.send(Message(data="me", message_finished=True)))
        else:
            send_text("echo me")
        receive_until(lambda m: m == "echo me")
        receive_until(lambda m: '"n": 3' in m)
        send_text("bye")
    elif script == "unmasked":
        sock.sendall(raw_frame(0x81, b"hi", masked=False))
    elif script == "reserved-opcode":
        sock.sendall(raw_frame(0x83, b""))
    elif script == "bad-utf8":
        sock.sendall(raw_frame(0x81, b"\xff\xfe"))
    elif script == "echo":
        send_text("echo me")
    elif script == "slow-close":
        send_text("bye")
    elif script == "hold":
        send_text("echo me")
        receive_until(lambda m: m == "echo me")
        open(argument, "w").close()
        sock.settimeout(30)
    receive_until(lambda m: False)
except Ended:
    pass
except (ConnectionResetError, BrokenPipeError):
    print(json.dumps({"closed": None, "reason": None}), flush=True)
finally:
    sock.close()
    if deflate:
        print(json.dumps(counts), flush=True)
