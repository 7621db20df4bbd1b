import CassetteTools
import Foundation
import HTTPTypes
import WellPlateCore
import WellPlateNetworking

/// A recorded API of many endpoints, for `cassette codegen swift` and `cassette openapi`: 25
/// resources, each with a list, an item, a create (request body) and a details endpoint with a
/// query parameter; objects with nested objects, arrays of objects, dates, optional and nullable
/// fields, and key names that differ per resource so the shapes do not all merge into one.
enum APIStoreGenerator {
    static let cassette = "bench"
    static let resources = 25

    static func item(resource: Int, id: Int) -> String {
        let optional = id % 3 == 0 ? "" : #","nick_name":"n\#(id)""#
        let nullable = id % 4 == 0 ? "null" : #""https://cdn.example.com/\#(resource)/\#(id).png""#
        return
            #"{"id":\#(id),"r\#(resource)_name":"Item \#(id)","price":\#(Double(id % 97) + 0.5),"count":\#(id % 13),"active":\#(id % 2 == 0),"createdAt":"2026-01-0\#(id % 9 + 1)T08:00:00Z","avatar":\#(nullable)\#(optional),"tags":["a","b"],"owner":{"id":\#(id % 50),"display-name":"Owner \#(id % 50)","since":"2025-05-01"},"lines":[{"sku":"S\#(id)","qty":\#(id % 5 + 1),"unit_price":\#(Double(id % 7) + 0.25)},{"sku":"T\#(id)","qty":1,"unit_price":2}]}"#
    }

    static func make(path: String, count: Int) async throws {
        try? FileManager.default.removeItem(atPath: path)
        let store = try await CassetteStore.open(path: path, access: .readWrite)
        try await store.saveCassette(CassetteInfo(name: cassette, upstream: "https://api.example.com"))
        var json = HTTPFields()
        json[.contentType] = "application/json"
        var batch: [Interaction] = []
        var bodyBytes = 0
        for index in 0..<count {
            let resource = index % resources
            let id = index / resources
            let kind = (index / resources) % 4
            let base = "/api/res\(resource)"
            var method = HTTPMethod.get
            var target = base + "/\(id)"
            var body = item(resource: resource, id: id)
            var requestBody: Data?
            var status = 200
            switch kind {
            case 0:
                target = base + "?page=\(id % 10)"
                body = "[" + (0..<5).map { item(resource: resource, id: id + $0) }.joined(separator: ",") + "]"
            case 1:
                if id % 20 == 1 {
                    status = 404
                    body = #"{"error":"not found","id":\#(id)}"#
                }
            case 2:
                method = .post
                target = base
                requestBody = Data(#"{"r\#(resource)_name":"New \#(id)","price":\#(id % 50),"tags":["x"]}"#.utf8)
                status = 201
            default:
                target = base + "/\(id)/details?expand=\(id % 2 == 0)"
            }
            let data = Data(body.utf8)
            bodyBytes += data.count
            batch.append(
                Interaction(
                    cassette: cassette, method: method, url: "https://api.example.com" + target, key: "\(method.rawValue) \(target) #\(index)",
                    requestHeaders: requestBody == nil ? [.accept: "application/json"] : json, requestBody: requestBody,
                    statusCode: status, responseHeaders: json, responseBody: data,
                    recordedAt: Date(timeIntervalSince1970: 1_780_000_000 + Double(index)), duration: .milliseconds(3)
                ))
            if batch.count == 5_000 {
                try await store.record(batch: batch)
                batch.removeAll(keepingCapacity: true)
            }
        }
        if !batch.isEmpty { try await store.record(batch: batch) }
        try await store.close()
        Measure.printJSON(["interactions": count, "bodyBytes": bodyBytes, "endpoints": resources * 4])
    }
}
