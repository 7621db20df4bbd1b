import CassetteTools
import Foundation
import WellPlateCore
import WellPlateNetworking

/// One large response through the drift detector's parser and schema inference, beside
/// Foundation's JSONSerialization parsing the same bytes.
enum SchemaBench {
    static func run(megabytes: Int) throws {
        var parts: [String] = []
        var size = 0
        var index = 0
        while size < megabytes * 1_000_000 {
            let item =
                #"{"id":\#(index),"name":"user \#(index)","email":"u\#(index)@example.com","score":\#(Double(index) / 3),"active":\#(index % 2 == 0),"tags":["a","b"],"createdAt":"2026-01-01T00:00:00Z","avatar":\#(index % 5 == 0 ? "null" : "\"https://cdn.example.com/\(index).png\""),"address":{"city":"Paris","zip":"7500\#(index % 10)"}}"#
            parts.append(item)
            size += item.utf8.count + 1
            index += 1
        }
        let data = Data(("[" + parts.joined(separator: ",") + "]").utf8)
        // Medians of alternating repetitions: one pass is at the mercy of a noisy machine.
        var parses: [Double] = [], infers: [Double] = [], foundations: [Double] = []
        var schema = InferredSchema()
        for _ in 0..<repetitions {
            var value: JSONValue = .null
            parses.append(try Measure.seconds { value = try JSONValue(parsing: data) })
            schema = InferredSchema()
            infers.append(Measure.seconds { schema.add(value) })
            foundations.append(try Measure.seconds { _ = try JSONSerialization.jsonObject(with: data) })
        }
        let parseSeconds = median(parses), inferSeconds = median(infers), foundationSeconds = median(foundations)
        Measure.printJSON([
            "bytes": data.count,
            "parseSeconds": parseSeconds,
            "inferSeconds": inferSeconds,
            "parseAndInferSeconds": parseSeconds + inferSeconds,
            "jsonSerializationSeconds": foundationSeconds,
            "parseVersusJSONSerialization": foundationSeconds / parseSeconds,
            "properties": schema.items?.propertyNames.count ?? 0,
            "repetitions": repetitions,
        ])
    }

    private static let repetitions = 5
}
