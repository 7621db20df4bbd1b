"""The gRPC test peers: grpcio as server and client of Tests/Peers/grpc/shop.proto.

  grpc_peer.py protoset OUT                 writes the FileDescriptorSet (with imports)
  grpc_peer.py server [--reflection] [--gzip] [--drift] [--tls CERT KEY] [--bind ADDRESS] [--port N]
                      [--log-peers] [--max-streams N]
                                            serves shop.v1.Catalog on 127.0.0.1 (or ADDRESS: ::1,
                                            say), port 0 (or N), and prints "listening on
                                            http://127.0.0.1:PORT" (https with --tls: h2 over TLS
                                            with the PEM certificate chain and key);
                                            --log-peers prints {"call": METHOD, "peer": ADDRESS} per
                                            call (the client's address and port: its TCP connection);
                                            --max-streams sets SETTINGS_MAX_CONCURRENT_STREAMS;
                                            SIGTERM stops it gracefully (server.stop(grace=30): a
                                            GOAWAY, the calls in flight finish), printing "stopping"
  grpc_peer.py encode TYPE JSON             prints the message's bytes in hex, then protobuf's JSON of it
  grpc_peer.py client TARGET SCENARIO [--gzip] [--metadata KEY=VALUE]
                                            runs the calls of SCENARIO against TARGET (host:port) and
                                            prints one JSON line per call; steps
                                            "list-reset:CODE" and "list-early:CODE" call
                                            grpc_reset_upstream.py's resetting ListItems;
                                            "list-late:CODE:MS" too, its line saying when the
                                            status came ("statusAfterMs", since the call began);
                                            "list-drain" prints a "held" line after the first item
                                            of a ListItems the server finishes once it is stopping;
                                            "parallel:N" makes N slow GetItem calls at once;
                                            --metadata adds KEY: VALUE to every call's request metadata
  grpc_peer.py h2-hold TARGET               opens a Chat call with PyPI's h2 (no grpcio), sends "hi"
                                            and never half-closes nor resets its stream; prints one
                                            JSON line per HTTP/2 event until the connection ends

Stubs are generated with grpcio-tools into a temporary folder at start, so nothing generated is
committed.
"""
import json
import os
import signal
import sys
import tempfile
import threading
import time
from concurrent import futures

import grpc
from grpc_tools import protoc

HERE = os.path.dirname(os.path.abspath(__file__))
# A call's deadline where the test does not test deadlines: long, since the whole suite runs its
# peers in parallel on a busy machine (a 10 s deadline once ran out there, and the replayed call
# differed from the recorded one by DEADLINE_EXCEEDED alone).
CALL_TIMEOUT = 60
PROTO_DIR = os.path.join(HERE, "grpc")
INCLUDE = os.path.join(os.path.dirname(protoc.__file__), "_proto")


def generate(out_dir):
    status = protoc.main([
        "protoc", f"-I{PROTO_DIR}", f"-I{INCLUDE}", f"--python_out={out_dir}", f"--grpc_python_out={out_dir}",
        os.path.join(PROTO_DIR, "shop.proto"),
    ])
    if status != 0:
        sys.exit(f"protoc failed with {status}")
    sys.path.insert(0, out_dir)
    import shop_pb2, shop_pb2_grpc
    return shop_pb2, shop_pb2_grpc


def write_protoset(out):
    status = protoc.main([
        "protoc", f"-I{PROTO_DIR}", f"-I{INCLUDE}", "--include_imports", f"--descriptor_set_out={out}",
        os.path.join(PROTO_DIR, "shop.proto"),
    ])
    sys.exit(status)


# The credentials of the `login` step: in the request metadata (the client's), the response
# metadata and the trailers (the server's).
CLIENT_TOKEN = "c1i3nt-7Qm2Xv9Lp4Rs8Tz6Wk3Nb5Hd"
SESSION_TOKEN = "s3ss10n-9Fh2Kq7Vx4Mp8Lz3Rt6Yw1Nc"
SESSION_COOKIE = "Zk4Pq9Lm2Vx7Tb3Rs8Wn5Hy1Cd6Jf0Ga"
REFRESH_TOKEN = "r3fr3sh-4Bn8Xq2Lm7Vp3Ts9Kw6Rz1Hd"

