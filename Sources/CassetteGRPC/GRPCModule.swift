import CassetteKernel
import CassetteServing
import Foundation
import NIOCore
import Synchronization
import WellPlateCore

/// gRPC as a protocol module: every listener serving a cassette takes the HTTP/2 streams whose
/// `content-type` is `application/grpc` (or `+proto`, `+json`...) and hands each to a
/// `GRPCStreamHandler`; over HTTP/1.1 the kernel refuses them (gRPC needs HTTP/2).
/// Registered in `ProxyModules.swift`, with the descriptors of the store and `--protoset`.
package struct GRPCModule: ServingProtocol {
    package let options: GRPCOptions
    /// Shared by every listener and session: the upstream's reflection is asked once per proxy.
    let reflection = ReflectionFetch()
    /// Shared by every listener and session: calls recorded from one upstream share its connections.
    let upstreams = GRPCUpstreamPools()

    package init(options: GRPCOptions) {
        self.options = options
    }

    package func offerStreams(on listener: ServingListener) -> HTTP2StreamSwitches.Switch? {
        let service = GRPCService(
            served: listener, schema: options.schema, maxMessage: options.maxMessage, timingScale: options.timingScale, reflection: reflection,
            upstreams: upstreams)
        var streams = HTTP2StreamSwitches.Switch.contentType("application/grpc", name: "gRPC") { pipeline, taken in
            switch service.routing(taken.headers, on: pipeline.eventLoop) {
            case .own: try pipeline.addHandler(GRPCStreamHandler(service: service))
            case .session(let sessions): try sessions.takeOver(pipeline, taken)
            case .refuse(let code, let message, let outcome):
                try pipeline.addHandler(GRPCStreamHandler(service: service, refusal: (code, message, outcome)))
            }
        }
        streams.answersWhole = { headers, logShard in service.isOwnCall(headers) ? service.wholeReplay(headers, logShard: logShard) : nil }
        return streams
    }

    package func shutdown() async {
        await upstreams.shutdown()
    }
}

/// Asks the upstream's server reflection once, the first time a call is recorded whose method
/// the descriptors do not describe, and keeps the files it sends in the store (for replay, the
/// tools and the UI). Only gRPC upstreams are asked: a REST upstream never sees an HTTP/2 preface.
final class ReflectionFetch: Sendable {
    private let asked = Mutex(false)

    func fetchOnce(from upstream: GRPCUpstreamConnection, into store: CassetteStore, log: ProxyLog, writers: ConversationWriters) {
        guard
            asked.withLock({ asked in
                defer { asked = true }
                return !asked
            })
        else { return }
        writers.run {
            let files = await GRPCReflection.files(from: upstream)
            guard !files.isEmpty else { return }
            do {
                try await store.storeProtoFiles(files, source: "reflection " + upstream.upstream.absoluteString)
            } catch {
                log.error("the descriptors from \(upstream.upstream.absoluteString)'s reflection could not be stored: \(error)")
            }
        }
    }
}
