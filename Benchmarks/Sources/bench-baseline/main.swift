import BenchServer
import Foundation
import NIOCore
import NIOHTTP1
import WellPlateCore

// The baseline for the replay benchmark: the least a SwiftNIO HTTP/1.1 server can do to return
// the same bytes as `cassette replay` for the same paths. Responses are built once at start-up;
// a request costs one dictionary lookup and one write. Usage: bench-baseline DB [PORT]

let arguments = CommandLine.arguments
guard arguments.count >= 2 else {
    FileHandle.standardError.write(Data("usage: bench-baseline DB [PORT]\n".utf8))
    exit(2)
}
let port = arguments.count > 2 ? Int(arguments[2]) ?? 0 : 0

struct Prepared: Sendable {
    let head: HTTPResponseHead
    let body: ByteBuffer
}

let store = try await CassetteStore.open(path: arguments[1], access: .readOnly)
var table: [String: Prepared] = [:]
for interaction in try await store.interactions(cassette: nil) {
    var headers = HTTPHeaders()
    for field in interaction.responseHeaders where field.name.canonicalName != "content-length" {
        headers.add(name: field.name.rawName, value: field.value)
    }
    headers.add(name: "Content-Length", value: String(interaction.responseBody.count))
    let path = URL(string: interaction.url).map { url in url.query.map { url.path + "?" + $0 } ?? url.path } ?? interaction.url
    table[path] = Prepared(
        head: HTTPResponseHead(version: .http1_1, status: HTTPResponseStatus(statusCode: interaction.statusCode), headers: headers),
        body: ByteBuffer(bytes: interaction.responseBody)
    )
}
try await store.close()
let responses = table

final class BaselineHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart
    private var uri = ""

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch Self.unwrapInboundIn(data) {
        case .head(let head):
            uri = head.uri
        case .body:
            break
        case .end:
            guard let prepared = responses[uri] else {
                var headers = HTTPHeaders()
                headers.add(name: "Content-Length", value: "0")
                context.write(Self.wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: .notFound, headers: headers))), promise: nil)
                context.writeAndFlush(Self.wrapOutboundOut(.end(nil)), promise: nil)
                return
            }
            context.write(Self.wrapOutboundOut(.head(prepared.head)), promise: nil)
            context.write(Self.wrapOutboundOut(.body(.byteBuffer(prepared.body))), promise: nil)
            context.writeAndFlush(Self.wrapOutboundOut(.end(nil)), promise: nil)
        }
    }
}

try await BenchServer.run(port: port) { BaselineHandler() }
