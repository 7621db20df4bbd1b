import CassetteKernel
import CassetteServing
import CompressNIO
import NIOCore

/// Compresses the messages a replay sends to a client that agreed to permessage-deflate, each
/// anew (RFC 7692 §7.2.1): a sync-flushed raw deflate block without its final `00 00 ff ff`, in
/// the window the client allowed, the context kept between messages unless it asked otherwise.
/// One per connection, used on its event loop only.
package final class MessageDeflater {
    private let compressor: ZlibCompressor
    private let resetsEachMessage: Bool

    package init(_ agreed: PerMessageDeflate) throws {
        compressor = try ZlibCompressor(
            algorithm: .deflate, configuration: ZlibConfiguration(windowSize: Int32(agreed.serverMaxWindowBits ?? 15)))
        resetsEachMessage = agreed.serverNoContextTakeover
    }

    package func deflate(_ payload: ByteBuffer, allocator: ByteBufferAllocator) throws -> ByteBuffer {
        var input = payload
        var output = try input.compressStream(with: compressor, flush: .sync, allocator: allocator)
        output.moveWriterIndex(to: output.writerIndex - 4)
        if resetsEachMessage { try compressor.reset() }
        return output
    }
}
