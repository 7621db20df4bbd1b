import CassetteGRPC
import CassetteKernel
import CassetteServing
import CassetteUIServer
import CassetteWebSocket

/// The one place the proxy's protocol modules register with what every listener serving a
/// cassette carries: WebSocket conversations as a protocol switch, gRPC calls as HTTP/2 streams
/// it takes over (with `grpc`'s descriptors and message limit), and on a session's own port the
/// UI's refusal (the UI is on the main port, `ProxyRunner` registers it there). A new protocol
/// registers here.
extension ServedCassette.Context {
    package mutating func registerModules(grpc: GRPCOptions = GRPCOptions()) {
        protocols = [WebSocketModule(), GRPCModule(options: grpc)]
        sessionPortControls = [UIEndpoints.refusedOnSessionPorts]
    }
}