ITEMS = {
    "b1": ("Dune", 1299, ["scifi", "classic"], {"shelf": "A3"}, 1),
    "b2": ("Neuromancer", 999, ["scifi"], {"shelf": "A4"}, 1),
    "t1": ("Hammer", 2450, [], {}, 2),
}


def serve(reflection, gzip, drift=False, tls=None, address="127.0.0.1", port=0, log_peers=False, max_streams=None):
    pb, rpc = generate(tempfile.mkdtemp(prefix="grpc-peer-"))
    # Set once SIGTERM began the graceful stop: a "drain" ListItems finishes then.
    stopping = threading.Event()

    printing = threading.Lock()

    def seen(method, context):
        # One line per call, whole: calls at once run on several threads.
        if log_peers:
            with printing:
                sys.stdout.write(json.dumps({"call": method, "peer": context.peer()}) + "\n")
                sys.stdout.flush()

    def item(pb, item_id):
        name, price, tags, labels, kind = ITEMS[item_id]
        message = pb.Item(id=item_id, name=name, price_cents=price, tags=tags, labels=labels, kind=kind, thumbnail=b"\x89PNG")
        if drift:
            # An upstream that stopped sending labels and thumbnails: drift for `cassette diff`.
            message.ClearField("labels")
            message.ClearField("thumbnail")
        message.updated_at.FromSeconds(1700000000)
        return message

    class Catalog(rpc.CatalogServicer):
        def GetItem(self, request, context):
            seen("GetItem", context)
            if request.id == "login":
                # Credentials in the response metadata and the trailers, as a login method sends them.
                context.send_initial_metadata([
                    ("x-served-by", "grpcio-peer"), ("x-auth-token", SESSION_TOKEN),
                    ("set-cookie", f"session={SESSION_COOKIE}; Path=/; HttpOnly"),
                ])
                context.set_trailing_metadata([("authorization", f"Bearer {REFRESH_TOKEN}"), ("x-cost", "1")])
                return item(pb, "b1")
            context.send_initial_metadata([("x-served-by", "grpcio-peer")])
            if request.id == "slow":
                time.sleep(0.5)
                return item(pb, "b1")
            if request.id not in ITEMS:
                context.set_trailing_metadata([("x-reason", "no such item"), ("x-trace-bin", b"\x00\x01\xfe")])
                context.abort(grpc.StatusCode.NOT_FOUND, f"item {request.id} does not exist")
            context.set_trailing_metadata([("x-cost", str(request.quantity or 1))])
            return item(pb, request.id)

        def ListItems(self, request, context):
            seen("ListItems", context)
            if request.prefix == "drain":
                # One item, then the rest once the server is stopping: the call is in flight
                # when its GOAWAY goes out, and ends after it.
                yield item(pb, "b1")
                stopping.wait(30)
                time.sleep(0.3)
                yield item(pb, "b2")
                yield item(pb, "t1")
                return
            count = 0
            for item_id in sorted(ITEMS):
                if item_id.startswith(request.prefix) and (request.limit == 0 or count < request.limit):
                    count += 1
                    time.sleep(0.02)
                    yield item(pb, item_id)

        def CountItems(self, request_iterator, context):
            seen("CountItems", context)
            ids = [request.id for request in request_iterator]
            return pb.ItemCount(count=len(ids), ids=ids)

        def Chat(self, request_iterator, context):
            seen("Chat", context)
            for message in request_iterator:
                if message.text == "crash":
                    # The upstream goes away mid-call (its connection drops without trailers).
                    os._exit(3)
                yield pb.ChatMessage(text=f"echo: {message.text}", turn=message.turn)
                if message.text == "twice":
                    yield pb.ChatMessage(text="again: twice", turn=message.turn)

    options = [("grpc.max_concurrent_streams", max_streams)] if max_streams else []
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=16),
                         compression=grpc.Compression.Gzip if gzip else None, options=options)
    rpc.add_CatalogServicer_to_server(Catalog(), server)
    if reflection:
        from grpc_reflection.v1alpha import reflection as grpc_reflection
        names = (pb.DESCRIPTOR.services_by_name["Catalog"].full_name, grpc_reflection.SERVICE_NAME)
        grpc_reflection.enable_server_reflection(names, server)
    shown = f"[{address}]" if ":" in address else address
    if tls:
        with open(tls[0], "rb") as chain, open(tls[1], "rb") as key:
            credentials = grpc.ssl_server_credentials([(key.read(), chain.read())])
        port = server.add_secure_port(f"{shown}:{port}", credentials)
    else:
        port = server.add_insecure_port(f"{shown}:{port}")

    def stop(signum, frame):
        print("stopping", flush=True)
        server.stop(grace=30)
        stopping.set()

    signal.signal(signal.SIGTERM, stop)
    server.start()
    print(f"listening on {'https' if tls else 'http'}://{shown}:{port}", flush=True)
    server.wait_for_termination()


