"""A gRPC upstream that resets streams: PyPI's `h2` (hyper-h2, an HTTP/2 implementation) serving
shop.v1.Catalog over h2c with prior knowledge, where grpcio's server cannot be made to send
RST_STREAM on one stream while the connection and its other calls go on.

  grpc_reset_upstream.py [--bind ADDRESS]
                            serves on 127.0.0.1 (or ADDRESS: ::1, say), port 0, prints "listening on
                            http://127.0.0.1:PORT", then one line per call it answers or resets
                            (a GetItem's line ends with the :authority it was sent to)

  ListItems, prefix "reset:CODE"  response HEADERS, two Items (b1, b2), then RST_STREAM with CODE
                                  (an h2 ErrorCodes name: INTERNAL_ERROR, CANCEL...) once a GetItem
                                  was answered after them (on any connection; at most 5 s later),
                                  so a client can show the other call going on meanwhile
  ListItems, prefix "early:CODE"  RST_STREAM with CODE at once, before any response HEADERS
  ListItems, prefix "late:CODE:MS"  response HEADERS, two Items (b1, b2), then RST_STREAM with
                                  CODE MS milliseconds later (a reset that comes a while after
                                  the last message)
  Chat                            each message echoed as it comes ("echo: TEXT"); the message
                                  "reset" gets RST_STREAM INTERNAL_ERROR instead, the client's
                                  side still open
  GetItem                         the item (b1 or b2) with `x-served-by: h2-reset-peer`, grpc-status 0
  GetItem, id "goaway"            the first time: GOAWAY (NO_ERROR) whose last stream ID is the one
                                  before this call's, so the call is refused unprocessed (RFC 9113
                                  §6.8), and the connection closed; afterwards answered with b1
  anything else                   trailers only, grpc-status 12 (UNIMPLEMENTED)

Messages are encoded by protobuf itself, from stubs grpc_peer.py generates with grpcio-tools.
"""
import asyncio
import socket
import struct
import sys
import tempfile

from h2.config import H2Configuration
from h2.connection import H2Connection
from h2.errors import ErrorCodes
from h2.exceptions import ProtocolError
from h2.events import ConnectionTerminated, DataReceived, RequestReceived, StreamEnded, StreamReset

import grpc_peer

pb, _ = grpc_peer.generate(tempfile.mkdtemp(prefix="grpc-reset-peer-"))
# Set each time a GetItem is answered: a stream waiting to be reset goes on then.
unary_answered = asyncio.Event()
# Whether a "goaway" GetItem was refused already: the next one is answered.
refused_once = []


def framed(message):
    body = message.SerializeToString()
    return struct.pack(">BI", 0, len(body)) + body


def unframed(body, message_type):
    message = message_type()
    if len(body) >= 5:
        message.ParseFromString(body[5:5 + struct.unpack(">I", body[1:5])[0]])
    return message


def item(item_id):
    name, price, tags, labels, kind = grpc_peer.ITEMS[item_id]
    return pb.Item(id=item_id, name=name, price_cents=price, tags=tags, labels=labels, kind=kind)


