import WellPlateCore
import WellPlateNetworking

extension SwiftModelGenerator {
    /// One body to model: an endpoint's responses or requests.
    struct RootBody {
        var root: GeneratedSwiftModels.Root
        var schema: InferredSchema
        var hint: String
        /// The resource whose objects the body holds (`User` for `GET /api/users`,
        /// `GET /api/users/{id}` and `POST /api/users`); `nil` for actions and requests.
        var resource: String?
    }

    /// The objects of one resource seen through several endpoints are one model: a list whose
    /// users sometimes lack `avatarURL` and an item endpoint that always had it describe the same
    /// `User`, whose `avatarURL` is then optional. Object schemas of one resource are merged when
    /// `sameResource` says they are one thing; anything else keeps its own shape.
    static func mergeResources(_ bodies: inout [RootBody]) {
        var groups: [String: [Int]] = [:]
        for (index, body) in bodies.enumerated() {
            if let resource = body.resource, body.schema.resourceObject != nil { groups[resource, default: []].append(index) }
        }
        for indices in groups.values where indices.count > 1 {
            var remaining = indices
            while let first = remaining.first {
                var merged = bodies[first].schema.resourceObject!
                var members = [first]
                for index in remaining.dropFirst() {
                    let object = bodies[index].schema.resourceObject!
                    let keys = Set(object.properties.keys), mergedKeys = Set(merged.properties.keys)
                    guard Self.sameResource(keys, mergedKeys) else { continue }
                    merged.merge(object)
                    members.append(index)
                }
                for index in members {
                    bodies[index].schema.replaceResourceObject(with: merged)
                }
                remaining.removeAll { members.contains($0) }
            }
        }
    }

    /// Whether two objects of one resource are the same thing seen through different endpoints:
    /// one's keys are a subset of the other's (a list's summary of the item), or they share an
    /// identity key (`id`, `uuid`, `_id`) and at least half of the smaller one's keys (a list
    /// that adds `rank`, an item that adds `bio`). Fields only one side carries become optional.
    static func sameResource(_ keys: Set<String>, _ other: Set<String>) -> Bool {
        if keys.isSubset(of: other) || other.isSubset(of: keys) { return true }
        let shared = keys.intersection(other)
        guard ["id", "uuid", "_id"].contains(where: shared.contains) else { return false }
        return shared.count * 2 >= min(keys.count, other.count)
    }
}

extension InferredSchema {
    /// The object a body holds: the body itself when it is only ever an object, or the items of
    /// an array of objects.
    var resourceObject: InferredSchema? {
        if nonNullTypes == [.object] { return self }
        if nonNullTypes == [.array], let items, items.nonNullTypes == [.object] { return items }
        return nil
    }

    mutating func replaceResourceObject(with object: InferredSchema) {
        if nonNullTypes == [.object] {
            // Keep this body's own counts of null, so only the object's properties change.
            properties = object.properties
            objectCount = object.objectCount
        } else if !itemStorage.isEmpty {
            itemStorage[0].properties = object.properties
            itemStorage[0].objectCount = object.objectCount
        }
    }
}
