import NIOHTTP1

/// `/api/users` and `/api/users/{id}`: list, read, create, replace, update and delete.
struct UsersResource {
    let store: UserStore
    /// Serve users in the drifted shape (`sample-api --drifted`).
    var drifted = false

    var routes: [Route] {
        let store = self.store
        let drifted = self.drifted
        let render: @Sendable (User) -> JSONValue = { user in drifted ? user.driftedJSON : user.json }
        return [
            Route(.GET, "/api/users", compressible: true) { request throws(APIFailure) in
                let offset = try request.nonNegativeInteger("offset", default: 0)
                let users = store.list().dropFirst(offset)
                let limited = try request.nonNegativeInteger("limit").map { users.prefix($0) } ?? users
                return .json(.array(limited.map(render)))
            },
            Route(.POST, "/api/users") { request throws(APIFailure) in
                let body = try JSONObjectBody(request)
                let name = try body.requiredString("name")
                let email = try body.requiredString("email")
                let role = try body.optionalString("role") ?? "member"
                let user = store.create(name: name, email: email, role: role)
                return .json(render(user), status: .created, headers: ["Location": "/api/users/\(user.id)"])
            },
            Route(.GET, "/api/users/{id}") { request throws(APIFailure) in
                let id = try Self.userID(request)
                guard let user = store.user(id: id) else { throw Self.notFound(id) }
                return .json(render(user))
            },
            // PUT replaces name and email; the role is kept unless the body sets it.
            Route(.PUT, "/api/users/{id}") { request throws(APIFailure) in
                let id = try Self.userID(request)
                let body = try JSONObjectBody(request)
                let name = try body.requiredString("name")
                let email = try body.requiredString("email")
                let role = try body.optionalString("role")
                let updated = store.update(id: id) { user in
                    user.name = name
                    user.email = email
                    if let role { user.role = role }
                }
                guard let updated else { throw Self.notFound(id) }
                return .json(render(updated))
            },
            Route(.PATCH, "/api/users/{id}") { request throws(APIFailure) in
                let id = try Self.userID(request)
                let body = try JSONObjectBody(request)
                let name = try body.optionalString("name")
                let email = try body.optionalString("email")
                let role = try body.optionalString("role")
                let updated = store.update(id: id) { user in
                    if let name { user.name = name }
                    if let email { user.email = email }
                    if let role { user.role = role }
                }
                guard let updated else { throw Self.notFound(id) }
                return .json(render(updated))
            },
            Route(.DELETE, "/api/users/{id}") { request throws(APIFailure) in
                let id = try Self.userID(request)
                guard store.delete(id: id) else { throw Self.notFound(id) }
                return .noContent()
            },
        ]
    }

    private static func userID(_ request: Request) throws(APIFailure) -> Int {
        let raw = request.pathParameters.first ?? ""
        guard let id = Int(raw) else {
            throw .badRequest("User id must be an integer, got \"\(raw)\"")
        }
        return id
    }

    private static func notFound(_ id: Int) -> APIFailure {
        .notFound("User \(id) not found")
    }
}
