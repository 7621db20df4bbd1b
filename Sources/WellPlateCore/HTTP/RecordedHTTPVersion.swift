/// The HTTP version a client spoke when a recording was made, kept for exports (HAR's
/// `httpVersion`). Never part of a key: one recording answers HTTP/1.1 and HTTP/2 alike.
package enum RecordedHTTPVersion: String, Sendable, Equatable, CaseIterable {
    case http1_0 = "HTTP/1.0"
    case http1_1 = "HTTP/1.1"
    case http2 = "HTTP/2"
    case http3 = "HTTP/3"

    /// The version of a request head's `major.minor`; `nil` for one HTTP never had.
    package init?(major: Int, minor: Int) {
        switch (major, minor) {
        case (1, 0): self = .http1_0
        case (1, 1): self = .http1_1
        case (2, _): self = .http2
        case (3, _): self = .http3
        default: return nil
        }
    }
}
