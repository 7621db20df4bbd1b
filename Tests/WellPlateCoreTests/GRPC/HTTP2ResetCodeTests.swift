import Testing
import WellPlateCore

/// An upstream's RST_STREAM code, as the store keeps it and a gRPC client is told of it.
@Suite("HTTP/2 reset codes: their names and the gRPC status each becomes")
struct HTTP2ResetCodeTests {
    @Test("each code becomes the status gRPC's PROTOCOL-HTTP2.md gives it, INTERNAL for the rest")
    func statusFollowsGRPCsMapping() {
        let statuses = (0...13).map { HTTP2ResetCode(rawValue: $0).grpcStatus }
        var expected = [GRPCStatusCode](repeating: .internalError, count: 14)
        expected[7] = .unavailable
        expected[8] = .cancelled
        expected[11] = .resourceExhausted
        expected[12] = .permissionDenied
        #expect(statuses == expected)
        #expect(HTTP2ResetCode(rawValue: 0x2a).grpcStatus == .internalError)
    }

    @Test("names read back as the code they name; an unknown code goes by its number")
    func namesReadBack() {
        #expect(HTTP2ResetCode(rawValue: 2).name == "INTERNAL_ERROR")
        #expect(HTTP2ResetCode(rawValue: 7).name == "REFUSED_STREAM")
        #expect(HTTP2ResetCode(rawValue: 0x2a).name == "0x2a")
        for raw in [0, 8, 13, 0x2a] { #expect(HTTP2ResetCode(name: HTTP2ResetCode(rawValue: raw).name) == HTTP2ResetCode(rawValue: raw)) }
        #expect(HTTP2ResetCode(name: "SOMETHING") == nil)
    }

    @Test("the client of a reset call is told the status and the code, the same live and on replay")
    func cutStatusNamesTheReset() {
        let reset = GRPCCutStatus.of(.dropped(by: .server, reset: HTTP2ResetCode(rawValue: 11)), path: "/shop.v1.Catalog/ListItems")
        #expect(reset.code == .resourceExhausted)
        #expect(reset.message == "cassette: the upstream reset the call's stream (RST_STREAM ENHANCE_YOUR_CALM)")
        let gone = GRPCCutStatus.of(.dropped(by: .server), path: "/shop.v1.Catalog/ListItems")
        #expect(gone.code == .unavailable)
    }
}
