import Foundation
import Testing
import WellPlateCore
import WellPlateNetworking

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The cassette of the running test, set up by the `.cassette` trait. Its `client` is the live
/// client (same decoding, errors and retries) over the cassette; its `urlSession` answers through
/// `CassetteURLProtocol`. Both record through libcurl in a recording mode and replay otherwise.
public final class Cassette: Sendable {
    /// Task-local: each test (each case of a parameterized test) sees its own cassette, and tasks
    /// it starts inherit it; nothing is registered globally.
    @TaskLocal static var bound: Cassette?

    /// The running test's cassette. Outside a `.cassette` trait it records a test failure that
    /// says to add the trait, and returns a stand-in whose every request fails the same way.
    public static var current: Cassette {
        if let bound { return bound }
        Issue.record(Comment(rawValue: CassetteTestingError.noTrait.message))
        return Cassette(
            binding: CassetteBinding(settings: CassetteSettings(cassette: "", storePath: "", mode: .replayOnly), session: nil),
            protocolClass: CassetteURLProtocol.self)
    }

    /// The cassette's name inside the store (see `CassetteSettings`).
    public var name: String { binding.settings.cassette }
    /// The store file the cassette is in.
    public var storePath: String { binding.settings.storePath }
    /// The record mode the test runs in.
    public var mode: RecordMode { binding.settings.mode }
    /// The open cassette, for checks beyond the client (statistics, recorded keys).
    public var session: CassetteSession? { binding.session }

    /// The live client over the cassette; in mode `none` it replays a recorded retry sequence without waiting.
    public let client: any APIClientProtocol
    /// A `URLSession` whose HTTP and HTTPS requests go through the cassette (`CassetteURLProtocol`).
    public let urlSession: URLSession
    let binding: CassetteBinding
    /// The `CassetteURLProtocol` class bound to this cassette (see `CassetteURLProtocol`).
    let protocolClass: CassetteURLProtocol.Type

    init(binding: CassetteBinding, protocolClass: CassetteURLProtocol.Type) {
        self.binding = binding
        self.protocolClass = protocolClass
        // Replay answers a recorded retry sequence without waiting; recording keeps live timing.
        let configuration = binding.settings.policy.isReplayOnly ? ReplayAPIClient.defaultConfiguration : APIClient.Configuration()
        client = APIClient(transport: binding, configuration: configuration)
        let sessionConfiguration = URLSessionConfiguration.ephemeral
        sessionConfiguration.installCassetteProtocol(protocolClass)
        urlSession = URLSession(configuration: sessionConfiguration, delegate: SlotRelease(protocolClass), delegateQueue: nil)
    }

    /// Opens `settings.cassette` for one test; `close()` must follow. With `lazyRecording` the
    /// store is read-only and a writable one is taken from the pool at the first request to record.
    static func open(_ settings: CassetteSettings, store: CassetteStore, lazyRecording: Bool = false) async throws -> Cassette {
        let upstream: (any HTTPTransport)? = settings.policy.forwards ? TransportChoice.defaultShared : nil
        let options = CassetteSession.Options(cassette: settings.cassette, mode: lazyRecording ? .replayOnly : settings.mode)
        let session = try await CassetteSession.open(store: store, options: options, upstream: lazyRecording ? nil : upstream)
        let openRecorder: (@Sendable () async throws -> CassetteSession)? =
            lazyRecording
            ? { @Sendable in
                let writable = try await StorePool.shared.acquire(path: settings.storePath, writable: true)
                do {
                    return try await CassetteSession.open(
                        store: writable, options: CassetteSession.Options(cassette: settings.cassette, mode: settings.mode), upstream: upstream)
                } catch {
                    await StorePool.shared.release(path: settings.storePath, writable: true)
                    throw error
                }
            } : nil
        let binding = CassetteBinding(settings: settings, session: session, openRecorder: openRecorder)
        return Cassette(binding: binding, protocolClass: CassetteURLProtocol.bind(binding))
    }

    /// Lets the session's tasks finish, after which `SlotRelease` frees the protocol class for
    /// another test. Not `invalidateAndCancel()`: FoundationNetworking can then cancel a task that
    /// has just completed and resume its caller twice.
    func close() {
        urlSession.finishTasksAndInvalidate()
    }
}

extension URLSessionConfiguration {
    /// Answers this configuration's HTTP and HTTPS requests from the running test's cassette
    /// (`Cassette.current`), recording through libcurl in a recording mode. Only sessions made
    /// from this configuration are affected; nothing is registered globally.
    public func useCassette(_ cassette: Cassette = .current) {
        installCassetteProtocol(cassette.protocolClass)
    }

    func installCassetteProtocol(_ protocolClass: CassetteURLProtocol.Type) {
        protocolClasses = [protocolClass] + (protocolClasses ?? []).filter { !($0 is CassetteURLProtocol.Type) }
    }
}

/// Frees a cassette's protocol class once its session is invalidated and its last task is over:
/// only then can no request of that session reach the class, so only then may another test get
/// it. `@unchecked Sendable`: URLSession holds delegates as objects of any thread; this one has a
/// single immutable property.
private final class SlotRelease: NSObject, URLSessionDelegate, @unchecked Sendable {
    let protocolClass: CassetteURLProtocol.Type

    init(_ protocolClass: CassetteURLProtocol.Type) {
        self.protocolClass = protocolClass
    }

    func urlSession(_ session: URLSession, didBecomeInvalidWithError error: (any Error)?) {
        CassetteURLProtocol.unbind(protocolClass)
    }
}
