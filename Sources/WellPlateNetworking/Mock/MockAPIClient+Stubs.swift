import Foundation
import WellPlateCore

extension MockAPIClient {
    /// Answers `method` on `path` (a pattern such as `/api/users/{id}`) with `stub`, replacing an
    /// earlier stub of the same method and pattern.
    /// - Throws: `MockRegistryError` for a malformed pattern.
    public func stub(_ method: HTTPMethod, _ path: String, _ stub: MockStub) throws(MockRegistryError) {
        let pattern = try PathPattern(path)
        state.withLock { _ = $0.stubs.insert(stub, method: method, pattern: pattern) }
    }

    /// Answers with `value` encoded by `JSONCoding`.
    public func stub<T: Encodable>(_ method: HTTPMethod, _ path: String, with value: T, status: Int = 200) throws {
        try stub(method, path, MockStub.value(value, statusCode: status))
    }

    /// Answers with `status` and a raw body: a 2xx body is decoded, any other status throws
    /// `APIError.serverError` with the body's message, as the live client does.
    public func stub(_ method: HTTPMethod, _ path: String, status: Int, body: Data = Data()) throws(MockRegistryError) {
        try stub(method, path, MockStub.json(body, statusCode: status))
    }

    /// Throws `error` as it is.
    public func stub(_ method: HTTPMethod, _ path: String, error: any Error) throws(MockRegistryError) {
        try stub(method, path, MockStub.error(error))
    }

    /// Every endpoint without its own stub answers `value` (the design documents' helper).
    public func setupSuccessResponse<T: Encodable>(with value: T) throws {
        let stub = try MockStub.value(value)
        state.withLock { $0.globalStub = stub }
    }

    /// Every endpoint without its own stub throws `error` (the design documents' helper).
    public func setupErrorResponse(error: any Error) {
        state.withLock { $0.globalStub = .error(error) }
    }

    /// Every endpoint without its own stub fails with `statusCode`, as a server would.
    public func setupErrorResponse(statusCode: Int, message: String? = nil) {
        state.withLock { $0.globalStub = .status(statusCode, message: message) }
    }

    /// Removes every stub and the global response; calls stay recorded.
    public func removeStubs() {
        state.withLock {
            $0.stubs.removeAll()
            $0.globalStub = nil
        }
    }

    /// Forgets recorded calls, stubs and the global response: the state of a new client. The
    /// registry is left alone.
    public func reset() {
        state.withLock { $0 = State() }
    }
}
