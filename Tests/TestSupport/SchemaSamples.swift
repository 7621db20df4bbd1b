import CassetteTools
import Foundation
import WellPlateCore
import WellPlateNetworking

extension InferredSchema {
    /// The schema of samples written as JSON text; fails the test on text that is not JSON.
    package init(json samples: [String]) throws {
        var inferrer = SchemaInferrer()
        for sample in samples {
            try inferrer.add(json: Data(sample.utf8))
        }
        self = inferrer.schema
    }

    /// The exported JSON Schema without its `$schema` line, compact with sorted keys: short enough
    /// to spell out in a table of cases.
    package var compactSchemaBody: String {
        guard case .object(var document) = jsonSchema() else { return "not an object" }
        document.removeValue(forKey: "$schema")
        return JSONValue.object(document).jsonString(options: .sortedKeys)
    }
}

/// A JSON object nested `depth` levels under the key `level`, with `leaf` innermost.
package func nestedJSON(depth: Int, leaf: String) -> String {
    String(repeating: "{\"level\":", count: depth) + leaf + String(repeating: "}", count: depth)
}

/// A deterministic random number generator (SplitMix64), so generated test inputs are the same on
/// every run.
package struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64

    package init(seed: UInt64) {
        state = seed
    }

    package mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