class _Metadata(grpc.UnaryUnaryClientInterceptor, grpc.UnaryStreamClientInterceptor,
                grpc.StreamUnaryClientInterceptor, grpc.StreamStreamClientInterceptor):
    """Adds fixed request metadata to every call (`--metadata x-cassette-session=ID`)."""

    def __init__(self, pairs):
        self.pairs = pairs

    def _details(self, details):
        return details._replace(metadata=list(details.metadata or []) + self.pairs)

    def intercept_unary_unary(self, continuation, details, request):
        return continuation(self._details(details), request)

    def intercept_unary_stream(self, continuation, details, request):
        return continuation(self._details(details), request)

    def intercept_stream_unary(self, continuation, details, requests):
        return continuation(self._details(details), requests)

    def intercept_stream_stream(self, continuation, details, requests):
        return continuation(self._details(details), requests)


def run_client(target, scenario, gzip, metadata=()):
    pb, rpc = generate(tempfile.mkdtemp(prefix="grpc-client-"))
    from google.protobuf import json_format
    channel = grpc.insecure_channel(target, compression=grpc.Compression.Gzip if gzip else None)
    if metadata:
        channel = grpc.intercept_channel(channel, _Metadata(list(metadata)))
    stub = rpc.CatalogStub(channel)

    def report(step, call):
        try:
            result = call()
            if isinstance(result, list):
                body = [json_format.MessageToDict(message) for message in result]
            elif hasattr(result, "DESCRIPTOR"):
                body = json_format.MessageToDict(result)
            else:
                body = result
            line = {"step": step, "code": "OK", "body": body}
        except grpc.RpcError as error:
            trailing = {key: (value if isinstance(value, str) else value.hex()) for key, value in (error.trailing_metadata() or ())}
            line = {"step": step, "code": error.code().name, "details": error.details(), "trailing": trailing}
        print(json.dumps(line, sort_keys=True), flush=True)

    def unary_with_metadata():
        response, call = stub.GetItem.with_call(pb.GetItemRequest(id="b1", quantity=2), timeout=CALL_TIMEOUT)
        initial = {key: value for key, value in call.initial_metadata()}
        trailing = {key: value for key, value in call.trailing_metadata()}
        return {"item": json_format.MessageToDict(response), "servedBy": initial.get("x-served-by"), "cost": trailing.get("x-cost")}

    def hold():
        # Sends one message, prints `held` once its echo came back, then keeps its side open
        # until the call ends (the test stops the proxy meanwhile).
        ended = threading.Event()

        def requests():
            yield pb.ChatMessage(text="hi", turn=0)
            ended.wait(60)

        replies = []
        try:
            for reply in stub.Chat(requests(), timeout=60):
                replies.append(json_format.MessageToDict(reply))
                if len(replies) == 1:
                    print(json.dumps({"step": "hold", "held": replies}), flush=True)
        finally:
            ended.set()
        return replies

    def hold_open():
        # As `hold`, but its side stays open after the call ended (a client that never
        # half-closes): only the proxy's reset, or the connection's end, releases the stream.
        never = threading.Event()

        def requests():
            yield pb.ChatMessage(text="hi", turn=0)
            never.wait(600)

        replies = []
        for reply in stub.Chat(requests(), timeout=600):
            replies.append(json_format.MessageToDict(reply))
            if len(replies) == 1:
                print(json.dumps({"step": "hold-open", "held": replies}), flush=True)
        return replies

    def list_drain():
        # Prints `held` once the first item came, then waits for the rest (the server sends
        # them once it is stopping).
        received = []
        for reply in stub.ListItems(pb.ListItemsRequest(prefix="drain"), timeout=CALL_TIMEOUT):
            received.append(reply)
            if len(received) == 1:
                print(json.dumps({"step": "list-drain", "held": [json_format.MessageToDict(reply)]}), flush=True)
        return received

    def parallel(count):
        # `count` slow GetItem calls in flight at once on the one channel.
        calls = [stub.GetItem.future(pb.GetItemRequest(id="slow"), timeout=CALL_TIMEOUT) for _ in range(count)]
        return {"ids": [call.result().id for call in calls]}

    def chat_crash():
        # "hi", and once its echo came back, "crash": the server dies with the stream open.
        echoed = threading.Event()

        def requests():
            yield pb.ChatMessage(text="hi", turn=0)
            echoed.wait(10)
            yield pb.ChatMessage(text="crash", turn=1)

        replies = []
        for reply in stub.Chat(requests(), timeout=CALL_TIMEOUT):
            replies.append(json_format.MessageToDict(reply))
            echoed.set()
        return replies

    def list_reset(step):
        # ListItems against grpc_reset_upstream.py with the step's prefix ("reset:CODE" or
        # "early:CODE"): the items that came, and once two did, a GetItem on the same channel.
        received, unary = [], None
        line = {"step": step}
        try:
            for reply in stub.ListItems(pb.ListItemsRequest(prefix=step.split("-", 1)[1]), timeout=CALL_TIMEOUT):
                received.append(json_format.MessageToDict(reply))
                if len(received) == 2:
                    try:
                        unary = {"code": "OK", "body": json_format.MessageToDict(stub.GetItem(pb.GetItemRequest(id="b2"), timeout=CALL_TIMEOUT))}
                    except grpc.RpcError as error:
                        unary = {"code": error.code().name, "details": error.details()}
            line["code"] = "OK"
        except grpc.RpcError as error:
            line.update(code=error.code().name, details=error.details())
        line.update(received=received, unary=unary)
        print(json.dumps(line, sort_keys=True), flush=True)

    def list_late(step):
        # ListItems against grpc_reset_upstream.py's "late:CODE:MS": the items, the status, and
        # how long after the call began the status came.
        received, began = [], time.monotonic()
        line = {"step": step}
        try:
            for reply in stub.ListItems(pb.ListItemsRequest(prefix=step.split("-", 1)[1]), timeout=CALL_TIMEOUT):
                received.append(json_format.MessageToDict(reply))
            line["code"] = "OK"
        except grpc.RpcError as error:
            line.update(code=error.code().name, details=error.details())
        line.update(received=received, statusAfterMs=round((time.monotonic() - began) * 1000))
        print(json.dumps(line, sort_keys=True), flush=True)

    def chat_reset():
        # "hi", and once its echo came back, "reset", then the client's side kept open (at most
        # 10 s) until the call ends: against grpc_reset_upstream.py, the upstream resets it.
        echoed, ended = threading.Event(), threading.Event()
        waited = []

        def requests():
            yield pb.ChatMessage(text="hi", turn=0)
            echoed.wait(10)
            yield pb.ChatMessage(text="reset", turn=1)
            # Whether the call was still open after 10 s: its end waited for the client's.
            waited.append(not ended.wait(10))

        replies = []
        line = {"step": "chat-reset"}
        try:
            for reply in stub.Chat(requests(), timeout=30):
                replies.append(json_format.MessageToDict(reply))
                echoed.set()
            line["code"] = "OK"
        except grpc.RpcError as error:
            line.update(code=error.code().name, details=error.details())
        ended.set()
        line.update(received=replies, waitedForTheClient=bool(waited and waited[0]))
        print(json.dumps(line, sort_keys=True), flush=True)

    def login():
        response, call = stub.GetItem.with_call(
            pb.GetItemRequest(id="login"), metadata=[("authorization", f"Bearer {CLIENT_TOKEN}")], timeout=CALL_TIMEOUT)
        initial = {key: value for key, value in call.initial_metadata()}
        trailing = {key: value for key, value in call.trailing_metadata()}
        return {"item": json_format.MessageToDict(response), "initial": initial, "trailing": trailing}

    steps = {
        "get": lambda: report("get", unary_with_metadata),
        "missing": lambda: report("missing", lambda: stub.GetItem(pb.GetItemRequest(id="nope"), timeout=CALL_TIMEOUT)),
        "big": lambda: report("big", lambda: stub.GetItem(pb.GetItemRequest(id="x" * 100), timeout=CALL_TIMEOUT)),
        "never": lambda: report("never", lambda: stub.GetItem(pb.GetItemRequest(id="zz", quantity=2), timeout=CALL_TIMEOUT)),
        "other": lambda: report("other", lambda: stub.GetItem(pb.GetItemRequest(id="b2"), timeout=CALL_TIMEOUT)),
        # Against grpc_reset_upstream.py: refused by a GOAWAY the first time.
        "goaway": lambda: report("goaway", lambda: stub.GetItem(pb.GetItemRequest(id="goaway"), timeout=CALL_TIMEOUT)),
        "slow": lambda: report("slow", lambda: stub.GetItem(pb.GetItemRequest(id="slow"), timeout=CALL_TIMEOUT)),
        "slow-short": lambda: report("slow-short", lambda: stub.GetItem(pb.GetItemRequest(id="slow"), timeout=0.2)),
        "list": lambda: report("list", lambda: list(stub.ListItems(pb.ListItemsRequest(prefix="b"), timeout=CALL_TIMEOUT))),
        "count": lambda: report("count", lambda: stub.CountItems(iter([pb.GetItemRequest(id=i) for i in ("b1", "t1", "b2")]), timeout=CALL_TIMEOUT)),
        "chat": lambda: report("chat", lambda: list(stub.Chat(iter([pb.ChatMessage(text=t, turn=n) for n, t in enumerate(["hi", "twice", "bye"])]), timeout=CALL_TIMEOUT))),
        # A message carrying a credential (a GitHub token's shape), for redaction at record time.
        "secret": lambda: report("secret", lambda: list(stub.Chat(iter([pb.ChatMessage(text="my token ghp_Zq8xT2vLm4Rk9WbN3yHc7Pd5Fg1Js6Ua0EoK", turn=0)]), timeout=CALL_TIMEOUT))),
        "login": lambda: report("login", login),
        "hold": lambda: report("hold", hold),
        "hold-open": lambda: report("hold-open", hold_open),
        # Keeps the process, and so its connection, alive until the test stops it.
        "linger": lambda: time.sleep(600),
        "list-drain": lambda: report("list-drain", list_drain),
        "chat-crash": lambda: report("chat-crash", chat_crash),
        "chat-reset": chat_reset,
        "chat-changed": lambda: report("chat-changed", lambda: list(stub.Chat(iter([pb.ChatMessage(text=t, turn=n) for n, t in enumerate(["hi", "thrice"])]), timeout=CALL_TIMEOUT))),
    }
    for step in scenario.split(","):
        if step.startswith("list-reset:") or step.startswith("list-early:"):
            list_reset(step)
        elif step.startswith("list-late:"):
            list_late(step)
        elif step.startswith("parallel:"):
            report(step, lambda: parallel(int(step.split(":")[1])))
        else:
            steps[step]()


