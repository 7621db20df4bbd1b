import Foundation
import HTTPTypes
@testable import WellPlateCore
@testable import WellPlateNetworking

/// Any bytes as a raw HTTP request (request line, header lines, body), the way the proxy receives
/// one, turned into a request key under rules chosen by the first byte. Building a key never traps,
/// and the key's text parses back to the same key.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRequest(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    guard let start, count > 0 else { return 0 }
    let bytes = UnsafeBufferPointer(start: start, count: count)
    let flags = bytes[0]
    let raw = Array(bytes.dropFirst())
    let separator = Array("\r\n\r\n".utf8)
    var headEnd = raw.count
    var bodyStart = raw.count
    if raw.count >= 4 {
        for index in 0...(raw.count - 4) where raw[index..<index + 4].elementsEqual(separator) {
            headEnd = index
            bodyStart = index + 4
            break
        }
    }
    let head = String(decoding: raw[0..<headEnd], as: UTF8.self)
    let body = Data(raw[bodyStart...])
    var lines = head.split(separator: "\r\n", omittingEmptySubsequences: false).map(String.init)
    let requestLine = lines.isEmpty ? "" : lines.removeFirst()
    let parts = requestLine.split(separator: " ", omittingEmptySubsequences: false).map(String.init)
    let method = parts.first.flatMap { HTTPMethod(token: $0) } ?? .post
    let target = parts.count > 1 ? parts[1] : "/"
    var fields = HTTPFields()
    for line in lines {
        guard let colon = line.firstIndex(of: ":"), let name = HTTPField.Name(String(line[..<colon])) else { continue }
        let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        guard HTTPField.isValidValue(value) else { continue }
        fields.append(HTTPField(name: name, value: value))
    }
    let rules = MatchingRules(
        ignoredQueryParameters: flags & 1 != 0 ? MatchingRules.commonCacheBusters : [],
        ignoredBodyFields: flags & 2 != 0 ? ["request_id", "client_timestamp"] : [],
        includeBodyFingerprint: flags & 4 == 0,
        includeHost: flags & 8 != 0
    )
    let key = RequestKey(method: method, target: target, headerFields: fields, body: body, rules: rules)
    if let url = URL(string: target) {
        _ = RequestKey(method: method, url: url, headerFields: fields, body: body, rules: rules)
    }
    do {
        let reparsed = try RequestKey(parsing: key.rawValue)
        guard reparsed.rawValue == key.rawValue else {
            fatalError("key text changed on reparsing: \(key.rawValue) -> \(reparsed.rawValue)")
        }
    } catch {
        fatalError("the key text of \(requestLine.debugDescription) does not parse: \(key.rawValue.debugDescription): \(error)")
    }
    return 0
}
