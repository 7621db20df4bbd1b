import Foundation
import WellPlateCore
import WellPlateNetworking

/// A real HTTP(S) server answering from a route table (Python's `http.server`; scripts/test.sh
/// installs python3): for tests that need hosts whose answers point at each other, such as a
/// redirect from an API host to an auth host.
package enum RoutedUpstream {
    /// One answer: a status, headers in order, and a JSON body.
    package struct Route: Sendable {
        package var status: Int
        package var headers: [(String, String)]
        package var json: String

        package init(status: Int = 200, headers: [(String, String)] = [], json: String) {
            self.status = status
            self.headers = headers
            self.json = json
        }

        var encoded: [String: Any] {
            ["status": status, "headers": headers.map { [$0.0, $0.1] }, "body": json]
        }
    }

    static let script = #"""
        import json, ssl, sys
        from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

        routes = json.load(open(sys.argv[1]))

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def answer(self):
                length = int(self.headers.get("Content-Length", "0"))
                if length:
                    self.rfile.read(length)
                route = routes.get(self.command + " " + self.path.split("?")[0])
                if route is None:
                    route = {"status": 404, "headers": [], "body": json.dumps({"error": "not_found", "path": self.path})}
                data = route["body"].encode()
                self.send_response(route["status"])
                self.send_header("Content-Type", "application/json")
                for name, value in route["headers"]:
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                if self.command != "HEAD":
                    self.wfile.write(data)

            do_GET = do_POST = do_PUT = do_DELETE = do_HEAD = answer

        server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        scheme = "http"
        if len(sys.argv) > 3:
            context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            context.load_cert_chain(sys.argv[2], sys.argv[3])
            server.socket = context.wrap_socket(server.socket, server_side=True)
            scheme = "https"
        print("listening on %s://127.0.0.1:%d" % (scheme, server.server_address[1]), flush=True)
        server.serve_forever()
        """#

    /// Serves `routes` (keyed `"GET /path"`, the query ignored) over HTTPS when `tls` is given,
    /// for `body`, and always stops the server. `name` keeps the files of several servers apart.
    package static func with<Result>(
        _ routes: [String: Route], tls: PythonUpstream.TLS? = nil, name: String, in directory: String, _ body: (_ baseURL: URL) async throws -> Result
    ) async throws -> Result {
        let scriptPath = (directory as NSString).appendingPathComponent("routed-upstream.py")
        try Data(script.utf8).write(to: URL(fileURLWithPath: scriptPath))
        let routesPath = (directory as NSString).appendingPathComponent("\(name)-routes.json")
        try JSONSerialization.data(withJSONObject: routes.mapValues(\.encoded)).write(to: URL(fileURLWithPath: routesPath))
        var arguments = ["python3", "-u", scriptPath, routesPath]
        if let tls { arguments += [tls.certificate, tls.key] }
        return try await withChildProcess("/usr/bin/env", arguments: arguments) { process in
            try await body(try await process.listeningURL())
        }
    }
}
