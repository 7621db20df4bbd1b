"""A small HTTPS upstream for Benchmarks/forward.sh: HTTP/1.1 keep-alive, one short JSON answer.

    python3 Benchmarks/tls-upstream.py CERT KEY   # prints "listening on https://localhost:PORT"
"""
import ssl
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

BODY = b'{"id": 1, "name": "Ada", "calories": 2000}'


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    # Headers and body go out as they are written: no 40 ms wait for a delayed ACK.
    disable_nagle_algorithm = True

    def log_message(self, *args):
        pass

    def do_GET(self):
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(BODY)))
        self.end_headers()
        self.wfile.write(BODY)


server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
context.load_cert_chain(sys.argv[1], sys.argv[2])
server.socket = context.wrap_socket(server.socket, server_side=True)
print("listening on https://localhost:%d" % server.server_address[1], flush=True)
server.serve_forever()
