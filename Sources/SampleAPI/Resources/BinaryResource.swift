import NIOCore
import NIOHTTP1

/// `/api/binary?size=N`: N bytes where byte i is i % 256, for raw-body and size-limit tests.
struct BinaryResource {
    static let defaultSize = 1024
    static let maxSize = 16 * 1024 * 1024

    var routes: [Route] {
        [
            Route(.GET, "/api/binary") { request throws(APIFailure) in
                let size = try request.nonNegativeInteger("size", default: Self.defaultSize, max: Self.maxSize)
                return Response(
                    status: .ok,
                    headers: ["Content-Type": "application/octet-stream"],
                    body: Self.pattern(size: size)
                )
            }
        ]
    }

    private static let period: [UInt8] = (0...255).map { UInt8($0) }

    private static func pattern(size: Int) -> ByteBuffer {
        var buffer = ByteBufferAllocator().buffer(capacity: size)
        var remaining = size
        while remaining > 0 {
            let count = min(remaining, period.count)
            buffer.writeBytes(period[..<count])
            remaining -= count
        }
        return buffer
    }
}
