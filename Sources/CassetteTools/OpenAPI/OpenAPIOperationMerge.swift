import Foundation
import WellPlateCore

/// One OpenAPI operation for the same path and method recorded on two hosts of a multi-host
/// cassette (an API and its auth host both answering `GET /v1/me`): OpenAPI has one operation
/// per path and method, so the second host's is merged into the first's rather than dropped.
enum OpenAPIOperationMerge {
    /// `existing` with `added`'s statuses, media types and parameters that it lacks; a schema the
    /// two describe differently becomes `anyOf` both. The first host's example, summary and
    /// operation id stay; the description names the other host.
    static func merge(_ existing: JSONObject, _ added: JSONObject, host: String?) -> JSONObject {
        var merged = existing
        if let host, case .string(let description)? = existing["description"], case .string(let other)? = added["description"] {
            merged["description"] = .string("\(description) \(host): \(other)")
        }
        merged["parameters"] = mergedParameters(existing["parameters"], added["parameters"])
        if case .object(let body)? = added["requestBody"] {
            if case .object(var known)? = existing["requestBody"] {
                known["content"] = mergedContent(known["content"], body["content"])
                if body["required"] == .bool(false) { known["required"] = .bool(false) }
                merged["requestBody"] = .object(known)
            } else {
                var optional = body
                optional["required"] = .bool(false)
                merged["requestBody"] = .object(optional)
            }
        }
        if case .object(var responses)? = existing["responses"], case .object(let others)? = added["responses"] {
            for (status, response) in others {
                guard case .object(var known)? = responses[status], case .object(let other) = response else {
                    responses[status] = response
                    continue
                }
                if known["content"] != nil || other["content"] != nil {
                    known["content"] = mergedContent(known["content"], other["content"])
                }
                responses[status] = .object(known)
            }
            merged["responses"] = .object(responses)
        }
        return merged
    }

    /// Parameters by name and place; one the other host never sends is not required.
    private static func mergedParameters(_ first: JSONValue?, _ second: JSONValue?) -> JSONValue? {
        let firsts = first?.arrayValue ?? []
        let seconds = second?.arrayValue ?? []
        guard !firsts.isEmpty || !seconds.isEmpty else { return nil }
        func key(_ parameter: JSONValue) -> String { "\(parameter["in"]?.stringValue ?? "") \(parameter["name"]?.stringValue ?? "")" }
        let secondKeys = Set(seconds.map(key))
        let firstKeys = Set(firsts.map(key))
        var result: [JSONValue] = firsts.map { parameter in
            guard !secondKeys.contains(key(parameter)), case .object(var object) = parameter, object["in"] != "path" else { return parameter }
            object["required"] = .bool(false)
            return .object(object)
        }
        for parameter in seconds where !firstKeys.contains(key(parameter)) {
            guard case .object(var object) = parameter, object["in"] != "path" else {
                result.append(parameter)
                continue
            }
            object["required"] = .bool(false)
            result.append(.object(object))
        }
        return .array(result)
    }

    /// Media types of both; a schema that differs is `anyOf` the two.
    private static func mergedContent(_ first: JSONValue?, _ second: JSONValue?) -> JSONValue? {
        guard case .object(var content)? = first else { return second }
        guard case .object(let others)? = second else { return first }
        for (mediaType, value) in others {
            guard case .object(var known)? = content[mediaType], case .object(let other) = value else {
                content[mediaType] = value
                continue
            }
            if let mine = known["schema"], let theirs = other["schema"], mine != theirs {
                let alternatives = (mine["anyOf"]?.arrayValue ?? [mine]) + [theirs]
                known["schema"] = .object(["anyOf": .array(alternatives)])
            }
            content[mediaType] = .object(known)
        }
        return .object(content)
    }
}
