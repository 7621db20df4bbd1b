"""The streaming benchmark's upstream and client (Benchmarks/streaming.sh).

  python3 streaming-upstream.py serve
      /large?size=N          N bytes with Content-Length
      /events?count=N&gap=MS N Server-Sent Events, the first after MS ms and each MS ms apart
  python3 streaming-upstream.py first-event URL
      prints the milliseconds from sending the request to the first "data:" line, and to the end
"""
import socket, sys, time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlsplit

PATTERN = bytes(range(256)) * 256


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def do_GET(self):
        path, _, query = self.path.partition("?")
        params = dict(p.split("=") for p in query.split("&") if "=" in p)
        if path == "/large":
            size = int(params.get("size", "0"))
            self.send_response(200)
            self.send_header("Content-Type", "application/octet-stream")
            self.send_header("Content-Length", str(size))
            self.end_headers()
            sent = 0
            while sent < size:
                piece = PATTERN[: min(len(PATTERN), size - sent)]
                self.wfile.write(piece)
                sent += len(piece)
        elif path == "/events":
            count, gap = int(params.get("count", "5")), int(params.get("gap", "200")) / 1000
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            self.wfile.flush()
            for number in range(count):
                time.sleep(gap)
                data = b"data: event %d\n\n" % number
                self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
                self.wfile.flush()
            self.wfile.write(b"0\r\n\r\n")
        else:
            self.send_response(404)
            self.send_header("Content-Length", "0")
            self.end_headers()


def first_event(url):
    parts = urlsplit(url)
    connection = socket.create_connection((parts.hostname, parts.port))
    started = time.monotonic()
    target = parts.path + ("?" + parts.query if parts.query else "")
    connection.sendall(("GET %s HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n" % (target, parts.netloc)).encode())
    received, first = b"", None
    while True:
        data = connection.recv(65536)
        if not data:
            break
        received += data
        if first is None and b"data:" in received:
            first = time.monotonic()
        if received.endswith(b"0\r\n\r\n"):
            break
    ended = time.monotonic()
    print("%.1f %.1f" % ((first - started) * 1000, (ended - started) * 1000))


if __name__ == "__main__":
    if sys.argv[1] == "serve":
        server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        print("listening on http://127.0.0.1:%d" % server.server_address[1], flush=True)
        server.serve_forever()
    else:
        first_event(sys.argv[2])
