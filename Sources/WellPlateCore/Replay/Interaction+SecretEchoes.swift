import Foundation
import HTTPTypes

/// Replaying a response that echoed a secret of its request: each `REDACTED` the recording noted
/// (`Interaction.secretEchoes`) gets the live request's own value for that secret, spelled as the
/// response spelled it. Only values the live request carries are used; a secret it does not
/// carry stays `REDACTED`, and nothing comes from the store.
extension Interaction {
    /// The recording as answered to a request with `liveHeaders`, or `nil` when nothing changes
    /// (no echoes, or the request carries none of their secrets). `Content-Length` (when present)
    /// and a streamed recording's pieces follow the body's new length.
    package func echoingSecrets(of liveHeaders: HTTPFields) -> Interaction? {
        guard !secretEchoes.isEmpty else { return nil }
        var values: [SecretEcho.Origin: String?] = [:]
        func value(_ echo: SecretEcho) -> String? {
            if let known = values[echo.origin] { return known }
            let found = echo.origin.value(in: liveHeaders)
            values[echo.origin] = found
            return found
        }
        var result = self
        var changed = false
        let bodyEchoes = secretEchoes.filter { $0.part == .body }.compactMap { echo in value(echo).map { (echo.offset, $0) } }
        if !bodyEchoes.isEmpty, let (body, shifts) = Self.replacing(Array(responseBody), at: bodyEchoes) {
            result.responseBody = Data(body)
            if result.responseHeaders[.contentLength] != nil, method != .head { result.responseHeaders[.contentLength] = String(body.count) }
            if let chunks { result.chunks = Self.resized(chunks, by: shifts) }
            changed = true
        }
        var seen: [String: Int] = [:]
        for index in result.responseHeaders.indices {
            let name = result.responseHeaders[index].name.canonicalName
            let occurrence = seen[name, default: 0]
            seen[name] = occurrence + 1
            let echoes = secretEchoes.filter { $0.part == .header(name, occurrence: occurrence) }.compactMap { echo in value(echo).map { (echo.offset, $0) } }
            guard !echoes.isEmpty, let (bytes, _) = Self.replacing(Array(result.responseHeaders[index].value.utf8), at: echoes) else { continue }
            result.responseHeaders[index].value = String(decoding: bytes, as: UTF8.self)
            changed = true
        }
        return changed ? result : nil
    }

    /// `bytes` with the placeholder at each offset replaced by its value; an offset where the
    /// placeholder does not stand (a recording changed since) is left alone. Also where each
    /// replacement stood and how much it changed the length.
    private static func replacing(_ bytes: [UInt8], at replacements: [(Int, String)]) -> ([UInt8], [(offset: Int, shift: Int)])? {
        let placeholder = Array(Redactor.placeholder.utf8)
        var output: [UInt8] = []
        var shifts: [(offset: Int, shift: Int)] = []
        var copied = 0
        for (offset, value) in replacements.sorted(by: { $0.0 < $1.0 }) {
            guard offset >= copied, offset + placeholder.count <= bytes.count, bytes[offset..<(offset + placeholder.count)].elementsEqual(placeholder)
            else { continue }
            if output.isEmpty { output.reserveCapacity(bytes.count + value.utf8.count) }
            output.append(contentsOf: bytes[copied..<offset])
            output.append(contentsOf: value.utf8)
            shifts.append((offset, value.utf8.count - placeholder.count))
            copied = offset + placeholder.count
        }
        guard !shifts.isEmpty else { return nil }
        output.append(contentsOf: bytes[copied...])
        return (output, shifts)
    }

    /// Pieces whose bytes held a replaced placeholder grow or shrink by the difference.
    private static func resized(_ chunks: [ResponseChunk], by shifts: [(offset: Int, shift: Int)]) -> [ResponseChunk] {
        var result = chunks
        var start = 0
        for index in chunks.indices {
            let end = index == chunks.count - 1 ? Int.max : start + chunks[index].size
            for shift in shifts where shift.offset >= start && shift.offset < end { result[index].size += shift.shift }
            start = end
        }
        return result
    }
}
