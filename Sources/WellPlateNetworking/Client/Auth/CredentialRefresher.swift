import Foundation
import Synchronization

/// The one place a client's 401s are handled: it runs `refreshCredentials` once for every request
/// that was sent with the same credentials, and the unauthorized handling (the hook and the
/// notification) once for every refresh that failed.
///
/// Credentials come in episodes: an episode ends when a refresh (or the lack of one) has an
/// outcome. A request remembers the episode its headers were taken in. On its 401:
/// - while a refresh is running, it joins that refresh;
/// - when a refresh has ended since its headers were taken, that refresh already answered for the
///   credentials it was sent with: after a refresh that worked it is sent again with the new
///   headers, after one that failed its 401 is thrown without a second hook call;
/// - otherwise it starts the refresh of a new episode.
/// So five requests sent with an expired token share one refresh, however their 401s interleave
/// with it.
actor CredentialRefresher {
    typealias Refresh = @Sendable () async throws -> Bool
    typealias Unauthorized = @Sendable () async -> Void

    /// What a request does after its 401.
    struct Decision: Sendable {
        /// Send the request again with the headers `authHeaderProvider` gives now.
        let sendAgain: Bool
        /// The episode whose refresh decided it.
        let episode: Int
    }

    /// Set while a refresh runs. A 401 inside it, through this client or another, is the refresh
    /// failing: it is thrown to the refresh, neither refreshed (through this client it would wait
    /// for the refresh it is part of) nor reported as unauthorized on its own (the refreshing
    /// client reports it, once).
    @TaskLocal static var refreshing = false

    private let refresh: Refresh?
    /// Episodes with an outcome so far; requests compare it with the one they were sent in. An
    /// atomic rather than actor state so that taking it before every attempt costs no actor hop;
    /// it only changes in `finish`, on the actor.
    private let completed = Atomic<Int>(0)
    private var lastRefreshWorked = false
    private var running: Task<Bool, Never>?
    /// The last episode whose refreshed credentials were rejected and reported as unauthorized.
    private var rejectionReported = -1

    init(refresh: Refresh?) {
        self.refresh = refresh
    }

    /// The current episode, taken by a request before it asks for its headers.
    nonisolated var episode: Int {
        completed.load(ordering: .acquiring)
    }

    /// Decides about a 401 of a request whose headers were taken in episode `sentIn`; when the
    /// refresh it starts fails, `unauthorized` runs before any waiting request goes on.
    func credentialsRejected(sentIn: Int, unauthorized: @escaping Unauthorized) async -> Decision {
        if let running {
            let worked = await running.value
            return Decision(sendAgain: worked, episode: episode)
        }
        if sentIn < episode {
            return Decision(sendAgain: lastRefreshWorked, episode: episode)
        }
        let refresh = refresh
        // Unstructured so that the refresh every waiting request shares is not cancelled with the
        // request that happened to start it.
        let task = Task<Bool, Never> {
            let worked: Bool
            if let refresh {
                worked = (try? await Self.$refreshing.withValue(true) { try await refresh() }) ?? false
            } else {
                worked = false
            }
            if !worked { await unauthorized() }
            self.finish(worked)
            return worked
        }
        running = task
        let worked = await task.value
        return Decision(sendAgain: worked, episode: episode)
    }

    /// A request sent again after the refresh of `episode` got another 401: the refreshed
    /// credentials are no good either, reported once for that refresh.
    func rejectedAfterRefresh(of episode: Int, unauthorized: Unauthorized) async {
        guard rejectionReported < episode else { return }
        rejectionReported = episode
        await unauthorized()
    }

    private func finish(_ worked: Bool) {
        lastRefreshWorked = worked
        running = nil
        completed.add(1, ordering: .releasing)
    }
}
