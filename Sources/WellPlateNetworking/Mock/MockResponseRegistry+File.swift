import Foundation
import WellPlateCore

// `registry.json`, kept beside the fixtures:
//
//     {
//       "routes": [
//         {
//           "fixture": "users_id_get",
//           "method": "GET",
//           "path": "/api/users/{id}"
//         },
//         {
//           "fixture": "mock_graphql_post_query_getuser",
//           "method": "POST",
//           "operation": "GetUser",
//           "path": "/graphql"
//         }
//       ],
//       "version": 1
//     }
//
// Written pretty-printed with sorted keys, routes sorted by path and then method, and a final
// newline, so writing the same routes twice gives the same bytes and diffs stay small. A GraphQL
// route adds "operation" (and optionally "variables", an object): both are optional members, so a
// file without them reads as before and the version stays 1.
extension MockResponseRegistry {
    /// The registry's file name inside a fixtures directory.
    public static let fileName = "registry.json"
    /// The `version` a registry file must have; other versions are refused.
    public static let fileVersion = 1

    /// Reads a registry file.
    /// - Throws: `MockRegistryError` naming the file, the JSON path (or line and column) and the problem.
    public static func load(from url: URL) throws(MockRegistryError) -> MockResponseRegistry {
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw MockRegistryError(file: url.path, problem: "cannot be read (\(error.localizedDescription)); check that it exists and is readable")
        }
        return MockResponseRegistry(registrations: try parse(data, file: url.path))
    }

    /// The registry in `directory/registry.json`, or an empty registry when there is no such file.
    public static func load(fixturesDirectory directory: URL) throws(MockRegistryError) -> MockResponseRegistry {
        let url = directory.appendingPathComponent(fileName)
        guard FileManager.default.fileExists(atPath: url.path) else { return MockResponseRegistry() }
        return try load(from: url)
    }

    /// The routes as `registry.json` bytes; the same routes always give the same bytes.
    public func fileData() -> Data {
        let routes = registrations.map { route -> JSONValue in
            var object: JSONObject = ["fixture": .string(route.fixture), "method": .string(route.method.rawValue), "path": .string(route.path)]
            object["operation"] = route.operation.map(JSONValue.string)
            object["variables"] = route.variables
            return .object(object)
        }
        let document: JSONValue = ["routes": .array(routes), "version": .integer(Int64(Self.fileVersion))]
        return Data((document.prettyJSON + "\n").utf8)
    }

    /// Writes `fileData()` to `url`, atomically.
    public func save(to url: URL) throws(MockRegistryError) {
        do {
            try fileData().write(to: url, options: .atomic)
        } catch {
            throw MockRegistryError(
                file: url.path, problem: "cannot be written (\(error.localizedDescription)); check that its directory exists and is writable")
        }
    }

    /// Parses `registry.json` bytes; `file` names the source in errors.
    public static func parse(_ data: Data, file: String) throws(MockRegistryError) -> [MockRoute] {
        func failure(_ location: String, _ problem: String) -> MockRegistryError {
            MockRegistryError(file: file, location: location, problem: problem)
        }
        let document: JSONValue
        do {
            document = try JSONValue(parsing: data)
        } catch {
            throw failure("line \(error.line), column \(error.column)", "is not valid JSON: \(error.reason)")
        }
        guard let root = document.objectValue else {
            throw failure("$", "must be an object such as {\"version\": 1, \"routes\": [...]}")
        }
        try rejectUnknownKeys(root, allowed: ["routes", "version"], at: "$", failure)
        guard let version = root["version"] else {
            throw failure("$.version", "is missing; add \"version\": \(fileVersion)")
        }
        guard version == .integer(Int64(fileVersion)) else {
            throw failure("$.version", "is \(version.compactJSON), but this build reads version \(fileVersion) only")
        }
        guard let list = root["routes"] else {
            throw failure("$.routes", "is missing; add \"routes\": [] with one {\"method\", \"path\", \"fixture\"} object per route")
        }
        guard let items = list.arrayValue else {
            throw failure("$.routes", "must be an array of {\"method\", \"path\", \"fixture\"} objects")
        }
        var routes: [MockRoute] = []
        var seen: [RouteIdentity: Int] = [:]
        for (index, item) in items.enumerated() {
            let location = "$.routes[\(index)]"
            let route = try parseRoute(item, at: location, failure)
            let identity = RouteIdentity(method: route.method, shape: route.pattern.shape, operation: route.operation, variables: route.variables)
            if let first = seen[identity] {
                throw failure(location, "repeats the route of $.routes[\(first)] (\(route.request)); keep one of them")
            }
            seen[identity] = index
            routes.append(route)
        }
        return routes
    }

    private struct RouteIdentity: Hashable {
        var method: HTTPMethod
        var shape: [String?]
        var operation: String?
        var variables: JSONValue?
    }

    private static func parseRoute(
        _ item: JSONValue, at location: String, _ failure: (String, String) -> MockRegistryError
    ) throws(MockRegistryError) -> MockRoute {
        guard let object = item.objectValue else {
            throw failure(location, "must be an object such as {\"method\": \"GET\", \"path\": \"/api/users/{id}\", \"fixture\": \"users_id_get\"}")
        }
        try rejectUnknownKeys(object, allowed: ["fixture", "method", "operation", "path", "variables"], at: location, failure)
        func string(_ key: String) throws(MockRegistryError) -> String {
            guard let value = object[key] else { throw failure("\(location).\(key)", "is missing") }
            guard let text = value.stringValue else { throw failure("\(location).\(key)", "must be a string, not \(value.compactJSON)") }
            return text
        }
        let methodName = try string("method")
        guard let method = HTTPMethod(token: methodName) else {
            throw failure(
                "\(location).method",
                "\(PathPattern.quoted(methodName)) is not a method (accepted: \(HTTPMethod.allCases.map(\.rawValue).joined(separator: ", ")))")
        }
        let pattern: PathPattern
        do {
            pattern = try PathPattern(try string("path"))
        } catch  where error.file == nil {
            throw failure("\(location).path", error.problem)
        }
        var operation: String?
        if object["operation"] != nil { operation = try string("operation") }
        let variables = object["variables"]
        do {
            try MockRoute.validate(operation: operation)
        } catch  where error.file == nil {
            throw failure("\(location).operation", error.problem)
        }
        do {
            try MockRoute.validate(variables: variables, operation: operation)
        } catch  where error.file == nil {
            throw failure("\(location).variables", error.problem)
        }
        do {
            return try MockRoute(method: method, pattern: pattern, operation: operation, variables: variables, fixture: try string("fixture"))
        } catch  where error.file == nil {
            throw failure("\(location).fixture", error.problem)
        }
    }

    private static func rejectUnknownKeys(
        _ object: JSONObject, allowed: [String], at location: String, _ failure: (String, String) -> MockRegistryError
    ) throws(MockRegistryError) {
        for key in object.keys where !allowed.contains(key) {
            let path = location + (JSONPath.isIdentifier(key) ? ".\(key)" : "[\(PathPattern.quoted(key))]")
            throw failure(path, "is not a registry key (accepted: \(allowed.joined(separator: ", ")))")
        }
    }
}
