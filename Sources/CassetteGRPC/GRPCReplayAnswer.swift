import Foundation
import HTTPTypes
import NIOCore
import NIOHPACK
import NIOHTTP2
import WellPlateCore

/// How a replayed call's answer is written, by the stream path (`GRPCStreamHandler`) and the
/// connection path (`GRPCWholeReplay`) alike: the recorded response headers, each recorded
/// message framed (gzip when the recording's was and the client accepts it), the trailers.
struct GRPCReplayAnswer {
    let recording: Conversation
    /// The client's `grpc-accept-encoding` names gzip.
    let acceptsGzip: Bool

    /// The response HEADERS' fields, before the first message.
    var responseFields: HTTPFields {
        var fields = recording.grpc?.responseHeaders ?? [.contentType: "application/grpc"]
        fields[GRPCHeaders.encodingName] = compressesReplies ? "gzip" : nil
        fields[.contentLength] = nil
        return fields
    }

    var compressesReplies: Bool {
        acceptsGzip && recording.grpc?.responseHeaders?[GRPCHeaders.encodingName]?.lowercased() == "gzip"
    }

    /// A recorded message as it goes out: length-prefixed, compressed as the headers say.
    func encode(_ payload: Data) -> Data {
        if compressesReplies, let compressed = GRPCCompression.gzip(payload) {
            return GRPCFrame(compressed: true, payload: compressed).encoded
        }
        return GRPCFrame(payload: payload).encoded
    }

    /// The whole answer when nothing waits: response HEADERS, a DATA frame per message and the
    /// trailers, or trailers only (one HEADERS) when the recording had no response HEADERS and
    /// no message. The same frames `GRPCStreamHandler` writes one by one.
    func frames(messages: [Data], trailers: HTTPFields) -> [HTTP2Frame.FramePayload] {
        if messages.isEmpty, recording.grpc?.isTrailersOnly ?? true {
            var fields = responseFields
            fields.append(contentsOf: trailers)
            return [.headers(.init(headers: GRPCHeaders.response(fields), endStream: true))]
        }
        var frames: [HTTP2Frame.FramePayload] = [.headers(.init(headers: GRPCHeaders.response(responseFields)))]
        for message in messages { frames.append(.data(.init(data: .byteBuffer(ByteBuffer(data: encode(message)))))) }
        frames.append(.headers(.init(headers: GRPCHeaders.trailers(trailers), endStream: true)))
        return frames
    }
}
