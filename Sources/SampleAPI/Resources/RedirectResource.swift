/// `/api/redirect`: a 302 to `/api/health`, for checking whether clients follow redirects.
struct RedirectResource {
    var routes: [Route] {
        [
            Route(.GET, "/api/redirect") { _ in
                .json([:], status: .found, headers: ["Location": "/api/health"])
            }
        ]
    }
}
