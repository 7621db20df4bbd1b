extension User {
    /// The user as a changed API would send it: `email` removed and `id` a string. What
    /// `sample-api --drifted` serves, so `cassette verify` has real drift to find.
    var driftedJSON: JSONValue {
        [
            "id": .string(String(id)),
            "name": .string(name),
            "role": .string(role),
            "createdAt": .string(createdAt),
            "avatarURL": .string(avatarURL),
        ]
    }
}
