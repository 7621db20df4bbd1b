import Foundation

/// Helpers for values produced by `JSONSerialization`, whose booleans and numbers are both
/// `NSNumber`s and differ only in their Objective-C type encoding.
enum FoundationJSON {
    /// The value as a JSON boolean, or `nil` when it is anything else (including 0 and 1).
    static func boolean(_ value: Any) -> Bool? {
        guard let number = value as? NSNumber, String(cString: number.objCType) == "c" else { return nil }
        return number.boolValue
    }

    /// Whether a JSON number was written with a fraction or exponent (a double), not as an integer.
    static func isFractional(_ number: NSNumber) -> Bool {
        let type = String(cString: number.objCType)
        return type == "d" || type == "f"
    }
}
