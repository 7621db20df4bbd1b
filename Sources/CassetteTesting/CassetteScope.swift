import Foundation
import Testing
import WellPlateCore
import WellPlateNetworking

/// One test inside its cassette: open, run with `Cassette.current` bound, then report what the
/// cassette saw (misses as failures, unused recordings as warnings or failures) and close.
enum CassetteScope {
    static func run(_ settings: CassetteSettings, sourceLocation: SourceLocation, _ function: @Sendable () async throws -> Void) async throws {
        // `once` over an existing store starts read-only (see `CassetteBinding`).
        let lazyRecording = settings.mode == .once && FileManager.default.fileExists(atPath: settings.storePath)
        let writable = settings.policy.records && !lazyRecording
        let store: CassetteStore
        do {
            store = try await StorePool.shared.acquire(path: settings.storePath, writable: writable)
        } catch {
            Issue.record(Comment(rawValue: "cassette \"\(settings.cassette)\": \(error)"), sourceLocation: sourceLocation)
            return
        }
        let cassette: Cassette
        do {
            cassette = try await Cassette.open(settings, store: store, lazyRecording: lazyRecording)
        } catch {
            await StorePool.shared.release(path: settings.storePath, writable: writable)
            Issue.record(Comment(rawValue: "cassette \"\(settings.cassette)\" could not be opened: \(error)"), sourceLocation: sourceLocation)
            return
        }
        // With the trait on both a suite and its test, the inner scope wins: its cassette is the
        // one the test sees, and the outer one stays silent.
        Cassette.bound?.binding.isShadowed = true
        var thrown: (any Error)?
        do {
            try await Cassette.$bound.withValue(cassette) { try await function() }
        } catch {
            thrown = error
        }
        cassette.close()
        report(cassette, settings: settings, sourceLocation: sourceLocation)
        if let recorder = cassette.binding.openedRecorder {
            if (try? await recorder.value) != nil {
                await StorePool.shared.release(path: settings.storePath, writable: true)
            }
        }
        await StorePool.shared.release(path: settings.storePath, writable: writable)
        // A miss that escaped the test is already an issue with its explanation; one report is enough.
        if let thrown, !cassette.binding.reported(thrown) { throw thrown }
    }

    private static func report(_ cassette: Cassette, settings: CassetteSettings, sourceLocation: SourceLocation) {
        for finding in findings(cassette) {
            Issue.record(Comment(rawValue: finding.text), severity: finding.severity, sourceLocation: sourceLocation)
        }
    }

    struct Finding: Equatable {
        var text: String
        var severity: Issue.Severity
    }

    /// What the test's cassette saw that the test must hear about: every miss (a failure, with its
    /// explanation) and the recordings it never used (a warning, or a failure with
    /// `allowUnused: false`).
    static func findings(_ cassette: Cassette) -> [Finding] {
        guard let session = cassette.session, !cassette.binding.isShadowed else { return [] }
        let settings = cassette.binding.settings
        let statistics = session.index.statistics
        var findings = cassette.binding.recordedMisses.map {
            Finding(text: MissExplanation($0, recordings: statistics.interactionCount).text, severity: .error)
        }
        let unused = statistics.unusedKeys
        if !unused.isEmpty {
            let text =
                "cassette \"\(settings.cassette)\" (\(settings.storePath)) has \(unused.count) recording(s) this test never used: \(unused.joined(separator: ", ")); delete them from the cassette or record it again"
            findings.append(Finding(text: text, severity: settings.allowUnused ? .warning : .error))
        }
        return findings
    }
}
