import Foundation

/// Values a client chose that the server echoed: the JSON `id` of a request/response protocol
/// (JSON-RPC, graphql-ws), found in a recorded conversation where a server reply carries, at the
/// same JSON path, the scalar (string or number) of the client message it answered. A client that
/// numbers its requests differently from the recording still matches (the values at those paths
/// are left out of the comparison), and the replies carry its live values.
///
/// Socket.IO's acknowledgement ids (`421["add",1,2]` answered by `431[3]`) are echoed values too:
/// the id has no JSON path, so it goes by `ackPath`, and the JSON after it by its paths.
///
/// Not taken for ids: a path whose value is the same in every client message that has it, when
/// two or more do (a constant such as `"jsonrpc": "2.0"`; with one request there is no telling,
/// and its echoed values are all taken), and the values of a reply that repeats the whole client
/// message (an echo server's answer is not a reply that carries an id).
package struct EchoedValues: Sendable, Equatable {
    /// The JSON paths of echoed values.
    package let paths: Set<[JSONPathComponent]>

    package init(paths: Set<[JSONPathComponent]>) {
        self.paths = paths
    }

    /// The echoed values of `conversation`'s text messages.
    package init(_ conversation: Conversation) {
        let messages = conversation.messages.filter(\.isData)
        let scalars = messages.map { $0.kind == .text ? Self.scalars(of: $0.payload) : [:] }
        var candidates: Set<[JSONPathComponent]> = []
        for (index, message) in messages.enumerated() where message.direction == .client && !scalars[index].isEmpty {
            // The server messages of its turn: those before the next client message.
            var reply = index + 1
            while reply < messages.count, messages[reply].direction == .server {
                if messages[reply].payload != message.payload {
                    for (path, value) in scalars[reply] where scalars[index][path]?.value == value.value {
                        candidates.insert(path)
                    }
                }
                reply += 1
            }
        }
        let clientScalars = zip(messages, scalars).filter { $0.0.direction == .client }.map(\.1)
        paths = candidates.filter { path in
            let clientValues = clientScalars.compactMap { $0[path]?.value }
            return clientValues.count < 2 || Set(clientValues).count > 1
        }
    }

    package var isEmpty: Bool { paths.isEmpty }

    /// The path of a Socket.IO packet's acknowledgement id: the empty path, which no JSON value
    /// found here has (only the strings and numbers inside an array or object are taken).
    package static let ackPath: [JSONPathComponent] = []

    /// A scalar's value, for comparing (`s:` and the string, `n:` and the number as written),
    /// and where it sits in its message.
    package struct Scalar: Sendable, Equatable {
        let value: String
        let range: Range<Int>
    }

    /// The strings and numbers of a JSON text by path; empty when it is not JSON.
    static func scalars(of payload: Data) -> [[JSONPathComponent]: Scalar] {
        if let packet = SocketIOPacket(payload) {
            var found = scalars(of: SocketIOPacket.slice(payload, packet.json)).mapValues { scalar in
                Scalar(value: scalar.value, range: scalar.range.lowerBound + packet.json.lowerBound..<scalar.range.upperBound + packet.json.lowerBound)
            }
            if let ackID = packet.ackID {
                found[ackPath] = Scalar(value: "n:" + String(decoding: SocketIOPacket.slice(payload, ackID), as: UTF8.self), range: ackID)
            }
            return found
        }
        guard let first = payload.first(where: { ![0x20, 0x09, 0x0A, 0x0D].contains($0) }), first == UInt8(ascii: "{") || first == UInt8(ascii: "[") else {
            return [:]
        }
        var found: [[JSONPathComponent]: Scalar] = [:]
        JSONSpan.walk(payload) { span in
            switch span.kind {
            case .string(let text): found[span.path] = Scalar(value: "s:" + text, range: span.range)
            case .number(let text): found[span.path] = Scalar(value: "n:" + text, range: span.range)
            case .literal, .container: break
            }
        }
        return found
    }

    /// `payload` with each echoed value replaced by `null` (a Socket.IO acknowledgement id by
    /// `0`, so the packet still reads as one): two messages that differ only there compare equal.
    package func masked(_ payload: Data) -> Data {
        guard !paths.isEmpty else { return payload }
        let spans = Self.scalars(of: payload).filter { paths.contains($0.key) }.map { ($0.value.range, Data(($0.key == Self.ackPath ? "0" : "null").utf8)) }
        return Self.replacing(spans, in: payload)
    }

    /// What a matched client message's echoed values became: each recorded value at a path, and
    /// the live message's value (its bytes as the client wrote them) at the same path.
    package func substitutions(recorded: Data, live: Data) -> [[JSONPathComponent]: [String: Data]] {
        guard !paths.isEmpty else { return [:] }
        let recordedScalars = Self.scalars(of: recorded)
        let liveScalars = Self.scalars(of: live)
        var result: [[JSONPathComponent]: [String: Data]] = [:]
        for path in paths {
            guard let recordedValue = recordedScalars[path], let liveValue = liveScalars[path], recordedValue.value != liveValue.value else { continue }
            result[path, default: [:]][recordedValue.value] = Data(
                live[live.startIndex + liveValue.range.lowerBound..<live.startIndex + liveValue.range.upperBound])
        }
        return result
    }

    /// `payload` (a server message) with each recorded value in `substitutions` at its path
    /// replaced by the live one; every other byte as recorded.
    package func substituted(_ payload: Data, _ substitutions: [[JSONPathComponent]: [String: Data]]) -> Data {
        guard !substitutions.isEmpty else { return payload }
        let spans = Self.scalars(of: payload).compactMap { path, scalar in
            substitutions[path]?[scalar.value].map { (scalar.range, $0) }
        }
        return Self.replacing(spans, in: payload)
    }

    /// `payload` with each byte range replaced, ranges not overlapping.
    private static func replacing(_ replacements: [(Range<Int>, Data)], in payload: Data) -> Data {
        guard !replacements.isEmpty else { return payload }
        let bytes = [UInt8](payload)
        var result = Data()
        result.reserveCapacity(bytes.count)
        var position = 0
        for (range, replacement) in replacements.sorted(by: { $0.0.lowerBound < $1.0.lowerBound }) {
            result.append(contentsOf: bytes[position..<range.lowerBound])
            result.append(replacement)
            position = range.upperBound
        }
        result.append(contentsOf: bytes[position...])
        return result
    }
}
