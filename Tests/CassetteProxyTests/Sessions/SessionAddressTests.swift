import Testing

@testable import CassetteForward
@testable import CassetteKernel
@testable import CassetteProxy
@testable import CassetteServing
@testable import CassetteUIServer
@testable import CassetteWebSocket

/// A session's `baseURL`: the proxy's host, or the one its caller used when the proxy listens on
/// every interface.
@Suite("Session addresses")
struct SessionAddressTests {
    @Test(arguments: [
        ("127.0.0.1", "http://127.0.0.1:8080", "http://127.0.0.1:5000"),
        ("localhost", "http://127.0.0.1:8080", "http://localhost:5000"),
        ("::1", "http://[::1]:8080", "http://[::1]:5000"),
        ("0.0.0.0", "http://192.168.1.20:8080", "http://192.168.1.20:5000"),
        ("0.0.0.0", "http://build-host:8080", "http://build-host:5000"),
        ("::", "http://[fe80::1]:8080", "http://[fe80::1]:5000"),
    ])
    func theBaseURLNamesAHostTheCallerCanReach(host: String, proxyBase: String, expected: String) {
        #expect(SessionRegistry.baseURL(host: host, port: 5000, proxyBase: proxyBase) == expected)
    }
}
