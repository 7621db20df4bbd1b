"""Socket.IO peers for cassette's tests, on the PyPI `python-socketio` package (Engine.IO v4).

usage: socketio_peers.py server
    An ASGI `socketio.AsyncServer` under uvicorn on 127.0.0.1 (an ephemeral port). Prints
    "listening on http://127.0.0.1:PORT" once it listens. Events: "add" (acknowledged with the
    sum of its arguments), "note" (not acknowledged; the server emits "news" {"heard": TEXT}
    back), and in the namespace /chat "echo" (acknowledged with {"echo": DATA}).

usage: socketio_peers.py client URL [ACK_START]
    A `socketio.Client` over the WebSocket transport only (websocket-client), connected to the
    namespaces / and /chat. It calls add(1, 2), emits note "hello" and waits for the news, calls
    add(2, 10), calls echo {"x": 1} in /chat, then disconnects. With ACK_START its acknowledgement
    counters start there (/ at ACK_START, /chat at ACK_START + 50) instead of 1, as a client
    whose counter has moved on would (the JavaScript client keeps counting across reconnections).
    Prints one JSON line per answer: {"ack": ...}, {"news": ...}, then {"ids": [the ack ids sent]}.

usage: socketio_peers.py concurrent URL ORDER [ACK_START]
    The same client, connected the same way, emitting add(1, 2) (a), add(2, 10) (b) and in /chat
    echo {"x": 1} (c) in ORDER (a permutation of "abc") without waiting, each asking for an
    acknowledgement, then waiting for all three. Prints {"a": 3, "b": 12, "c": {"echo": {"x": 1}}}
    and then {"ids": [the ack ids sent, in ORDER]}.
"""
import asyncio
import itertools
import json
import socket
import sys
import threading


def server():
    import socketio
    import uvicorn

    # The client's Origin is the proxy's address, not the server's: allow any, as a server
    # behind a development proxy does.
    sio = socketio.AsyncServer(async_mode="asgi", cors_allowed_origins="*")

    @sio.on("add")
    async def add(sid, *numbers):
        return sum(numbers)

    @sio.on("note")
    async def note(sid, text):
        await sio.emit("news", {"heard": text}, to=sid)

    @sio.on("echo", namespace="/chat")
    async def echo(sid, data):
        return {"echo": data}

    @sio.on("connect", namespace="/chat")
    async def connect_chat(sid, environ):
        return True

    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", 0))
    config = uvicorn.Config(socketio.ASGIApp(sio), log_level="warning", lifespan="off")
    print("listening on http://127.0.0.1:%d" % listener.getsockname()[1], flush=True)
    asyncio.run(uvicorn.Server(config).serve(sockets=[listener]))


def client(url, ack_start):
    import socketio

    sio = socketio.Client(reconnection=False)
    news = threading.Event()
    heard = []

    @sio.on("news")
    def on_news(data):
        heard.append(data)
        news.set()

    sio.connect(url, transports=["websocket"], namespaces=["/", "/chat"], wait_timeout=10)
    if ack_start is not None:
        sio.callbacks["/"] = {0: itertools.count(ack_start)}
        sio.callbacks["/chat"] = {0: itertools.count(ack_start + 50)}
    ids = []
    original = sio._generate_ack_id

    def generate(namespace, callback):
        ack = original(namespace, callback)
        ids.append(ack)
        return ack

    sio._generate_ack_id = generate
    print(json.dumps({"ack": sio.call("add", (1, 2), timeout=10)}), flush=True)
    sio.emit("note", "hello")
    if not news.wait(10):
        raise SystemExit("no news came")
    print(json.dumps({"news": heard[0]}), flush=True)
    print(json.dumps({"ack": sio.call("add", (2, 10), timeout=10)}), flush=True)
    print(json.dumps({"ack": sio.call("echo", {"x": 1}, namespace="/chat", timeout=10)}), flush=True)
    print(json.dumps({"ids": ids}), flush=True)
    disconnect_when_sent(sio)


def concurrent(url, order, ack_start):
    import socketio

    sio = socketio.Client(reconnection=False)
    sio.connect(url, transports=["websocket"], namespaces=["/", "/chat"], wait_timeout=10)
    if ack_start is not None:
        sio.callbacks["/"] = {0: itertools.count(ack_start)}
        sio.callbacks["/chat"] = {0: itertools.count(ack_start + 50)}
    ids = []
    original = sio._generate_ack_id

    def generate(namespace, callback):
        ack = original(namespace, callback)
        ids.append(ack)
        return ack

    sio._generate_ack_id = generate
    answers = {}
    done = threading.Event()

    def answered(name):
        def callback(*values):
            answers[name] = values[0] if len(values) == 1 else list(values)
            if len(answers) == len(order):
                done.set()

        return callback

    calls = {"a": ("add", (1, 2), "/"), "b": ("add", (2, 10), "/"), "c": ("echo", {"x": 1}, "/chat")}
    for name in order:
        event, data, namespace = calls[name]
        sio.emit(event, data, namespace=namespace, callback=answered(name))
    if not done.wait(10):
        raise SystemExit("not every acknowledgement came: %r" % answers)
    print(json.dumps({name: answers[name] for name in sorted(answers)}), flush=True)
    print(json.dumps({"ids": ids}), flush=True)
    disconnect_when_sent(sio)


def disconnect_when_sent(sio):
    """Disconnects as sio.disconnect() does, but with every packet on the wire first.

    The client queues its namespaces' DISCONNECT packets ("41", "41/chat,") and Engine.IO's CLOSE
    ("1") for a writer thread and closes the WebSocket at once, so which of them reach the server
    is a race; a conversation recorded with some of them and replayed with others would differ.
    """
    import time

    eio = sio.eio

    def sent():
        # Written, or only the writer's stop marker (None) left.
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline:
            if eio.queue.unfinished_tasks == 0 or list(eio.queue.queue) == [None]:
                return
            time.sleep(0.01)

    def after_sending(original):
        def run(*args, **kwargs):
            sent()
            return original(*args, **kwargs)

        return run

    eio.disconnect = after_sending(eio.disconnect)
    eio.ws.close = after_sending(eio.ws.close)
    sio.disconnect()


if __name__ == "__main__":
    if sys.argv[1:2] == ["server"]:
        server()
    elif sys.argv[1:2] == ["client"] and len(sys.argv) in (3, 4):
        client(sys.argv[2], int(sys.argv[3]) if len(sys.argv) == 4 else None)
    elif sys.argv[1:2] == ["concurrent"] and len(sys.argv) in (4, 5):
        concurrent(sys.argv[2], sys.argv[3], int(sys.argv[4]) if len(sys.argv) == 5 else None)
    else:
        raise SystemExit(__doc__)
