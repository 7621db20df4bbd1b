struct User: Sendable, Equatable {
    var id: Int
    var name: String
    var email: String
    var role: String
    var createdAt: String
    var avatarURL: String?

    var json: JSONValue {
        [
            "id": .integer(id),
            "name": .string(name),
            "email": .string(email),
            "role": .string(role),
            "createdAt": .string(createdAt),
            "avatarURL": .string(avatarURL),
        ]
    }
}
