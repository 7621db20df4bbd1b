import Foundation
import WellPlateCore
import WellPlateNetworking

/// Opens the store at `path` for writing, runs `body` with a `RecordingTransport` in `mode` over a
/// fresh libcurl transport, and closes the store, also when `body` throws.
package func withRecordingTransport<Result>(
    path: String,
    cassette: String = "dev",
    mode: RecordMode,
    redactor: Redactor = .default,
    upstream: (any HTTPTransport)? = nil,
    _ body: (RecordingTransport) async throws -> Result
) async throws -> Result {
    let store = try await CassetteStore.open(path: path, access: .readWrite)
    let outcome: Swift.Result<Result, any Error>
    do {
        let transport = try await RecordingTransport.open(
            store: store, cassette: cassette, mode: mode, upstream: try upstream ?? TransportChoice.default.transport(), redactor: redactor
        )
        outcome = .success(try await body(transport))
    } catch {
        outcome = .failure(error)
    }
    try await store.close()
    return try outcome.get()
}

/// Opens `cassette` of the store at `path` read-only for replay with `sequencePolicy`.
package func replayTransport(path: String, cassette: String = "dev", sequencePolicy: SequencePolicy = .repeatLast) async throws -> ReplayTransport {
    let store = try await CassetteStore.open(path: path, access: .readOnly)
    let options = CassetteSession.Options(cassette: cassette, mode: .replayOnly, sequencePolicy: sequencePolicy)
    return ReplayTransport(session: try await CassetteSession.open(store: store, options: options))
}

/// Every interaction in the store at `path`, ordered by cassette, key and sequence, read through a
/// connection of its own (so it sees only what was committed).
package func storedInteractions(_ path: String, cassette: String? = nil) async throws -> [Interaction] {
    let store = try await CassetteStore.open(path: path, access: .readOnly)
    let interactions = try await store.interactions(cassette: cassette)
    try await store.close()
    return interactions
}

/// Records `interactions` into the store at `path` (creating it) and closes it; returns them as
/// stored, with ids and sequences.
@discardableResult
package func fillStore(_ path: String, with interactions: [Interaction], cassettes: [CassetteInfo] = []) async throws -> [Interaction] {
    let store = try await CassetteStore.open(path: path, access: .readWrite)
    for info in cassettes {
        try await store.saveCassette(info)
    }
    var stored: [Interaction] = []
    for interaction in interactions {
        stored.append(try await store.record(interaction))
    }
    try await store.close()
    return stored
}
