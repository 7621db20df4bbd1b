import CassetteKernel
import CassetteServing
import CompressNIO
import Foundation
import NIOCore

/// Inflates the messages a peer sent compressed under permessage-deflate (RFC 7692 §7.2.2): the
/// message's bytes with `00 00 ff ff` put back, through one raw inflate stream per direction.
/// The widest window (15) reads whatever window the sender used, and keeping the context is right
/// whether or not the sender resets its own. One per direction, used on its event loop only.
package final class MessageInflater {
    private let decompressor: ZlibDecompressor

    package init() throws {
        decompressor = try ZlibDecompressor(algorithm: .deflate, windowSize: 15)
    }

    /// The message's payload, or a violation: 1009 when it inflates beyond `limit`, 1002 when it
    /// is not deflate data.
    package func inflate(_ compressed: Data, limit: Int) -> Result<Data, WebSocketViolation> {
        var input = ByteBuffer(bytes: compressed)
        input.writeBytes([0, 0, 0xFF, 0xFF])
        do {
            // One byte over the limit tells a message of exactly `limit` from a larger one.
            let output = try input.decompressStream(with: decompressor, maxSize: min(limit, Int.max - 1) + 1)
            guard output.readableBytes <= limit else { return .failure(.tooLarge) }
            return .success(Data(output.readableBytesView))
        } catch let error as CompressNIOError where error == .bufferOverflow {
            return .failure(.tooLarge)
        } catch {
            return .failure(.invalidCompressedData)
        }
    }
}
