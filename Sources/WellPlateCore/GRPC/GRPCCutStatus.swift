/// The status a client gets for a gRPC call that ended without trailers of its own, the same
/// live and on replay: the upstream reset the call's stream (the status gRPC reads its
/// RST_STREAM code as, so the client sees what the upstream meant), or closed its connection
/// mid-call (UNAVAILABLE, as gRPC reports a lost transport); a recording cut by the recorder's
/// stop or its client's reset is UNAVAILABLE on replay. Always a status in trailers, never a
/// bare reset that clients report as a cancel of their own.
package enum GRPCCutStatus {
    package static func of(_ end: ConversationEnd, path: String) -> (code: GRPCStatusCode, message: String) {
        switch end {
        case .dropped(.server, let reset?):
            (reset.grpcStatus, "cassette: the upstream reset the call's stream (RST_STREAM \(reset.name))")
        case .dropped(.server, nil):
            (.unavailable, "cassette: the upstream closed its connection before the call ended")
        case .dropped(.client, _):
            (.unavailable, "cassette: the recording of \(path) ends where its client reset the call")
        case .cut:
            (.unavailable, "cassette: the recording of \(path) was cut before its end (the recorder stopped)")
        case .closed:
            (.unavailable, "cassette: the recording of \(path) ended without a grpc-status")
        }
    }
}
