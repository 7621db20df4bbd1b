import Foundation
import NIOCore
import NIOHPACK
import NIOHTTP2
import NIOPosix
import WellPlateCore

/// The upstream's server reflection (`grpc.reflection.v1`, then `v1alpha`), asked once when a
/// recording starts: the services it lists and the files that define them, so calls are decoded
/// and matched with no protoset. One connection (h2c, or h2 over TLS), two bidirectional calls (list the services,
/// then the file containing each), each request sent at once and the stream half-closed.
package enum GRPCReflection {
    /// Serialized `FileDescriptorProto`s by file name; empty when the upstream offers no
    /// reflection (or cannot be reached): recording goes on, messages then show raw.
    static func files(from upstream: GRPCUpstreamConnection, timeout: TimeAmount = .seconds(20)) async -> [(name: String, descriptor: Data)] {
        for version in ["grpc.reflection.v1", "grpc.reflection.v1alpha"] {
            let path = "/\(version).ServerReflection/ServerReflectionInfo"
            var list = ProtoWireWriter()
            list.field(7, string: "")
            guard let listed = try? await call(upstream, path: path, requests: [list.data], timeout: timeout), !listed.isEmpty else { continue }
            let services = listed.flatMap(serviceNames).filter { !$0.hasPrefix("grpc.reflection.") }
            let requests = services.map { service in
                var writer = ProtoWireWriter()
                writer.field(4, string: service)
                return writer.data
            }
            guard let answers = try? await call(upstream, path: path, requests: requests, timeout: timeout) else { return [] }
            var files: [String: Data] = [:]
            for descriptor in answers.flatMap(fileDescriptors) {
                if let name = ProtoSchema.fileName(of: descriptor) { files[name] = descriptor }
            }
            return files.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
        }
        return []
    }

    /// `list_services_response` (6) → `service` (1) → `name` (1).
    private static func serviceNames(_ response: Data) -> [String] {
        guard let fields = try? ProtoWireReader.fields(of: response) else { return [] }
        var names: [String] = []
        for (number, value) in fields where number == 6 {
            guard case .lengthDelimited(let list) = value, let services = try? ProtoWireReader.fields(of: list) else { continue }
            for (field, service) in services where field == 1 {
                guard case .lengthDelimited(let entry) = service, let parts = try? ProtoWireReader.fields(of: entry) else { continue }
                for (part, name) in parts where part == 1 {
                    if case .lengthDelimited(let bytes) = name { names.append(String(decoding: bytes, as: UTF8.self)) }
                }
            }
        }
        return names
    }

    /// `file_descriptor_response` (4) → `file_descriptor_proto` (1, repeated bytes).
    private static func fileDescriptors(_ response: Data) -> [Data] {
        guard let fields = try? ProtoWireReader.fields(of: response) else { return [] }
        var files: [Data] = []
        for (number, value) in fields where number == 4 {
            guard case .lengthDelimited(let answer) = value, let parts = try? ProtoWireReader.fields(of: answer) else { continue }
            for (part, file) in parts where part == 1 {
                if case .lengthDelimited(let bytes) = file { files.append(bytes) }
            }
        }
        return files
    }

    /// One call: `requests` sent, the stream half-closed, every response message returned once
    /// the upstream ends the stream with status OK; throws otherwise.
    private static func call(_ upstream: GRPCUpstreamConnection, path: String, requests: [Data], timeout: TimeAmount) async throws -> [Data] {
        let group = MultiThreadedEventLoopGroup.singleton
        let channel = try await upstream.connect(on: group, timeout: timeout).get()
        defer { channel.close(promise: nil) }
        let done = channel.eventLoop.makePromise(of: [Data].self)
        let (scheme, authority) = (upstream.scheme, upstream.authority)
        try await channel.eventLoop.submit {
            let multiplexer = try channel.pipeline.syncOperations.handler(type: NIOHTTP2Handler.self).syncMultiplexer()
            multiplexer.createStreamChannel { stream in
                stream.eventLoop.makeCompletedFuture { try stream.pipeline.syncOperations.addHandler(ReflectionCallHandler(done: done)) }
            }.whenComplete { result in
                switch result {
                case .failure(let error): done.fail(error)
                case .success(let stream):
                    let headers = HPACKHeaders([
                        (":method", "POST"), (":scheme", scheme), (":path", path), (":authority", authority), ("content-type", "application/grpc"),
                        ("te", "trailers"),
                    ])
                    stream.write(HTTP2Frame.FramePayload.headers(.init(headers: headers)), promise: nil)
                    var body = ByteBuffer()
                    for request in requests { body.writeBytes(GRPCFrame(payload: request).encoded) }
                    stream.writeAndFlush(HTTP2Frame.FramePayload.data(.init(data: .byteBuffer(body), endStream: true)), promise: nil)
                }
            }
        }.get()
        channel.eventLoop.scheduleTask(in: timeout) { done.fail(ChannelError.connectTimeout(timeout)) }
        return try await done.futureResult.get()
    }
}

/// Collects one reflection call's response messages; succeeds on trailers with status 0.
private final class ReflectionCallHandler: ChannelInboundHandler {
    typealias InboundIn = HTTP2Frame.FramePayload

    private let done: EventLoopPromise<[Data]>
    private var reader = GRPCFrameReader(limit: 64 * 1024 * 1024)
    private var messages: [Data] = []

    init(done: EventLoopPromise<[Data]>) {
        self.done = done
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch Self.unwrapInboundIn(data) {
        case .data(let frame):
            if case .byteBuffer(let buffer) = frame.data, let frames = try? reader.append(Data(buffer.readableBytesView)) {
                messages += frames.map(\.payload)
            }
        case .headers(let frame) where frame.endStream:
            if frame.headers.first(name: "grpc-status") == "0" {
                done.succeed(messages)
            } else {
                done.fail(ChannelError.inputClosed)
            }
        case .rstStream:
            done.fail(ChannelError.inputClosed)
        default:
            break
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        done.fail(ChannelError.inputClosed)
        context.fireChannelInactive()
    }
}
