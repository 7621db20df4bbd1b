import CassetteTools
import Foundation
import HTTPTypes
import WellPlateCore
import WellPlateNetworking

/// Realistic recordings: JSON lists of objects, as an API returns them, in three sizes.
enum StoreGenerator {
    static let cassette = "bench"

    static func body(bytes target: Int, seed: Int) -> Data {
        var items: [String] = []
        var size = 2
        var index = 0
        while size < target - 40 {
            let item =
                #"{"id":\#(seed * 1000 + index),"name":"Item \#(index) of \#(seed)","price":\#(Double(index % 97) + 0.5),"tags":["a","b"],"createdAt":"2026-01-0\#(index % 9 + 1)T08:00:00Z","active":\#(index % 2 == 0)}"#
            items.append(item)
            size += item.utf8.count + 1
            index += 1
        }
        return Data(("[" + items.joined(separator: ",") + "]").utf8)
    }

    static func sizes(for mix: String) -> [(name: String, bytes: Int)] {
        switch mix {
        case "mixed": [("small", 200), ("medium", 2_000), ("large", 50_000)]
        default: [("small", 200), ("medium", 500), ("large", 1_000)]
        }
    }

    static func make(path: String, count: Int, mix: String) async throws {
        try? FileManager.default.removeItem(atPath: path)
        let store = try await CassetteStore.open(path: path, access: .readWrite)
        try await store.saveCassette(CassetteInfo(name: cassette, upstream: "http://127.0.0.1"))
        let sizes = sizes(for: mix)
        // Bodies repeat per size (a store of a million distinct 50 KB bodies would not fit a laptop),
        // but each row stores its own copy, as real recordings do.
        let bodies = sizes.map { body(bytes: $0.bytes, seed: $0.bytes) }
        var headers = HTTPFields()
        headers[.contentType] = "application/json; charset=utf-8"
        var batch: [Interaction] = []
        var bodyBytes = 0
        var paths: [String] = []
        let generate = try await Measure.seconds {
            for index in 0..<count {
                let kind = index % sizes.count
                let path = "/api/\(sizes[kind].name)/\(index)"
                paths.append(path)
                // `distinct`: each row a body of its own, the HTML report's worst case (it writes each
                // distinct body once).
                let body = mix == "distinct" ? Self.body(bytes: sizes[kind].bytes, seed: index) : bodies[kind]
                bodyBytes += body.count
                var responseHeaders = headers
                responseHeaders[.contentLength] = String(body.count)
                batch.append(
                    Interaction(
                        cassette: cassette, method: .get, url: "http://127.0.0.1" + path, key: "GET " + path,
                        requestHeaders: [.accept: "application/json"], statusCode: 200, responseHeaders: responseHeaders,
                        responseBody: body, recordedAt: Date(timeIntervalSince1970: 1_780_000_000 + Double(index)), duration: .milliseconds(3)
                    ))
                if batch.count == 10_000 {
                    try await store.record(batch: batch)
                    batch.removeAll(keepingCapacity: true)
                }
            }
            if !batch.isEmpty { try await store.record(batch: batch) }
            try await store.close()
        }
        try paths.joined(separator: "\n").write(toFile: path + ".paths", atomically: true, encoding: .utf8)
        Measure.printJSON([
            "interactions": count, "bodyBytes": bodyBytes, "seconds": generate,
            "fileBytes": (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0,
        ])
    }
}
