import Foundation
@testable import WellPlateCore
@testable import WellPlateNetworking

/// Any bytes as a JSON document: parsing never traps, and whatever parses survives a round trip
/// through the writer (compact, pretty and canonical) unchanged.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJSON(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let data = start.map { Data(bytes: $0, count: count) } ?? Data()
    guard let value = try? JSONValue(parsing: data) else { return 0 }
    guard (try? JSONValue(parsing: value.compactJSON)) == value else {
        fatalError("compact round trip changed \(value.compactJSON)")
    }
    guard (try? JSONValue(parsing: value.prettyJSON)) == value else {
        fatalError("pretty round trip changed \(value.compactJSON)")
    }
    // Canonical text is stable from its second round: the first may turn an integer of 22 digits
    // or more, written exactly in exponent notation, into a double (docs/matching.md).
    if let first = CanonicalJSON.canonicalText(of: data), let second = CanonicalJSON.canonicalText(of: Data(first)) {
        guard CanonicalJSON.canonicalText(of: Data(second)) == second else {
            fatalError("canonical text is not stable for \(value.compactJSON)")
        }
    }
    var inferrer = SchemaInferrer()
    inferrer.add(value)
    return 0
}
