import Logging
import WellPlateCore

@testable import CassetteForward
@testable import CassetteKernel
@testable import CassetteProxy
@testable import CassetteServing
@testable import CassetteUIServer
@testable import CassetteWebSocket

extension ServedCassette.Context {
    /// What a proxy started by `cassette` would share, for a cassette in `store`: default rules
    /// and redaction, no request log, and a logger that drops everything.
    static func testing(store: CassetteStore, settings: ProxySettings, upstream: (any HTTPTransport)? = nil) -> Self {
        var context = ServedCassette.Context(
            store: store, upstream: upstream, given: settings, matchingRules: nil, redactor: .default, sequencePolicy: .repeatLast, requestLog: nil,
            logger: Logger(label: "test") { _ in SwiftLogNoOpLogHandler() })
        context.registerModules()
        return context
    }
}
