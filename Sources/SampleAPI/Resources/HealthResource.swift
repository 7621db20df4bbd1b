/// `/api/health`: a fixed liveness answer.
struct HealthResource {
    var routes: [Route] {
        [
            Route(.GET, "/api/health") { _ in
                .json(["status": "ok", "timestamp": .string(SeedData.healthTimestamp), "version": .string(SeedData.version)])
            }
        ]
    }
}
