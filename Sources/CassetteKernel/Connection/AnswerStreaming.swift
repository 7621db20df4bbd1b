import Foundation
import NIOCore
import NIOHTTP1
import WellPlateCore

/// A streamed recording's pieces, each a chunk of its own, written when due after the head (at
/// their recorded offsets with `--latency recorded`, else at once), then the end.
package struct PieceWriter: Sendable {
    package let body: ByteBuffer
    package let pieces: [ReplayPiece]
    package let close: Bool
    package let line: LogLine
    package let shard: Int

    package func start(context: ChannelHandlerContext) {
        write(from: 0, headSent: .now(), context: NIOLoopBound(context, eventLoop: context.eventLoop))
    }

    private func write(from index: Int, headSent: NIODeadline, context: NIOLoopBound<ChannelHandlerContext>) {
        var index = index
        while index < pieces.count {
            let piece = pieces[index]
            let due = headSent + TimeAmount(piece.offset)
            if due > .now() {
                let next = index
                context.value.eventLoop.scheduleTask(deadline: due) {
                    write(from: next, headSent: headSent, context: context)
                }
                return
            }
            let slice = body.getSlice(at: body.readerIndex + piece.bytes.lowerBound, length: piece.bytes.count) ?? ByteBuffer()
            context.value.writeAndFlush(HTTPConnectionHandler.wrapOutboundOut(.body(.byteBuffer(slice))), promise: nil)
            index += 1
        }
        line.write(shard: shard)
        let end = context.value.writeAndFlush(HTTPConnectionHandler.wrapOutboundOut(.end(nil)))
        if close {
            end.whenComplete { _ in context.value.close(promise: nil) }
        }
    }
}

/// Moves one forwarded answer from the upstream to the client a chunk at a time, as it arrives.
/// A slow client holds the next chunk back (each write is awaited), which in turn pauses the
/// upstream transfer once its buffer is full.
package struct StreamPump: Sendable {
    package let context: NIOLoopBound<ChannelHandlerContext>
    package let loop: any EventLoop
    package let close: Bool
    package let line: LogLine

    package func run(_ exchange: StreamingExchange) async {
        var exchange = exchange
        while true {
            let chunk: Data?
            do {
                chunk = try await exchange.next()
            } catch {
                // Closing without the final chunk (or short of Content-Length) tells the client.
                closeConnection()
                let silent = (error as? TransportError)?.kind == .timeout
                line.write(
                    outcome: Self.aborted,
                    detail: silent
                        ? "upstream went silent for longer than --upstream-timeout after \(exchange.receivedBytes) bytes; not recorded"
                        : "upstream aborted after \(exchange.receivedBytes) bytes; not recorded")
                return
            }
            guard let chunk else { break }
            guard await write(.body(.byteBuffer(ByteBuffer(bytes: chunk)))) else {
                // Dropping the exchange cancels the upstream transfer.
                line.write(outcome: Self.aborted, detail: "client went away after \(exchange.receivedBytes) bytes; not recorded")
                return
            }
        }
        var detail: String?
        do {
            // Stored before the end goes out: once a client has the whole answer, so has the store.
            _ = try await exchange.finish()
        } catch {
            if let failure = error as? RecordingFailure { line.log.error(failure.description) }
            detail = "not recorded: \((error as? RecordingFailure)?.underlying.message ?? String(describing: error))"
        }
        line.write(detail: detail)
        _ = await write(.end(nil))
        if close { closeConnection() }
    }

    /// Writes and flushes one part on the event loop; `false` when the client is gone.
    private func write(_ part: HTTPServerResponsePart) async -> Bool {
        let context = self.context
        do {
            try await loop.flatSubmit {
                context.value.writeAndFlush(HTTPConnectionHandler.wrapOutboundOut(part))
            }.get()
            return true
        } catch {
            return false
        }
    }

    private func closeConnection() {
        let context = self.context
        loop.execute { context.value.close(promise: nil) }
    }

    private static let aborted = ANSIColor.red.paint("aborted")
}
