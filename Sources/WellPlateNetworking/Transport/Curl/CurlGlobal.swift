#if canImport(CCurl)
import CCurl
import WellPlateCore

/// `curl_global_init` must run once before any other libcurl call and is not guaranteed to be
/// thread-safe on every libcurl build; a `static let` initializer runs exactly once, under a lock.
enum CurlGlobal {
    static let initialized: CURLcode = curl_global_init(Int(CURL_GLOBAL_ALL))

    static func ensureInitialized() throws(TransportError) {
        try CurlError.check(initialized, "initialize libcurl")
    }
}
#endif
