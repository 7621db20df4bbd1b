import WellPlateCore
import WellPlateNetworking

/// The design documents' model names for one endpoint (rulebook, "Model Mapping"):
/// responses `{Resource}` or `{Action}{Resource}Response`, requests `{Action}{Resource}Request`.
///
/// The path is read without `api` and version segments (`v1`):
/// - an item endpoint (ends in a parameter, `/api/users/{id}`) answers a `User`, the singular of
///   the segment before the parameter;
/// - a path whose last two segments are literals has an action (`/api/nutrition/analyze`):
///   `AnalyzeNutritionResponse` and `AnalyzeNutritionRequest`;
/// - any other path names a resource by its last segment: `/api/health` answers a `Health`, and
///   a list endpoint (`/api/users`, an array) answers `[User]`.
/// Without an action, a method other than GET names its request and, when its shape differs from
/// the resource's, its response by a verb: `CreateUserRequest` for POST, `UpdateUserRequest` for
/// PUT, `PatchUserRequest`, `DeleteUserResponse`.
/// A GraphQL operation's types are named after it instead: `GetUserQueryData`,
/// `GetUserQueryVariables`, and `GetUserQuery.Data` for them (`SwiftModelRenderer.renderOperation`).
struct EndpointModelNames: Equatable {
    /// The response when it is an object.
    var response: String
    /// The elements when the response is an array.
    var responseItem: String
    var request: String
    /// The resource the path's resource belongs to (`User` for `/api/users/{id}/meals`): the prefix
    /// that tells apart two same-named shapes (`UserMeal`, `OrderMeal`).
    var parent: String?
    /// Whether the path ends in an action (`/api/nutrition/analyze`) rather than a resource.
    var hasAction = false
    /// For a GraphQL operation (`query GetUser`), the namespace of its types (`GetUserQuery`,
    /// whose `Data` is the response and `Variables` the request); `nil` for every other endpoint.
    var operationNamespace: String?

    init(_ endpoint: Endpoint) {
        if let operation = endpoint.operation, let space = operation.firstIndex(of: " ") {
            // Apollo's names: `query GetUser` is `GetUserQuery`, its data `GetUserQuery.Data`.
            let namespace = SwiftNaming.typeName(from: "\(operation[operation.index(after: space)...]) \(operation[..<space])")
            operationNamespace = namespace
            response = namespace + "Data"
            responseItem = namespace + "DataItem"
            request = namespace + "Variables"
            hasAction = true
            return
        }
        let segments = endpoint.pattern.split(separator: "/").map(String.init).filter { !Self.isPrefix($0) }
        let isParameter = { (segment: String) in segment.hasPrefix("{") && segment.hasSuffix("}") }
        let literals = segments.filter { !isParameter($0) }
        let resource = literals.last ?? "root"
        let verb = Self.verb(endpoint.method)
        if literals.count >= 2 {
            parent = SwiftNaming.typeName(from: literals[literals.count - 2], singular: true, itemSuffix: false)
        }
        if let last = segments.last, isParameter(last) {
            let item = SwiftNaming.typeName(from: resource, singular: true, itemSuffix: false)
            response = endpoint.method == .get || endpoint.method == .head ? item : SwiftNaming.typeName(from: verb + " " + item + " response")
            responseItem = item
            request = SwiftNaming.typeName(from: verb + " " + item + " request")
        } else if segments.count >= 2, !isParameter(segments[segments.count - 2]) {
            let action = segments[segments.count - 1], subject = segments[segments.count - 2]
            hasAction = true
            response = SwiftNaming.typeName(from: action + " " + subject + " response")
            responseItem = SwiftNaming.typeName(from: subject, singular: true, itemSuffix: false)
            request = SwiftNaming.typeName(from: action + " " + subject + " request")
        } else {
            let item = SwiftNaming.typeName(from: resource, singular: true, itemSuffix: false)
            response =
                endpoint.method == .get || endpoint.method == .head
                ? SwiftNaming.typeName(from: resource)
                : SwiftNaming.typeName(from: verb + " " + item + " response")
            responseItem = item
            request = SwiftNaming.typeName(from: verb + " " + item + " request")
        }
    }

    /// `api` and version segments (`v1`, `v2`) say nothing about the resource.
    private static func isPrefix(_ segment: String) -> Bool {
        let lower = segment.lowercased()
        if lower == "api" { return true }
        return lower.count >= 2 && lower.hasPrefix("v") && lower.dropFirst().allSatisfy(\.isNumber)
    }

    private static func verb(_ method: HTTPMethod) -> String {
        switch method {
        case .get: "get"
        case .post: "create"
        case .put: "update"
        case .patch: "patch"
        case .delete: "delete"
        case .head: "head"
        case .options: "options"
        }
    }
}