def h2_hold(target):
    """A client that never half-closes, nor resets its stream when the answer is complete (grpcio
    does one or the other): PyPI's h2 on a plain socket. Prints each event of the call's stream
    as a JSON line ("headers", "data", "trailers", "reset" with its error code, "goaway") and
    "closed" when the connection ends."""
    import socket
    import h2.config
    import h2.connection
    import h2.exceptions
    pb, _ = generate(tempfile.mkdtemp(prefix="grpc-h2-"))
    host, port = target.rsplit(":", 1)
    sock = socket.create_connection((host, int(port)))
    connection = h2.connection.H2Connection(config=h2.config.H2Configuration(client_side=True, header_encoding="utf-8"))
    connection.initiate_connection()
    handle = _h2_event(connection)
    stream = connection.get_next_available_stream_id()
    connection.send_headers(stream, [
        (":method", "POST"), (":scheme", "http"), (":path", "/shop.v1.Catalog/Chat"), (":authority", target),
        ("content-type", "application/grpc"), ("te", "trailers"),
    ])
    message = pb.ChatMessage(text="hi", turn=0).SerializeToString()
    connection.send_data(stream, b"\x00" + len(message).to_bytes(4, "big") + message)
    sock.sendall(connection.data_to_send())
    buffered = b""
    while True:
        data = sock.recv(65536)
        if not data:
            print(json.dumps({"event": "closed"}), flush=True)
            return
        buffered += data
        # Frame by frame: h2 takes its connection for closed once a GOAWAY came and refuses the
        # PING a graceful shutdown sends after it (RFC 9113 §6.8), losing the events read with it.
        frames = []
        while len(buffered) >= 9 and len(buffered) >= 9 + int.from_bytes(buffered[:3], "big"):
            size = 9 + int.from_bytes(buffered[:3], "big")
            frames.append(buffered[:size])
            buffered = buffered[size:]
        for frame in frames:
            try:
                events = connection.receive_data(frame)
            except h2.exceptions.ProtocolError:
                if frame[3] == 6 and not frame[4] & 1:
                    # A PING after the GOAWAY: acknowledged by hand, as any HTTP/2 peer must.
                    sock.sendall(b"\x00\x00\x08\x06\x01\x00\x00\x00\x00" + frame[9:17])
                continue
            for event in events:
                handle(event)
        sock.sendall(connection.data_to_send())


