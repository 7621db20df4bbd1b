import NIOHTTP1

/// The `--verbose` log: one line per request on stderr, nothing when disabled.
struct RequestLog: Sendable {
    let isEnabled: Bool

    func request(_ head: HTTPRequestHead, status: HTTPResponseStatus, bodyBytes: Int, duration: Duration) {
        guard isEnabled else { return }
        let milliseconds = Double(duration.components.attoseconds) / 1e15 + Double(duration.components.seconds) * 1000
        let rounded = (milliseconds * 100).rounded() / 100
        StandardStreams.error("\(head.method.rawValue) \(head.uri) \(status.code) \(bodyBytes)B \(rounded)ms")
    }

    func connectionError(_ error: any Error, remote: String) {
        guard isEnabled else { return }
        StandardStreams.error("connection from \(remote) closed: \(error)")
    }
}
