import CassetteKernel
import Foundation
import NIOCore
import WellPlateCore
import WellPlateNetworking

/// The journal as `GET /__cassette/sessions/ID/requests` answers it.
extension SessionJournal {
    /// `?method=&path=&host=`: which entries to show. A path ending in `*` matches every path it
    /// starts; a host is a name (`auth.example.com`) or a name and port (`127.0.0.1:8443`).
    package struct Filter: Sendable, Equatable {
        package var method: String?
        package var path: String?
        package var host: String? = nil

        package func matches(_ entry: Entry) -> Bool {
            if let method, method.uppercased() != entry.method { return false }
            if let host, !Self.origin(entry.origin, isHost: host) { return false }
            guard let path else { return true }
            let entryPath = String(entry.path)
            // The filter arrives percent-decoded; the journal keeps the path as it was sent.
            let candidates = [entryPath, entryPath.removingPercentEncoding ?? entryPath]
            if path.hasSuffix("*") {
                let prefix = path.dropLast()
                return candidates.contains { $0.hasPrefix(prefix) }
            }
            return candidates.contains(path)
        }

        /// Whether `origin` (`https://host:port`) is on `host`, given with or without its port.
        package static func origin(_ origin: String?, isHost host: String) -> Bool {
            guard let origin, let url = URL(string: origin), let name = url.host(percentEncoded: false)?.lowercased() else { return false }
            let wanted = host.lowercased()
            let bracketed = name.contains(":") ? "[\(name)]" : name
            return wanted == name || wanted == bracketed || url.port.map { wanted == "\(bracketed):\($0)" } == true
        }
    }

    /// `{"requests": [...], "count": N}`, in arrival order; `"dropped": N` when the session
    /// served more requests than it keeps (`limit`).
    package func json(filter: Filter) -> JSONValue {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        let (entries, dropped) = entries
        let rows: [JSONValue] = entries.filter(filter.matches).map { $0.json(at: date(of: $0), formatter: formatter) }
        var json: JSONObject = ["requests": .array(rows), "count": .integer(Int64(rows.count))]
        if dropped > 0 { json["dropped"] = .integer(Int64(dropped)) }
        return .object(json)
    }
}

extension SessionJournal.Entry {
    package func json(at date: Date, formatter: ISO8601DateFormatter) -> JSONValue {
        var json: JSONObject = [
            "method": .string(method),
            "origin": origin.map(JSONValue.string) ?? .null,
            "path": .string(String(path)),
            "query": query.map { .string(String($0)) } ?? .null,
            "key": key.map(JSONValue.string) ?? .null,
            "status": .integer(Int64(status)),
            // A conversation that missed on replay reads as a miss.
            "source": .string(webSocket?.current.miss != nil ? SessionJournal.Source.miss.rawValue : source.rawValue),
            "position": position.map { .integer(Int64($0)) } ?? .null,
            "at": .string(formatter.string(from: date)),
            "durationMs": .number(Self.milliseconds(duration)),
            // Read from the key when the journal is asked for, not as requests are served.
            "operation": key.flatMap(GraphQLKeyPart.init(inKey:)).map { .string($0.label) } ?? .null,
        ]
        // Only on a conversation's entry, so request entries stay as they were.
        if let webSocket { json["webSocket"] = webSocket.json }
        if let grpc {
            json["grpc"] = ["method": .string(grpc.method), "status": .string(grpc.status), "message": grpc.message.map(JSONValue.string) ?? .null]
        }
        return .object(json)
    }

    /// Milliseconds to the hundredth, as the request log prints them.
    package static func milliseconds(_ duration: TimeAmount) -> Double {
        (Double(duration.nanoseconds) / 10_000).rounded() / 100
    }
}