class GRPCConnection(asyncio.Protocol):
    def __init__(self):
        self.h2 = H2Connection(H2Configuration(client_side=False, header_encoding="utf-8"))
        self.requests = {}

    def connection_made(self, transport):
        self.transport = transport
        self.h2.initiate_connection()
        self.flush()

    def flush(self):
        if not self.transport.is_closing():
            self.transport.write(self.h2.data_to_send())

    def data_received(self, data):
        try:
            events = self.h2.receive_data(data)
        except ProtocolError:
            # Frames after our GOAWAY: the connection is going away anyway.
            self.transport.close()
            return
        for event in events:
            if isinstance(event, RequestReceived):
                self.requests[event.stream_id] = (dict(event.headers), bytearray())
            elif isinstance(event, DataReceived):
                self.h2.acknowledge_received_data(event.flow_controlled_length, event.stream_id)
                if event.stream_id in self.requests:
                    self.requests[event.stream_id][1].extend(event.data)
                    if self.requests[event.stream_id][0][":path"] == "/shop.v1.Catalog/Chat":
                        self.chat(event.stream_id)
            elif isinstance(event, StreamEnded) and event.stream_id in self.requests:
                headers, body = self.requests.pop(event.stream_id)
                asyncio.ensure_future(self.answer(event.stream_id, headers[":path"], bytes(body), headers.get(":authority")))
            elif isinstance(event, StreamReset):
                self.requests.pop(event.stream_id, None)
            elif isinstance(event, ConnectionTerminated):
                self.transport.close()
        self.flush()

    def chat(self, stream_id):
        """Answers each whole message of the Chat stream so far, as it comes."""
        headers, body = self.requests[stream_id]
        while len(body) >= 5 and len(body) >= 5 + struct.unpack(">I", body[1:5])[0]:
            message = unframed(bytes(body), pb.ChatMessage)
            del body[:5 + struct.unpack(">I", body[1:5])[0]]
            if message.text == "reset":
                self.requests.pop(stream_id)
                self.h2.reset_stream(stream_id, error_code=ErrorCodes.INTERNAL_ERROR)
                print(f"reset Chat on stream {stream_id} with INTERNAL_ERROR, its client still sending", flush=True)
                return
            if not headers.get("answered"):
                headers["answered"] = True
                self.h2.send_headers(stream_id, [(":status", "200"), ("content-type", "application/grpc"), ("x-served-by", "h2-reset-peer")])
            self.h2.send_data(stream_id, framed(pb.ChatMessage(text=f"echo: {message.text}", turn=message.turn)))

    def respond(self, stream_id, messages, status=0):
        self.h2.send_headers(stream_id, [(":status", "200"), ("content-type", "application/grpc"), ("x-served-by", "h2-reset-peer")])
        for message in messages:
            self.h2.send_data(stream_id, framed(message))
        self.h2.send_headers(stream_id, [("grpc-status", str(status))], end_stream=True)
        self.flush()

    async def answer(self, stream_id, path, body, authority=None):
        if path == "/shop.v1.Catalog/Chat":
            self.h2.send_headers(stream_id, [("grpc-status", "0")], end_stream=True)
            self.flush()
        elif path == "/shop.v1.Catalog/GetItem":
            request = unframed(body, pb.GetItemRequest)
            if request.id == "goaway" and not refused_once:
                refused_once.append(stream_id)
                self.h2.close_connection(error_code=ErrorCodes.NO_ERROR, last_stream_id=max(0, stream_id - 2))
                self.flush()
                asyncio.get_running_loop().call_later(0.2, self.transport.close)
                print(f"refused GetItem goaway on stream {stream_id} with GOAWAY, last stream {max(0, stream_id - 2)}", flush=True)
                return
            self.respond(stream_id, [item(request.id if request.id in grpc_peer.ITEMS else "b1")])
            print(f"answered GetItem {request.id} on stream {stream_id} for :authority {authority}", flush=True)
            unary_answered.set()
        elif path == "/shop.v1.Catalog/ListItems":
            prefix = unframed(body, pb.ListItemsRequest).prefix
            when, _, code = prefix.partition(":")
            code, _, wait = code.partition(":")
            error = ErrorCodes[code or "INTERNAL_ERROR"]
            if when == "late":
                self.h2.send_headers(stream_id, [(":status", "200"), ("content-type", "application/grpc"), ("x-served-by", "h2-reset-peer")])
                self.h2.send_data(stream_id, framed(item("b1")))
                self.h2.send_data(stream_id, framed(item("b2")))
                self.flush()
                await asyncio.sleep(int(wait) / 1000)
                self.h2.reset_stream(stream_id, error_code=error)
                self.flush()
                print(f"reset ListItems on stream {stream_id} with {error.name} {wait} ms after 2 messages", flush=True)
            elif when == "reset":
                unary_answered.clear()
                self.h2.send_headers(stream_id, [(":status", "200"), ("content-type", "application/grpc"), ("x-served-by", "h2-reset-peer")])
                self.h2.send_data(stream_id, framed(item("b1")))
                self.h2.send_data(stream_id, framed(item("b2")))
                self.flush()
                try:
                    await asyncio.wait_for(unary_answered.wait(), 5)
                except asyncio.TimeoutError:
                    pass
                self.h2.reset_stream(stream_id, error_code=error)
                self.flush()
                print(f"reset ListItems on stream {stream_id} with {error.name} after 2 messages", flush=True)
            else:
                self.h2.reset_stream(stream_id, error_code=error)
                self.flush()
                print(f"reset ListItems on stream {stream_id} with {error.name} before its HEADERS", flush=True)
        else:
            self.h2.send_headers(
                stream_id, [(":status", "200"), ("content-type", "application/grpc"), ("grpc-status", "12"), ("grpc-message", f"{path} is not served here")],
                end_stream=True)
            self.flush()


async def main():
    address = sys.argv[sys.argv.index("--bind") + 1] if "--bind" in sys.argv else "127.0.0.1"
    listener = socket.socket(socket.AF_INET6 if ":" in address else socket.AF_INET, socket.SOCK_STREAM)
    listener.bind((address, 0))
    server = await asyncio.get_running_loop().create_server(GRPCConnection, sock=listener)
    shown = f"[{address}]" if ":" in address else address
    print(f"listening on http://{shown}:{listener.getsockname()[1]}", flush=True)
    async with server:
        await server.serve_forever()


if __name__ == "__main__":
    asyncio.run(main())
