import CassetteTools
import Foundation
import WellPlateCore
import WellPlateNetworking

/// ReplayAPIClient throughput (lookup + decode) and key normalization speed, each beside a
/// baseline measured in the same run: decoding the same bytes with JSONDecoder alone, and parsing
/// the same targets with Foundation's URLComponents.
enum InProcessBench {
    struct Item: Decodable {
        let id: Int
        let name: String
        let price: Double
        let tags: [String]
        let createdAt: Date
        let active: Bool
    }

    static func run(path: String) async throws {
        let paths = try String(contentsOfFile: path + ".paths", encoding: .utf8).split(separator: "\n").map(String.init)
        let client = try await ReplayAPIClient.open(path: path, cassette: StoreGenerator.cassette)
        let urls = paths.map { URL(string: "http://127.0.0.1" + $0)! }
        let rounds = max(1, 30_000 / urls.count)
        let requests = rounds * urls.count

        let clientSeconds = try await Measure.seconds {
            for _ in 0..<rounds {
                for url in urls {
                    _ = try await client.get(url: url, responseType: [Item].self)
                }
            }
        }
        // Baseline: the decode alone, on the same bodies.
        let bodies = try await client.session.store.interactions(cassette: StoreGenerator.cassette).map(\.responseBody)
        let decoder = JSONCoding.makeDecoder()
        let decodeSeconds = try Measure.seconds {
            for _ in 0..<rounds {
                for body in bodies {
                    _ = try decoder.decode([Item].self, from: body)
                }
            }
        }

        let targets = (0..<100_000).map { index in
            "/api/users/\(index % 500)/meals?limit=\(index % 50)&offset=\(index % 7)&sort=desc&_=\(index)&q=caf%C3%A9+au+lait"
        }
        let rules = MatchingRules(ignoredQueryParameters: MatchingRules.commonCacheBusters)
        var keyLength = 0
        let keySeconds = Measure.seconds {
            for target in targets {
                keyLength &+= RequestKey(method: .get, target: target, rules: rules).rawValue.utf8.count
            }
        }
        var componentCount = 0
        let componentsSeconds = Measure.seconds {
            for target in targets {
                componentCount &+= URLComponents(string: target)?.queryItems?.count ?? 0
            }
        }
        Measure.printJSON([
            "replayRequests": requests,
            "replayRequestsPerSecond": Double(requests) / clientSeconds,
            "decodeOnlyPerSecond": Double(requests) / decodeSeconds,
            "replayVersusDecodeOnly": decodeSeconds / clientSeconds,
            "keysPerSecond": Double(targets.count) / keySeconds,
            "urlComponentsPerSecond": Double(targets.count) / componentsSeconds,
            "keysVersusURLComponents": componentsSeconds / keySeconds,
            "checksum": keyLength &+ componentCount,
        ])
    }
}
