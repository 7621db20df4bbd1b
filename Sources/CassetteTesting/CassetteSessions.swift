import CassetteControl
import Foundation
import Testing
import WellPlateCore

/// Runs `body` with a session of a running `cassette` proxy, for a test whose code under test runs
/// in another process (an app driven by UI tests, a server, a CLI): the test hands
/// the session's `baseURL` to that process, and the session serves it a cassette of
/// this test's own. The session ends when `body` does; every request that had no recording is a
/// test failure with its explanation, and recordings the test never used are a warning (a failure
/// with `allowUnused: false`).
///
/// - Parameters:
///   - name: The cassette; `nil` names it after the running test, as the `.cassette` trait does
///     (`Suite/function()`, with a parameterized test's arguments in brackets).
///   - control: The proxy's main address; `nil` uses `CASSETTE_CONTROL_URL`, else `CASSETTE_URL`
///     (which `cassette run` sets).
///   - mode: The record mode; `nil` uses `CASSETTE_RECORD`, else `none` under CI and `once` elsewhere.
///   - allowUnused: Whether recordings the test never used are only a warning.
///   - environment: Where `CASSETTE_*` and `CI` are read.
///   - sourceLocation: Where misses and unused recordings are reported.
///   - body: The test's work with the session; its result is returned.
public func withCassetteSession<Result>(
    _ name: String? = nil,
    control: URL? = nil,
    mode: RecordMode? = nil,
    allowUnused: Bool = true,
    environment: [String: String] = ProcessInfo.processInfo.environment,
    sourceLocation: SourceLocation = #_sourceLocation,
    _ body: (CassetteControl.Session) async throws -> Result
) async throws -> Result {
    let cassette = try name ?? CassetteSessionSettings.cassetteName()
    let controlURL = try control ?? CassetteSessionSettings.controlURL(environment: environment)
    let recordMode = try CassetteSettings.mode(trait: mode, environment: environment)
    let session = try await CassetteControl(url: controlURL).startSession(cassette: cassette, mode: CassetteControl.Mode(rawValue: recordMode.rawValue))
    let result: Result
    do {
        result = try await body(session)
    } catch {
        await CassetteSessionSettings.end(session, allowUnused: allowUnused, sourceLocation: sourceLocation)
        throw error
    }
    await CassetteSessionSettings.end(session, allowUnused: allowUnused, sourceLocation: sourceLocation)
    return result
}

/// Where `withCassetteSession` finds its cassette name and proxy, and how it reports the end.
enum CassetteSessionSettings {
    static func cassetteName() throws(CassetteTestingError) -> String {
        guard let test = Test.current else {
            throw CassetteTestingError("withCassetteSession names its cassette after the running test; outside a test, pass the name")
        }
        let arguments = Test.Case.current.flatMap(CassetteSettings.argumentDescriptions)
        return CassetteSettings.cassetteName(nameComponents: test.id.nameComponents, arguments: arguments)
    }

    static func controlURL(environment: [String: String]) throws(CassetteTestingError) -> URL {
        for variable in ["CASSETTE_CONTROL_URL", "CASSETTE_URL"] {
            guard let text = environment[variable], !text.isEmpty else { continue }
            guard let url = URL(string: text), url.scheme == "http", url.host != nil else {
                throw CassetteTestingError("\(variable)=\(text) is not the address of a cassette proxy such as http://127.0.0.1:8080")
            }
            return url
        }
        throw CassetteTestingError(
            "no cassette proxy to open a session on: start one (`cassette record --upstream URL --port 8080`) and pass control: URL(string: \"http://127.0.0.1:8080\"), or set CASSETTE_CONTROL_URL (`cassette run -- swift test` sets CASSETTE_URL)"
        )
    }

    /// Ends `session` and records what the test must hear: each miss as a failure with its
    /// explanation, unused recordings as a warning (or a failure), a proxy that cannot end it as
    /// a failure.
    static func end(_ session: CassetteControl.Session, allowUnused: Bool, sourceLocation: SourceLocation) async {
        let summary: CassetteControl.Summary
        do {
            summary = try await session.end(strict: false)
        } catch {
            Issue.record(Comment(rawValue: "session of cassette \"\(session.cassette)\" could not be ended: \(error)"), sourceLocation: sourceLocation)
            return
        }
        for miss in summary.missed {
            let times = miss.count > 1 ? " (\(miss.count) requests)" : ""
            Issue.record(Comment(rawValue: miss.message + times + MissExplanation.advice), sourceLocation: sourceLocation)
        }
        if !summary.unused.isEmpty {
            let text =
                "cassette \"\(session.cassette)\" has \(summary.unused.count) recording(s) this test never used: \(summary.unused.joined(separator: ", ")); delete them from the cassette or record it again"
            Issue.record(Comment(rawValue: text), severity: allowUnused ? .warning : .error, sourceLocation: sourceLocation)
        }
    }
}
