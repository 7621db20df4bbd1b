import Foundation
import WellPlateCore
import WellPlateNetworking

/// A real upstream (Python's `http.server`) that streams: Server-Sent Events held back until the
/// test says so, a body broken off mid-stream, and large bodies.
///
/// Paths: `/sse` (chunked `text/event-stream`: `data: one` at once, then waits for `/release`
/// before `data: two` and, 200 ms later, `data: three`), `/release` (lets `/sse` go on),
/// `/abort` (one chunk, then the connection closes without the final chunk), `/large?size=N`
/// (N bytes, byte i is i % 256, with `Content-Length`), `/large-chunked?size=N` (the same, chunked,
/// with a `Link` to the upstream's own next page), `/ticks?count=N&gap=MS` (N events, MS apart).
package enum StreamingUpstream {
    package static let script = #"""
        import socket, sys, threading, time
        from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

        released = threading.Event()
        PATTERN = bytes(range(256)) * 256

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def chunk(self, data):
                self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
                self.wfile.flush()

            def start(self, content_type, length=None):
                self.send_response(200)
                self.send_header("Content-Type", content_type)
                if length is None:
                    self.send_header("Transfer-Encoding", "chunked")
                else:
                    self.send_header("Content-Length", str(length))
                self.end_headers()
                self.wfile.flush()

            def pattern(self, size, write):
                sent = 0
                while sent < size:
                    piece = PATTERN[: min(len(PATTERN), size - sent)]
                    write(piece)
                    sent += len(piece)

            def do_GET(self):
                path, _, query = self.path.partition("?")
                params = dict(p.split("=") for p in query.split("&") if "=" in p)
                if path == "/sse":
                    self.start("text/event-stream")
                    self.chunk(b"data: one\n\n")
                    released.wait(30)
                    self.chunk(b"data: two\n\n")
                    time.sleep(0.2)
                    self.chunk(b"data: three\n\n")
                    self.wfile.write(b"0\r\n\r\n")
                elif path == "/ticks":
                    self.start("text/event-stream")
                    for number in range(int(params.get("count", "1"))):
                        if number:
                            time.sleep(int(params.get("gap", "0")) / 1000)
                        self.chunk(b"data: %d\n\n" % number)
                    self.wfile.write(b"0\r\n\r\n")
                elif path == "/release":
                    released.set()
                    body = b'{"released":true}'
                    self.send_response(200)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(body)))
                    self.end_headers()
                    self.wfile.write(body)
                elif path == "/abort":
                    self.start("text/event-stream")
                    self.chunk(b"data: partial\n\n")
                    time.sleep(0.2)
                    self.connection.shutdown(socket.SHUT_RDWR)
                    self.close_connection = True
                elif path == "/large":
                    size = int(params.get("size", "0"))
                    self.start("application/octet-stream", size)
                    self.pattern(size, self.wfile.write)
                elif path == "/large-chunked":
                    size = int(params.get("size", "0"))
                    self.send_response(200)
                    self.send_header("Content-Type", "application/octet-stream")
                    self.send_header("Transfer-Encoding", "chunked")
                    self.send_header("Link", '<http://127.0.0.1:%d/large-chunked?page=2>; rel="next"' % server.server_address[1])
                    self.end_headers()
                    self.pattern(size, self.chunk)
                    self.wfile.write(b"0\r\n\r\n")
                else:
                    self.send_response(404)
                    self.send_header("Content-Length", "0")
                    self.end_headers()

        server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        print("listening on http://127.0.0.1:%d" % server.server_address[1], flush=True)
        server.serve_forever()
        """#

    /// Runs the server for `body` and always stops it.
    package static func with<Result>(in directory: String, _ body: (_ baseURL: URL) async throws -> Result) async throws -> Result {
        let scriptPath = (directory as NSString).appendingPathComponent("streaming-upstream.py")
        try Data(script.utf8).write(to: URL(fileURLWithPath: scriptPath))
        return try await withChildProcess("/usr/bin/env", arguments: ["python3", "-u", scriptPath]) { process in
            try await body(try await process.listeningURL())
        }
    }

    /// The body of a chunked response, its chunk framing removed; `nil` unless it is complete
    /// (ends with the final zero-length chunk).
    package static func dechunked(_ bytes: ArraySlice<UInt8>) -> [UInt8]? {
        var rest = bytes
        var body: [UInt8] = []
        let lineEnd: [UInt8] = [13, 10]
        while let end = rest.firstRange(of: lineEnd) {
            guard let size = Int(String(decoding: rest[..<end.lowerBound], as: UTF8.self), radix: 16) else { return nil }
            rest = rest[end.upperBound...]
            if size == 0 { return body }
            guard rest.count >= size + 2 else { return nil }
            body += rest.prefix(size)
            rest = rest.dropFirst(size + 2)
        }
        return nil
    }
}
