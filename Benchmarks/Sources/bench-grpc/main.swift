import BenchServer
import Foundation
import NIOCore
import NIOHPACK
import NIOHTTP2
import NIOPosix

// The baseline for the gRPC replay benchmark (Benchmarks/grpc.sh): the least a swift-nio-http2
// server does to answer a unary call of `shop.v1.Catalog/GetItem` (Tests/Peers/grpc/shop.proto)
// with the bytes `cassette replay` serves once it has recorded this server: response HEADERS, one
// length-prefixed message, trailers. Every answer is made once at start-up; a call costs reading
// its frames and three writes. It is also the upstream the benchmark records.
// Usage: bench-grpc [PORT]; prints `listening on http://127.0.0.1:PORT`.

/// `Item { id: "item-1", name: "Cordless drill", price_cents: 12995, tags: ["tools", "power"], kind: KIND_TOOL }`,
/// in protobuf's wire format.
func itemMessage() -> [UInt8] {
    var bytes: [UInt8] = []
    func string(_ field: UInt8, _ value: String) {
        bytes += [field << 3 | 2, UInt8(value.utf8.count)] + Array(value.utf8)
    }
    string(1, "item-1")
    string(2, "Cordless drill")
    bytes += [3 << 3, 0xC3, 0x65]  // 12995 as a varint
    string(4, "tools")
    string(4, "power")
    bytes += [6 << 3, 2]
    return bytes
}

let message = itemMessage()
let responseBody = ByteBuffer(bytes: [0] + withUnsafeBytes(of: UInt32(message.count).bigEndian, Array.init) + message)
let responseHeaders: HPACKHeaders = [":status": "200", "content-type": "application/grpc"]
let trailers: HPACKHeaders = ["grpc-status": "0"]

/// One stream: the call ends with the client's END_STREAM (on its DATA, or on trailers); the
/// answer goes out then, in one flush.
final class UnaryHandler: ChannelInboundHandler {
    typealias InboundIn = HTTP2Frame.FramePayload
    typealias OutboundOut = HTTP2Frame.FramePayload

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let ended: Bool
        switch Self.unwrapInboundIn(data) {
        case .headers(let headers): ended = headers.endStream
        case .data(let data): ended = data.endStream
        default: ended = false
        }
        guard ended else { return }
        context.write(Self.wrapOutboundOut(.headers(.init(headers: responseHeaders))), promise: nil)
        context.write(Self.wrapOutboundOut(.data(.init(data: .byteBuffer(responseBody)))), promise: nil)
        context.writeAndFlush(Self.wrapOutboundOut(.headers(.init(headers: trailers, endStream: true))), promise: nil)
    }
}

let port = CommandLine.arguments.count > 1 ? Int(CommandLine.arguments[1]) ?? 0 : 0
try await BenchServer.run(port: port) { pipeline in
    _ = try pipeline.configureHTTP2Pipeline(mode: .server, connectionConfiguration: .init(), streamConfiguration: .init()) { stream in
        stream.eventLoop.makeCompletedFuture { try stream.pipeline.syncOperations.addHandler(UnaryHandler()) }
    }
}
