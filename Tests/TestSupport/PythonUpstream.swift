import Foundation
import WellPlateCore
import WellPlateNetworking

/// A small real HTTP(S) server, Python's `http.server` (scripts/test.sh installs python3), for
/// what the sample API cannot do: TLS with test-made certificates, client-certificate checks and
/// header bytes that are not UTF-8 (Python writes header values as latin-1).
///
/// Paths: `/api/hello` (JSON naming the client certificate's CN), `/api/latin1` (an `X-Note: café`
/// header in latin-1), `/api/etag` (ETag "v1", 304 for `If-None-Match: "v1"`), `/api/negotiate`
/// (a body per `Accept-Language`, `Vary: Accept-Language`), `/api/gzip` (a gzip body, with
/// `Content-Encoding` between other headers), `/api/headers` (the names of the request's headers,
/// and the SHA-256 of its `Proxy-Authorization`: proof that it arrived, which no redaction
/// rewrites), `/api/cookies/set?NAME=VALUE...` (a `Set-Cookie` for each), `/api/cookies` (the
/// cookies received), `/api/echo` (the request's headers in its body, raw, percent-encoded and
/// with JSON's `\/`, and its `Authorization` and cookie `sid` in `X-Echo-*` headers; `?gzip=1`
/// compressed, `?stream=1` chunked without a length), `/api/authorize?redirect_uri=URI&state=S` (a
/// 302 to `URI?code=c0de&state=S`), `POST /api/token` (the form's `redirect_uri` and the
/// `X-Callback` header sent back in JSON), `/api/items/NAME` (echoes the name), `POST /api/upload` (echoes the size).
package enum PythonUpstream {
    package struct TLS: Sendable {
        package init(certificate: String, key: String, requiredClientCA: String? = nil) {
            self.certificate = certificate
            self.key = key
            self.requiredClientCA = requiredClientCA
        }

        var certificate: String
        var key: String
        /// When set, a client certificate signed by this CA is required.
        var requiredClientCA: String?
    }

    package static let script = #"""
        import gzip, hashlib, json, ssl, sys
        from http.cookies import SimpleCookie
        from urllib.parse import parse_qsl, quote, urlsplit
        from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def reply(self, status, body, headers=()):
                data = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                for name, value in headers:
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(data) if status != 304 else 0))
                self.end_headers()
                if status != 304:
                    self.wfile.write(data)

            def do_GET(self):
                path = self.path.split("?")[0]
                if path == "/api/hello":
                    client = None
                    if hasattr(self.connection, "getpeercert"):
                        cert = self.connection.getpeercert()
                        if cert:
                            client = dict(x[0] for x in cert["subject"]).get("commonName")
                    self.reply(200, {"hello": "world", "client": client})
                elif path == "/api/latin1":
                    self.reply(200, {"ok": True}, [("X-Note", "caf\u00e9"), ("Content-Disposition", 'attachment; filename="r\u00e9sum\u00e9.txt"')])
                elif path == "/api/etag":
                    if self.headers.get("If-None-Match") == '"v1"':
                        self.reply(304, None, [("ETag", '"v1"')])
                    else:
                        self.reply(200, {"version": 1}, [("ETag", '"v1"')])
                elif path == "/api/gzip":
                    data = gzip.compress(json.dumps({"compressed": True}).encode())
                    self.send_response(200)
                    for name, value in [("Content-Type", "application/json"), ("Content-Encoding", "gzip"), ("Content-Length", str(len(data))), ("X-After", "1"), ("Cache-Control", "no-store")]:
                        self.send_header(name, value)
                    self.end_headers()
                    self.wfile.write(data)
                elif path == "/api/headers":
                    credential = self.headers.get("Proxy-Authorization")
                    self.reply(200, {
                        "names": sorted(name.lower() for name in self.headers.keys()),
                        "proxyAuthorizationSHA256": hashlib.sha256(credential.encode()).hexdigest() if credential else None,
                    })
                elif path == "/api/cookies/set":
                    pairs = parse_qsl(urlsplit(self.path).query)
                    self.reply(200, {"set": [name for name, _ in pairs]}, [("Set-Cookie", "%s=%s; Path=/" % pair) for pair in pairs])
                elif path == "/api/cookies":
                    cookies = SimpleCookie(self.headers.get("Cookie", ""))
                    self.reply(200, {"cookies": {name: morsel.value for name, morsel in cookies.items()}})
                elif path == "/api/echo":
                    # What an echo service, or an error quoting the request, sends back: the request's
                    # headers in the body (raw, percent-encoded, JSON with `\/`), two in headers.
                    query = dict(parse_qsl(urlsplit(self.path).query))
                    authorization = self.headers.get("Authorization", "")
                    cookies = SimpleCookie(self.headers.get("Cookie", ""))
                    sid = cookies["sid"].value if "sid" in cookies else ""
                    text = json.dumps({
                        "headers": {name: value for name, value in self.headers.items()},
                        "authorizationEncoded": quote(authorization, safe=""),
                        "cookies": {name: morsel.value for name, morsel in cookies.items()},
                    }).replace("/", "\\/")
                    data = text.encode()
                    headers = [("Content-Type", "application/json"), ("X-Echo-Authorization", authorization), ("X-Echo-Sid", sid)]
                    if query.get("gzip"):
                        data = gzip.compress(data)
                        headers.append(("Content-Encoding", "gzip"))
                    self.send_response(200)
                    for name, value in headers:
                        self.send_header(name, value)
                    if query.get("stream"):
                        # No length: the proxy streams it and records its pieces.
                        self.send_header("Transfer-Encoding", "chunked")
                        self.end_headers()
                        middle = len(data) // 2
                        for piece in (data[:middle], data[middle:]):
                            self.wfile.write(b"%x\r\n%s\r\n" % (len(piece), piece))
                            self.wfile.flush()
                        self.wfile.write(b"0\r\n\r\n")
                    else:
                        self.send_header("Content-Length", str(len(data)))
                        self.end_headers()
                        self.wfile.write(data)
                elif path == "/api/authorize":
                    # An OAuth authorization endpoint: back to the client's redirect_uri with a code.
                    query = dict(parse_qsl(urlsplit(self.path).query))
                    target = "%s?code=c0de&state=%s" % (query.get("redirect_uri", ""), query.get("state", ""))
                    self.reply(302, {"redirect_uri": query.get("redirect_uri")}, [("Location", target)])
                elif path.startswith("/api/items/"):
                    self.reply(200, {"item": path[len("/api/items/"):]})
                elif path == "/api/negotiate":
                    language = self.headers.get("Accept-Language", "en")
                    self.reply(200, {"greeting": "bonjour" if language.startswith("fr") else "hello"}, [("Vary", "Accept-Language")])
                else:
                    self.reply(404, {"error": "not_found"})

            def do_POST(self):
                length = int(self.headers.get("Content-Length", "0"))
                body = self.rfile.read(length)
                if self.path == "/api/token":
                    # An OAuth token endpoint: the form's redirect_uri and the callback header, sent back.
                    form = dict(parse_qsl(body.decode()))
                    self.reply(200, {"redirect_uri": form.get("redirect_uri"), "callback": self.headers.get("X-Callback")})
                    return
                self.reply(200, {"bytes": len(body), "contentType": self.headers.get("Content-Type")})

        server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        scheme = "http"
        if len(sys.argv) > 2:
            context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            context.load_cert_chain(sys.argv[1], sys.argv[2])
            if len(sys.argv) > 3:
                context.verify_mode = ssl.CERT_REQUIRED
                context.load_verify_locations(sys.argv[3])
            server.socket = context.wrap_socket(server.socket, server_side=True)
            scheme = "https"
        print("listening on %s://127.0.0.1:%d" % (scheme, server.server_address[1]), flush=True)
        server.serve_forever()
        """#

    /// Runs the server (HTTPS with `tls`) for `body` and always stops it.
    package static func with<Result>(tls: TLS? = nil, in directory: String, _ body: (_ baseURL: URL) async throws -> Result) async throws -> Result {
        let scriptPath = (directory as NSString).appendingPathComponent("upstream.py")
        try Data(script.utf8).write(to: URL(fileURLWithPath: scriptPath))
        var arguments = ["python3", "-u", scriptPath]
        if let tls {
            arguments += [tls.certificate, tls.key]
            if let ca = tls.requiredClientCA { arguments.append(ca) }
        }
        return try await withChildProcess("/usr/bin/env", arguments: arguments) { process in
            try await body(try await process.listeningURL())
        }
    }
}
