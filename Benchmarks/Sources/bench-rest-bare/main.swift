import BenchServer
import Foundation
import NIOCore
import NIOHPACK
import NIOHTTP1
import NIOHTTP2
import NIOPosix

// The ceiling of the REST-over-HTTP/2 benchmark (Benchmarks/http2.sh): the least SwiftNIO does to
// answer a GET over HTTP/1.1 (NIOHTTP1's server pipeline) and over HTTP/2 (swift-nio-http2's
// handler, answered at the connection as `HTTP2PlainReplies` answers a replay: no stream channel),
// with the bytes `cassette replay` answers. Every answer is made once at start-up. Their ratio is
// what swift-nio-http2 itself costs against NIOHTTP1, which no server built on it can beat.
// Usage: bench-rest-bare h1|h2 DIR [PORT]. DIR holds NAME.body and NAME.headers (curl -D) for each
// kind of path `/api/NAME/N`; prints `listening on http://127.0.0.1:PORT`.

/// One kind's answer: the response headers as recorded (hop-by-hop fields left out) and the body.
struct Answer: Sendable {
    let fields: [(String, String)]
    let body: ByteBuffer
}

func loadAnswers(_ directory: String) throws -> [String: Answer] {
    var answers: [String: Answer] = [:]
    for file in try FileManager.default.contentsOfDirectory(atPath: directory) where file.hasSuffix(".body") {
        let name = String(file.dropLast(5))
        let body = try Data(contentsOf: URL(fileURLWithPath: "\(directory)/\(file)"))
        let head = try String(contentsOfFile: "\(directory)/\(name).headers", encoding: .utf8)
        let fields = head.split(whereSeparator: \.isNewline).dropFirst().compactMap { line -> (String, String)? in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            let name = line[..<colon].lowercased()
            guard !["connection", "keep-alive", "transfer-encoding"].contains(name) else { return nil }
            return (name, line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
        answers[name] = Answer(fields: fields, body: ByteBuffer(bytes: body))
    }
    return answers
}

/// `/api/NAME/N` → NAME.
func kind(of path: Substring) -> Substring? {
    let parts = path.split(separator: "/")
    return parts.count == 3 && parts[0] == "api" ? parts[1] : nil
}

final class HTTP1Answerer: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart
    let answers: [String: (HTTPHeaders, ByteBuffer)]
    var head: HTTPRequestHead?

    init(_ answers: [String: (HTTPHeaders, ByteBuffer)]) { self.answers = answers }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch Self.unwrapInboundIn(data) {
        case .head(let head): self.head = head
        case .body: break
        case .end:
            guard let head, let name = kind(of: head.uri[...]), let (headers, body) = answers[String(name)] else {
                context.writeAndFlush(Self.wrapOutboundOut(.head(.init(version: .http1_1, status: .notFound, headers: ["content-length": "0"]))), promise: nil)
                return
            }
            context.write(Self.wrapOutboundOut(.head(.init(version: head.version, status: .ok, headers: headers))), promise: nil)
            context.write(Self.wrapOutboundOut(.body(.byteBuffer(body))), promise: nil)
            context.write(Self.wrapOutboundOut(.end(nil)), promise: nil)
        }
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        context.flush()
        context.fireChannelReadComplete()
    }
}

final class HTTP2Answerer: ChannelInboundHandler {
    typealias InboundIn = HTTP2Frame
    typealias OutboundOut = HTTP2Frame
    let answers: [String: (HPACKHeaders, ByteBuffer)]

    init(_ answers: [String: (HPACKHeaders, ByteBuffer)]) { self.answers = answers }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = Self.unwrapInboundIn(data)
        guard case .headers(let request) = frame.payload, request.endStream else { return }
        guard let path = request.headers.first(name: ":path"), let name = kind(of: path[...]), let (headers, body) = answers[String(name)] else {
            context.write(
                Self.wrapOutboundOut(HTTP2Frame(streamID: frame.streamID, payload: .headers(.init(headers: [":status": "404"], endStream: true)))), promise: nil
            )
            return
        }
        context.write(Self.wrapOutboundOut(HTTP2Frame(streamID: frame.streamID, payload: .headers(.init(headers: headers)))), promise: nil)
        context.write(Self.wrapOutboundOut(HTTP2Frame(streamID: frame.streamID, payload: .data(.init(data: .byteBuffer(body), endStream: true)))), promise: nil)
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        context.flush()
        context.fireChannelReadComplete()
    }
}

let arguments = CommandLine.arguments
guard arguments.count >= 3, ["h1", "h2"].contains(arguments[1]) else {
    FileHandle.standardError.write(Data("usage: bench-rest-bare h1|h2 DIR [PORT]\n".utf8))
    exit(64)
}
let answers = try loadAnswers(arguments[2])
let h1Answers = answers.mapValues { (HTTPHeaders($0.fields), $0.body) }
let h2Answers = answers.mapValues { (HPACKHeaders([(":status", "200")] + $0.fields), $0.body) }
let useHTTP2 = arguments[1] == "h2"
let port = arguments.count > 3 ? Int(arguments[3]) ?? 0 : 0
if useHTTP2 {
    try await BenchServer.run(port: port) { pipeline in
        try pipeline.addHandler(NIOHTTP2Handler(mode: .server))
        try pipeline.addHandler(HTTP2Answerer(h2Answers))
    }
} else {
    // As cassette's HTTP/1.1 listeners and bench-baseline: NIO's codecs with pipelining assistance.
    try await BenchServer.run(port: port) { HTTP1Answerer(h1Answers) }
}
