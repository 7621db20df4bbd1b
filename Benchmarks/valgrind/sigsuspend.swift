// Preloaded under valgrind only (Benchmarks/websocket-callgrind.sh): libdispatch's main thread
// calls sigsuspend with a mask in read-only memory, which valgrind 3.19 rewrites in place and
// crashes on. This sigsuspend passes glibc's a copy of the mask.
#if canImport(Glibc)
import Glibc

private typealias Sigsuspend = @convention(c) (UnsafePointer<sigset_t>?) -> Int32
private let next = unsafeBitCast(dlsym(UnsafeMutableRawPointer(bitPattern: -1), "sigsuspend"), to: Sigsuspend.self)

@_cdecl("sigsuspend")
public func sigsuspendWithACopiedMask(_ mask: UnsafePointer<sigset_t>?) -> Int32 {
    guard var copy = mask?.pointee else { return next(mask) }
    return next(&copy)
}
#endif
