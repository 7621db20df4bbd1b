import CassetteKernel
import CassetteServing
import NIOCore
import NIOHPACK
import WellPlateCore

/// `x-cassette-session: ID` in a call's metadata on the main port: the call is the session's,
/// taken by its listener's gRPC switch (its cassette, mode, journal and summary) as on the
/// session's own port, the way `ServingRoute.select` sends a request with `X-Cassette-Session`
/// there. What REST gets as an error is a gRPC error here (HTTP 200 with `grpc-status`): gRPC
/// clients report a 404 or a 400 as a protocol error, without its message.
extension GRPCService {
    /// Where a call that opens with some request HEADERS goes.
    enum Routing {
        /// This listener's own call.
        case own
        /// A live session's: its listener's switch takes the stream.
        case session(HTTP2StreamSwitches.Switch)
        /// Answered at once with `code` and `message`; `outcome`: how the log, the journal and
        /// the summary count it.
        case refuse(GRPCStatusCode, String, GRPCCallOutcome)
    }

    func routing(_ headers: HPACKHeaders, on eventLoop: any EventLoop) -> Routing {
        guard let sessions = served.sessions else { return .own }
        let id = headers.first(name: SessionHeader.lowercasedName)
        switch ServingRoute.session(id: id, sessions: sessions, listener: served.listener, origin: served.upstreamOrigin, on: eventLoop) {
        case .none:
            guard served.settings.sessionsOnly else { return .own }
            // As REST's `session_required`: a miss for the summary and --strict.
            return .refuse(
                .failedPrecondition,
                "cassette: this proxy serves sessions only (--sessions-only): call \(headers.first(name: ":path") ?? "the method") on a session's baseURL, or add the metadata \(SessionHeader.lowercasedName): ID; open a session with POST \(ControlNames.sessions)",
                .missed)
        case .live(let route):
            guard let taker = route.parts.streamSwitches.taker(of: headers) else {
                return .refuse(.unimplemented, "cassette: session \(id ?? "") does not serve gRPC calls", .refused)
            }
            return .session(taker)
        case .unknown(let id):
            return .refuse(.notFound, "cassette: " + SessionEndpoints.unknownSessionMessage(id), .refused)
        }
    }

    /// Whether a call with `headers` is this listener's own, so that its unary replay may be
    /// answered whole at the connection (`wholeReplay`); a session's goes to the stream path,
    /// which routes it.
    func isOwnCall(_ headers: HPACKHeaders) -> Bool {
        served.sessions == nil || (!served.settings.sessionsOnly && headers.first(name: SessionHeader.lowercasedName) == nil)
    }
}
