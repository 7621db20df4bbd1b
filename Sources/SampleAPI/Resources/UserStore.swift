import Synchronization

/// The users of this process, starting from `SeedData.users`; changes live only in memory.
final class UserStore: Sendable {
    private struct State {
        var users: [User]
        var nextID: Int
    }

    private let state: Mutex<State>

    init(seed: [User] = SeedData.users) {
        state = Mutex(State(users: seed, nextID: (seed.map(\.id).max() ?? 0) + 1))
    }

    /// Users in id order.
    func list() -> [User] {
        state.withLock { $0.users }
    }

    func user(id: Int) -> User? {
        state.withLock { state in state.users.first { $0.id == id } }
    }

    func create(name: String, email: String, role: String) -> User {
        state.withLock { state in
            let user = User(
                id: state.nextID,
                name: name,
                email: email,
                role: role,
                createdAt: SeedData.createdAtForNewUsers,
                avatarURL: nil
            )
            state.nextID += 1
            state.users.append(user)
            return user
        }
    }

    /// Applies `change` to the user with `id`; `nil` when there is none.
    func update(id: Int, _ change: (inout User) -> Void) -> User? {
        state.withLock { state in
            guard let index = state.users.firstIndex(where: { $0.id == id }) else { return nil }
            change(&state.users[index])
            return state.users[index]
        }
    }

    /// `false` when there was no such user.
    func delete(id: Int) -> Bool {
        state.withLock { state in
            guard let index = state.users.firstIndex(where: { $0.id == id }) else { return false }
            state.users.remove(at: index)
            return true
        }
    }
}
