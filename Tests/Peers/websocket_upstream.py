"""A WebSocket upstream for cassette's tests, on the PyPI `websockets` package.

/chat (subprotocol chat.v1): says hello on open; answers JSON requests {"id", "method": "add",
"params"} with {"id", "result"}; acknowledges {"type": "auth"}; echoes any other message; pushes
{"type": "tick", "n": N} every 200 ms (three of them) from the client's first echo on; closes with
4000 "server says bye" when the client sends "bye".
/drop: says hello, echoes the client's first message, then drops the TCP connection without a
close frame (as an upstream that dies mid-conversation).
"host" from the client is answered with {"type": "host", "host": the handshake's Host header}.
"fragments" from the client is answered with one text message sent in three fragments
("frag", "mented ", "reply").
Prints "listening on ws://127.0.0.1:PORT" once it listens.
It agrees to permessage-deflate when a client offers it.
usage: websocket_upstream.py [--tls CERTIFICATE KEY] [--bind ADDRESS]
  --tls: wss://, "listening on wss://..."; --bind: listens on ADDRESS (::1, say) instead of 127.0.0.1
"""
import asyncio
import json
import ssl
import sys

from websockets.asyncio.server import serve


async def chat(connection):
    ticking = None

    async def ticks():
        for n in range(1, 4):
            await asyncio.sleep(0.2)
            await connection.send(json.dumps({"type": "tick", "n": n}))

    await connection.send(json.dumps({"type": "hello"}))
    if connection.request.path == "/drop":
        await connection.send(await connection.recv())
        connection.transport.abort()
        return
    async for message in connection:
        if message == "bye":
            await connection.close(4000, "server says bye")
            return
        if message == "host":
            await connection.send(json.dumps({"type": "host", "host": connection.request.headers.get("Host")}))
            continue
        if message == "fragments":
            await connection.send(["frag", "mented ", "reply"])
            continue
        try:
            request = json.loads(message) if isinstance(message, str) else None
        except ValueError:
            request = None
        if isinstance(request, dict) and request.get("method") == "add":
            await connection.send(json.dumps({"id": request["id"], "result": sum(request["params"])}))
        elif isinstance(request, dict) and request.get("type") == "auth":
            await connection.send(json.dumps({"type": "authed"}))
        else:
            await connection.send(message)
            if ticking is None:
                ticking = asyncio.ensure_future(ticks())


async def main():
    context = None
    if "--tls" in sys.argv:
        at = sys.argv.index("--tls")
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(sys.argv[at + 1], sys.argv[at + 2])
    address = sys.argv[sys.argv.index("--bind") + 1] if "--bind" in sys.argv else "127.0.0.1"
    async with serve(chat, address, 0, subprotocols=["chat.v1"], compression="deflate", max_size=None, ssl=context) as server:
        port = server.sockets[0].getsockname()[1]
        shown = f"[{address}]" if ":" in address else address
        print("listening on %s://%s:%d" % ("wss" if context else "ws", shown, port), flush=True)
        await asyncio.get_running_loop().create_future()


asyncio.run(main())
