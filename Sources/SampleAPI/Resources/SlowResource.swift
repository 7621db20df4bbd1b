/// `/api/slow?ms=N`: answers after a delay, for timeout and cancellation tests.
struct SlowResource {
    static let maxDelay = 60_000

    var routes: [Route] {
        [
            Route(.GET, "/api/slow") { request throws(APIFailure) in
                let milliseconds = try request.nonNegativeInteger("ms", default: 1000, max: Self.maxDelay)
                // Sleeping suspends this task only; the event loop keeps serving other connections.
                try? await Task.sleep(for: .milliseconds(milliseconds))
                return .json(["delayedMs": .integer(milliseconds)])
            }
        ]
    }
}
