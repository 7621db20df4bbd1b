import CassetteKernel
import Foundation
import HTTPTypes
import NIOCore
import NIOFoundationCompat
import WellPlateCore

/// Puts the proxy's own address back into replayed answers that hold its placeholder
/// (`OwnAddress`): the address this client reached the proxy at, so a redirect to the client's
/// own `redirect_uri` leads back to this proxy, whatever port it recorded on. Then upstream URLs
/// are pointed at the proxy as before (`UpstreamURLRewriter`). Every listener's writer has one;
/// only answers made per request reach it, never a `PreparedReply`.
package struct OwnAddressRewriter: AnswerRewriter {
    package let upstreamURLs: UpstreamURLRewriter?

    package init(upstreamURLs: UpstreamURLRewriter?) {
        self.upstreamURLs = upstreamURLs
    }

    package func served(_ answer: ProxyAnswer, proxyBase base: @autoclosure () -> String) -> ProxyAnswer {
        served(answer, proxyBase: base(), ownBase: base())
    }

    package func served(_ answer: ProxyAnswer, proxyBase base: @autoclosure () -> String, ownBase: @autoclosure () -> String) -> ProxyAnswer {
        var served = answer
        // Recorded and passed-through answers are the upstream's own, which hold the real address.
        if answer.source == .replayed, case .fields(let statusCode, let fields) = answer.head {
            let own = ownBase()
            let authority = own.hasPrefix("http://") ? String(own.dropFirst(7)) : own
            var restoredFields = fields
            for index in fields.indices {
                if let value = OwnAddress.restoring(fields[index].value, authority: authority) { restoredFields[index].value = value }
            }
            switch answer.body {
            case .bytes(let data):
                if let restored = OwnAddress.restoring(data, authority: authority) {
                    served.body = .bytes(Data(restored.bytes))
                    if restoredFields[.contentLength] != nil { restoredFields[.contentLength] = String(restored.bytes.count) }
                }
            case .buffer(let buffer?):
                if let restored = OwnAddress.restoring(buffer.readableBytesView, authority: authority) {
                    served.body = .buffer(ByteBuffer(bytes: restored.bytes))
                    if restoredFields[.contentLength] != nil { restoredFields[.contentLength] = String(restored.bytes.count) }
                }
            case .pieces(let buffer, let pieces):
                if let restored = OwnAddress.restoring(buffer.readableBytesView, authority: authority) {
                    served.body = .pieces(ByteBuffer(bytes: restored.bytes), Self.moved(pieces, by: restored.shifts, count: restored.bytes.count))
                    if restoredFields[.contentLength] != nil { restoredFields[.contentLength] = String(restored.bytes.count) }
                }
            case .buffer(nil), .stream:
                break
            }
            served.head = .fields(statusCode: statusCode, restoredFields)
            return upstreamURLs?.served(served, proxyBase: base()) ?? served
        }
        return upstreamURLs?.served(served, proxyBase: base()) ?? served
    }

    /// The pieces' byte ranges after the replacements: each boundary moves by what changed before it.
    private static func moved(_ pieces: [ReplayPiece], by shifts: [(offset: Int, shift: Int)], count: Int) -> [ReplayPiece] {
        func moved(_ position: Int) -> Int {
            position + shifts.reduce(0) { $0 + ($1.offset < position ? $1.shift : 0) }
        }
        return pieces.enumerated().map { index, piece in
            let end = index == pieces.count - 1 ? count : moved(piece.bytes.upperBound)
            return ReplayPiece(offset: piece.offset, bytes: moved(piece.bytes.lowerBound)..<max(moved(piece.bytes.lowerBound), end))
        }
    }
}

extension ReplayAnswerMaker {
    /// A recording whose response holds the proxy's address as its placeholder is answered per
    /// request (`OwnAddressRewriter`), never as prepared: the address depends on the client.
    func addressBound(_ answer: inout ProxyAnswer, recording: Interaction, body: ByteBuffer?) {
        guard OwnAddress.occurs(inResponseOf: recording) else { return }
        let recordedBody = body.map { Data(buffer: $0, byteTransferStrategy: .noCopy) } ?? Data()
        let original = ProxyAnswer(statusCode: recording.statusCode, headerFields: recording.responseHeaders, body: recordedBody, source: .replayed)
        answer.upstreamURLs = PreparedUpstreamURLs(preparedBase: nil, original: original)
    }
}
