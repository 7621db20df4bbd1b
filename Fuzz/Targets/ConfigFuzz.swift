import Foundation
@testable import WellPlateCore
@testable import WellPlateNetworking

/// Any bytes as each file a user hands the library: wellplate.json, registry.json, a fixture, an
/// error body, and a stored request key. Every one either loads or throws; none traps.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzConfig(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let data = start.map { Data(bytes: $0, count: count) } ?? Data()
    if case .object(let object)? = try? JSONValue(parsing: data) {
        var config = AppConfig()
        if (try? config.apply(object, source: "wellplate.json")) != nil {
            if (try? config.validate()) != nil {
                _ = APIClient.Configuration(config: config)
            }
        }
    }
    _ = try? MockResponseRegistry.parse(data, file: "registry.json")
    _ = try? ResponseDecoding.decode(FuzzFixture.self, from: data)
    _ = try? ResponseDecoding.decode([FuzzFixture].self, from: data)
    _ = ResponseDecoding.errorMessage(body: data, contentType: nil)
    let text = String(decoding: data, as: UTF8.self)
    if let key = try? RequestKey(parsing: text) {
        _ = key.rawValue
    }
    _ = RetryPolicy.parseRetryAfter(text)
    #if FUZZ_PROXY_CONFIG
    _ = try? CassetteConfigFile(parsing: data, source: "cassette.json")
    #endif
    return 0
}

/// A fixture model with every kind of field the app's models use.
struct FuzzFixture: Codable {
    let id: Int
    let name: String
    let score: Double?
    let tags: [String]?
    let createdAt: Date?
    let nested: [String: Int]?
}
