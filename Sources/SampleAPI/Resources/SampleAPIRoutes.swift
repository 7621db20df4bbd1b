/// Every route of the sample API, over one process's in-memory state.
enum SampleAPIRoutes {
    /// `drifted` serves the users in a changed shape, for drift checks (`sample-api --drifted`).
    static func makeRouter(drifted: Bool = false) -> Router {
        let auth = AuthCounter()
        let resources: [[Route]] = [
            HealthResource().routes,
            UsersResource(store: UserStore(), drifted: drifted).routes,
            NutritionResource().routes,
            ProfileResource(counter: auth).routes,
            AuthResource(counter: auth).routes,
            SessionResource().routes,
            FlakyResource(counter: FlakyCounter()).routes,
            SlowResource().routes,
            StatusResource().routes,
            BinaryResource().routes,
            EchoResource().routes,
            RedirectResource().routes,
        ]
        return Router(routes: resources.flatMap { $0 })
    }
}
