import WellPlateCore

/// HAR's `httpVersion` for the versions the store keeps, and back. HTTP/2 is written as Chrome's
/// DevTools write it, `http/2.0`: mitmproxy's HAR reader takes that (and `HTTP/2`) as HTTP/2, while
/// it reads its own writer's `HTTP/2.0` as HTTP/1.1. A recording whose version is not known (a
/// store from before versions were kept) is written `HTTP/1.1`, as every export used to be.
enum HARHTTPVersion {
    static func text(_ version: RecordedHTTPVersion?) -> String {
        switch version {
        case .http2: "http/2.0"
        case .http3: "HTTP/3"
        case .http1_0: "HTTP/1.0"
        case .http1_1, nil: "HTTP/1.1"
        }
    }

    /// What DevTools (`http/2.0`, `h2`, `http/1.1`, `h3`), mitmproxy (`HTTP/2.0`, `HTTP/1.1`) and
    /// others write; `nil` for an empty or unknown value.
    static func version(_ text: String?) -> RecordedHTTPVersion? {
        switch text?.lowercased() {
        case "http/2.0", "http/2", "h2", "h2c": .http2
        case "http/1.1": .http1_1
        case "http/1.0": .http1_0
        case "http/3", "http/3.0", "h3": .http3
        default: nil
        }
    }
}
