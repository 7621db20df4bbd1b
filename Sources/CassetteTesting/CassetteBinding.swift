import Foundation
import Synchronization
import WellPlateCore
import WellPlateNetworking

/// What one test's client and `URLSession` answer through: the test's cassette session, plus the
/// misses it met, which the trait turns into test issues when the test ends. Both the client and
/// `CassetteURLProtocol` send here, so they share the matching, redaction, sequences and misses.
final class CassetteBinding: HTTPTransport {
    let settings: CassetteSettings
    /// `nil` for the stand-in `Cassette.current` returns outside a trait.
    let session: CassetteSession?
    /// In `once` mode over an existing store, `session` replays from a read-only connection, and
    /// a writing session is opened only for the first request the cassette lacks: a run that
    /// records nothing leaves a committed store byte for byte as it was (a writer changes the
    /// file's header just by opening and closing it).
    private let openRecorder: (@Sendable () async throws -> CassetteSession)?
    private let recorder = Mutex<Task<CassetteSession, any Error>?>(nil)
    private let misses = Mutex<[CassetteMiss]>([])
    private let shadowed = Atomic(false)

    init(settings: CassetteSettings, session: CassetteSession?, openRecorder: (@Sendable () async throws -> CassetteSession)? = nil) {
        self.settings = settings
        self.session = session
        self.openRecorder = openRecorder
    }

    func send(_ request: TransportRequest) async throws -> TransportResponse {
        guard let session else { throw CassetteTestingError.noTrait }
        do {
            if openRecorder != nil, !session.index.contains(session.key(for: request).rawValue) {
                return try await recordingSession().respond(to: request).response
            }
            return try await session.respond(to: request).response
        } catch let miss as CassetteMiss {
            misses.withLock { $0.append(miss) }
            throw miss
        }
    }

    private func recordingSession() async throws -> CassetteSession {
        let task = recorder.withLock { task in
            if let task { return task }
            let openRecorder = self.openRecorder
            let opening = Task { try await openRecorder!() }
            task = opening
            return opening
        }
        return try await task.value
    }

    /// The session that recorded during the test, if one was opened.
    var openedRecorder: Task<CassetteSession, any Error>? {
        recorder.withLock { $0 }
    }

    /// A trait nearer the test (on the test, this one on its suite) opened the cassette the test
    /// actually uses; this one then reports nothing.
    var isShadowed: Bool {
        get { shadowed.load(ordering: .relaxed) }
        set { shadowed.store(newValue, ordering: .relaxed) }
    }

    /// Every miss so far, first occurrence of each key only.
    var recordedMisses: [CassetteMiss] {
        misses.withLock { misses in
            var seen: Set<String> = []
            return misses.filter { seen.insert($0.key).inserted }
        }
    }

    /// Whether `error`, thrown out of the test, is a miss already reported as an issue.
    func reported(_ error: any Error) -> Bool {
        let keys = Set(misses.withLock { $0.map(\.key) })
        if let miss = error as? CassetteMiss { return keys.contains(miss.key) }
        if let miss = CassetteURLProtocol.miss(in: error) { return keys.contains(miss.key) }
        return false
    }
}
