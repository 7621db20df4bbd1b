/// Every route of the sample API, over one process's in-memory state.
enum SampleAPIRoutes {
    static func makeRouter() -> Router {
        let resources: [[Route]] = [
            HealthResource().routes,
            UsersResource(store: UserStore()).routes,
            NutritionResource().routes,
            ProfileResource().routes,
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
