import CassetteKernel
import CassetteServing
import NIOCore
import WellPlateCore

/// gRPC as a protocol module: every listener serving a cassette takes the HTTP/2 streams whose
/// `content-type` is `application/grpc` (or `+proto`, `+json`...) and hands each to a
/// `GRPCStreamHandler`; over HTTP/1.1 the kernel refuses them (gRPC needs HTTP/2).
/// Registered in `ProxyModules.swift`, with the descriptors of the store and `--protoset`.
package struct GRPCModule: ServingProtocol {
    package let options: GRPCOptions

    package init(options: GRPCOptions) {
        self.options = options
    }

    package func offerStreams(on listener: ServingListener) -> HTTP2StreamSwitches.Switch? {
        let service = GRPCService(served: listener, schema: options.schema, maxMessage: options.maxMessage)
        return .contentType("application/grpc", name: "gRPC") { pipeline, _ in
            try pipeline.addHandler(GRPCStreamHandler(service: service))
        }
    }
}