def _h2_event(connection):
    import h2.events

    def handle(event):
        if isinstance(event, h2.events.ResponseReceived):
            print(json.dumps({"event": "headers", "fields": dict(event.headers)}), flush=True)
        elif isinstance(event, h2.events.DataReceived):
            connection.acknowledge_received_data(event.flow_controlled_length, event.stream_id)
            print(json.dumps({"event": "data", "bytes": len(event.data)}), flush=True)
        elif isinstance(event, h2.events.TrailersReceived):
            print(json.dumps({"event": "trailers", "fields": dict(event.headers)}), flush=True)
        elif isinstance(event, h2.events.StreamReset):
            print(json.dumps({"event": "reset", "code": event.error_code.name}), flush=True)
        elif isinstance(event, h2.events.ConnectionTerminated):
            print(json.dumps({"event": "goaway", "code": event.error_code.name, "lastStream": event.last_stream_id}), flush=True)
    return handle


def encode(type_name, text):
    """Prints the hex of the message TYPE read from protobuf JSON, then protobuf's own JSON of it."""
    pb, _ = generate(tempfile.mkdtemp(prefix="grpc-encode-"))
    from google.protobuf import json_format
    message = json_format.Parse(text, getattr(pb, type_name)())
    print(message.SerializeToString().hex())
    print(json.dumps(json_format.MessageToDict(message), sort_keys=True))


if __name__ == "__main__":
    command = sys.argv[1]
    if command == "encode":
        encode(sys.argv[2], sys.argv[3])
    elif command == "protoset":
        write_protoset(sys.argv[2])
    elif command == "server":
        tls = sys.argv[sys.argv.index("--tls") + 1:sys.argv.index("--tls") + 3] if "--tls" in sys.argv else None
        def value(flag):
            return sys.argv[sys.argv.index(flag) + 1] if flag in sys.argv else None
        serve("--reflection" in sys.argv, "--gzip" in sys.argv, "--drift" in sys.argv, tls, value("--bind") or "127.0.0.1",
              port=int(value("--port") or 0), log_peers="--log-peers" in sys.argv, max_streams=int(value("--max-streams") or 0) or None)
    elif command == "client":
        pairs = [tuple(value.split("=", 1)) for flag, value in zip(sys.argv, sys.argv[1:]) if flag == "--metadata"]
        run_client(sys.argv[2], sys.argv[3], "--gzip" in sys.argv, pairs)
    elif command == "h2-hold":
        h2_hold(sys.argv[2])
    else:
        sys.exit(f"unknown command {command}: use protoset, server or client")
