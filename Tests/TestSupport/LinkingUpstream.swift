import Foundation
import WellPlateCore
import WellPlateNetworking

/// A real HTTP server (Python's `http.server`) whose answers lead back to itself with absolute
/// URLs, as production APIs' do, optionally under a path prefix (`/v1`, given on start):
///
/// - `/redirect/N`: 302 to `/redirect/N-1` (absolute), `/redirect/0` answers `{"done": true}`.
/// - `/relative`: 302 to `/redirect/0` as a root-relative URL (`/v1/redirect/0` under `/v1`).
/// - `/items?page=N` (1 to 3): `{"page": N}` with `Link: <.../items?page=N+1>; rel="next",
///   <.../items?page=1>; rel="first"` (no `next` on the last page).
/// - `/moved`: 200 with `Content-Location: .../items?page=1` and `Refresh: 0; url=.../items?page=2`.
/// - `/lookalike`: a `Link` to `/x` (rel="self") and to URLs that only look like the upstream's
///   (another scheme, port or host, user info, a longer path prefix), listed in the body.
/// - `/links.json`: a JSON body naming its own URL (plainly and with JSON's `\/`) and an
///   unrelated host's.
/// - `/echo-name`: the raw bytes of the request's `X-Name` in hex, as `{"hex": "..."}`.
/// - `POST /upload`: the size of the body.
package enum LinkingUpstream {
    package static let script = #"""
        import json, sys
        from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

        prefix = sys.argv[1] if len(sys.argv) > 1 else ""

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def base(self):
                return "http://127.0.0.1:%d%s" % (self.server.server_address[1], prefix)

            def reply(self, status, body, headers=(), raw=None):
                data = raw if raw is not None else json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                for name, value in headers:
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self):
                if not self.path.startswith(prefix):
                    return self.reply(404, {"error": "outside the prefix"})
                path, _, query = self.path[len(prefix):].partition("?")
                base = self.base()
                if path.startswith("/redirect/"):
                    n = int(path.rsplit("/", 1)[1])
                    if n == 0:
                        return self.reply(200, {"done": True})
                    return self.reply(302, {"next": n - 1}, [("Location", "%s/redirect/%d" % (base, n - 1))])
                if path == "/relative":
                    return self.reply(302, {"next": 0}, [("Location", "%s/redirect/0" % prefix)])
                if path == "/items":
                    page = int(query.split("=")[1]) if query.startswith("page=") else 1
                    links = ['<%s/items?page=1>; rel="first"' % base]
                    if page < 3:
                        links.insert(0, '<%s/items?page=%d>; rel="next"' % (base, page + 1))
                    return self.reply(200, {"page": page}, [("Link", ", ".join(links))])
                if path == "/moved":
                    return self.reply(200, {"moved": True}, [("Content-Location", base + "/items?page=1"), ("Refresh", "0; url=%s/items?page=2" % base)])
                if path == "/lookalike":
                    port = self.server.server_address[1]
                    lookalikes = ["https://127.0.0.1:%d%s/x" % (port, prefix), "http://127.0.0.1:%d%s/x" % (port + 1, prefix),
                                  "http://user@127.0.0.1:%d%s/x" % (port, prefix), "http://127.0.0.1:%d%s0/x" % (port, prefix),
                                  "http://127.0.0.10:%d%s/x" % (port, prefix)]
                    links = ", ".join('<%s>; rel="alternate"' % url for url in lookalikes)
                    return self.reply(200, {"lookalikes": lookalikes}, [("Link", links + ', <%s/x>; rel="self"' % base)])
                if path == "/links.json":
                    raw = ('{"self":"%s/links.json","escaped":"%s","elsewhere":"https://example.org/x"}' % (base, (base + "/items?page=2").replace("/", "\\/"))).encode()
                    return self.reply(200, None, raw=raw)
                if path == "/echo-name":
                    value = self.headers.get("X-Name", "")
                    return self.reply(200, {"hex": value.encode("latin-1").hex()})
                self.reply(404, {"error": "not_found"})

            def do_POST(self):
                length = int(self.headers.get("Content-Length", "0"))
                body = self.rfile.read(length)
                self.reply(200, {"bytes": len(body)})

        server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        print("listening on http://127.0.0.1:%d%s" % (server.server_address[1], prefix), flush=True)
        server.serve_forever()
        """#

    /// Runs the server (under `prefix`, such as `/v1`) for `body` and always stops it; `body`
    /// gets the base URL, prefix included.
    package static func with<Result>(prefix: String = "", in directory: String, _ body: (_ baseURL: URL) async throws -> Result) async throws -> Result {
        let scriptPath = (directory as NSString).appendingPathComponent("linking-upstream.py")
        try Data(script.utf8).write(to: URL(fileURLWithPath: scriptPath))
        return try await withChildProcess("/usr/bin/env", arguments: ["python3", "-u", scriptPath, prefix]) { process in
            try await body(try await process.listeningURL())
        }
    }
}
