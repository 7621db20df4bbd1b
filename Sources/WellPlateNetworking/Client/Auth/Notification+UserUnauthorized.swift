import Foundation

extension Notification.Name {
    /// Posted on `NotificationCenter.default` when a client's credentials are rejected and could
    /// not be refreshed: the app root listens for it to sign the user out.
    ///
    /// ``APIClient`` posts it once per failed refresh (or once per rejected set of credentials when
    /// there is no ``APIClient/Configuration/refreshCredentials``), not once per request, right
    /// after ``APIClient/Configuration/onUnauthorized`` ran and before the requests throw their
    /// ``APIError`` of category ``APIError/Category/unauthorized``. Its `object` is the
    /// ``APIClient`` that got the 401 (for ``ReplayAPIClient``, the client it replays through).
    public static let userUnauthorized = Notification.Name("WellPlateNetworking.userUnauthorized")
}
