"""An upstream that speaks HTTP/1.1 and HTTP/2 with prior knowledge (h2c) on one port: PyPI's
hypercorn serving a small ASGI app that answers every request with the HTTP version, method,
path and body length it received, as hypercorn saw them.

  h2c_upstream.py    serves on 127.0.0.1, port 0, and prints "listening on http://127.0.0.1:PORT"
                     then one line per request: "HTTP/VERSION METHOD PATH"
"""
import asyncio
import json
import socket

from hypercorn.asyncio import serve
from hypercorn.config import Config


async def app(scope, receive, send):
    if scope["type"] == "lifespan":
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                await send({"type": "lifespan.shutdown.complete"})
                return
    if scope["type"] != "http":
        return
    received = 0
    while True:
        message = await receive()
        received += len(message.get("body", b""))
        if not message.get("more_body"):
            break
    print(f"HTTP/{scope['http_version']} {scope['method']} {scope['path']}", flush=True)
    body = json.dumps({"httpVersion": scope["http_version"], "method": scope["method"], "path": scope["path"], "bytes": received})
    await send({"type": "http.response.start", "status": 200, "headers": [(b"content-type", b"application/json")]})
    await send({"type": "http.response.body", "body": body.encode()})


def main():
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", 0))
    listener.listen(64)
    listener.set_inheritable(True)
    config = Config()
    config.bind = [f"fd://{listener.fileno()}"]
    config.accesslog = None
    config.errorlog = None
    print(f"listening on http://127.0.0.1:{listener.getsockname()[1]}", flush=True)
    asyncio.run(serve(app, config))


if __name__ == "__main__":
    main()
