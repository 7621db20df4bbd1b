import NIOCore
import NIOHTTP2

/// What one HTTP/2 connection may ask of the proxy, set explicitly rather than left to
/// swift-nio-http2's defaults, so the protections are visible and tested here. A peer past a
/// limit that guards against a flood (rapid reset, SETTINGS/PING/empty-frame floods, too many
/// glitches, endless CONTINUATION) gets a GOAWAY and its connection is closed
/// (`HTTP2ConnectionGuard` logs why); the other connections go on.
package struct HTTP2Limits: Sendable, Hashable {
    /// Streams a client may have open at once (SETTINGS_MAX_CONCURRENT_STREAMS); one more is
    /// refused with RST_STREAM(REFUSED_STREAM).
    package var maxConcurrentStreams = 100
    /// The largest decoded header list (SETTINGS_MAX_HEADER_LIST_SIZE), as large as the HTTP/1.1
    /// decoder's limit on a head.
    package var maxHeaderListSize = 64 * 1024
    /// Inbound flow-control window of each stream: what a client may send on it before the
    /// proxy has read it. The connection's window has the same target (`HTTP2Serving`).
    package var streamWindow = 1024 * 1024
    /// Rapid reset (CVE-2023-44487): RST_STREAM frames a client may send in `window`.
    package var resetFrames = 200
    /// PING, SETTINGS, PRIORITY, ALTSVC and ORIGIN frames a client may send in `window`.
    package var controlFrames = 200
    /// Stream errors the client may cause in `window` (each answered by a RST_STREAM).
    package var streamErrors = 200
    package var window = TimeAmount.seconds(30)
    /// Suspicious events (swift-nio-http2's "glitches": frames for closed streams, resets right
    /// after opening, ...) before the connection is closed.
    package var glitches = 200
    /// DATA frames without payload and without END_STREAM in a row.
    package var sequentialEmptyDataFrames = 1
    /// CONTINUATION frames in a row (the CONTINUATION flood).
    package var sequentialContinuationFrames = 5
    /// Control frames the proxy queues for a client that does not read its answers (PING and
    /// SETTINGS ACKs) before it gives up on the connection.
    package var bufferedControlFrames = 1000
    /// How long a connection's streams may take to finish once the proxy shuts down (GOAWAY sent).
    package var gracePeriod = TimeAmount.seconds(30)

    package init() {}

    /// The limits the listeners use.
    package static let standard = HTTP2Limits()

    /// The connection's settings and protections as swift-nio-http2 takes them.
    package var connection: NIOHTTP2Handler.ConnectionConfiguration {
        var configuration = NIOHTTP2Handler.ConnectionConfiguration()
        configuration.initialSettings = [
            HTTP2Setting(parameter: .maxConcurrentStreams, value: maxConcurrentStreams),
            HTTP2Setting(parameter: .maxHeaderListSize, value: maxHeaderListSize),
            HTTP2Setting(parameter: .initialWindowSize, value: streamWindow),
        ]
        configuration.maximumSequentialEmptyDataFrames = sequentialEmptyDataFrames
        configuration.maximumSequentialContinuationFrames = sequentialContinuationFrames
        configuration.maximumBufferedControlFrames = bufferedControlFrames
        configuration.maximumConnectionGlitches = glitches
        configuration.controlFrameRateLimit.maximumCount = controlFrames
        configuration.controlFrameRateLimit.windowLength = window
        return configuration
    }

    /// Each stream's window and the rate limits swift-nio-http2 keeps per stream kind.
    package var stream: NIOHTTP2Handler.StreamConfiguration {
        var configuration = NIOHTTP2Handler.StreamConfiguration()
        configuration.targetWindowSize = streamWindow
        configuration.streamResetFrameRateLimit.maximumCount = resetFrames
        configuration.streamResetFrameRateLimit.windowLength = window
        configuration.streamErrorRateLimit.maximumCount = streamErrors
        configuration.streamErrorRateLimit.windowLength = window
        return configuration
    }
}
