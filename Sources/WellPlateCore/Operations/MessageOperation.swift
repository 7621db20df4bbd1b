import Foundation

/// Where one WebSocket message stands among the operations a protocol multiplexes on one socket:
/// GraphQL over WebSocket (`graphql-transport-ws`'s `subscribe`/`next`/`complete`/`error`, the
/// legacy `graphql-ws`'s `start`/`data`/`complete`/`stop`), JSON-RPC 2.0 (a request's `id`, its
/// response's `id`) and Socket.IO (an event with an acknowledgement id, `42N[...]`, and its
/// acknowledgement, `43N[...]`). A message that belongs to no operation (`connection_init`, a
/// ping, a notification, an event without acknowledgement) has none.
///
/// Only what the protocols define is read, so a conversation of another protocol has no
/// operations at all and replays turn by turn as before.
package struct MessageOperation: Sendable, Equatable {
    package enum Kind: String, Sendable, Equatable {
        case graphQL, jsonRPC, socketIO
    }

    package let kind: Kind
    /// The operation's id as the client chose it: a JSON scalar (`s:` and a string, `n:` and a
    /// number as written), or a Socket.IO packet's namespace and acknowledgement id.
    package let id: String
    /// Whether the message opens the operation (the client's `subscribe`, `start`, request or event).
    package let opens: Bool
    /// How listings name an opening message's operation (`subscription Countdown`, `rpc add`,
    /// `event add`); `nil` for the other messages.
    package let label: String?
    /// An opening GraphQL message's variables (`nil` when there are none), which tell variants apart.
    package let variables: JSONValue?
    /// The JSON a server message of the operation answers with: a GraphQL `next`/`data`'s
    /// `payload`, a JSON-RPC `result`, a Socket.IO acknowledgement's values.
    package let answer: JSONValue?

    /// The JSON path of the id in a GraphQL or JSON-RPC message, and `EchoedValues.ackPath` in a
    /// Socket.IO packet: where replay puts the live client's id.
    package var idPath: [JSONPathComponent] {
        kind == .socketIO ? EchoedValues.ackPath : [.key("id")]
    }

    /// `message`'s operation, when it belongs to one.
    package init?(_ message: ConversationMessage) {
        guard message.kind == .text, let first = message.payload.first else { return nil }
        if first == UInt8(ascii: "4") {
            self.init(socketIO: message)
        } else if first == UInt8(ascii: "{") {
            guard let object = (try? JSONValue(parsing: message.payload))?.objectValue else { return nil }
            if object["jsonrpc"]?.stringValue == "2.0" {
                self.init(jsonRPC: object, from: message.direction)
            } else {
                self.init(graphQL: object, from: message.direction)
            }
        } else {
            return nil
        }
    }

    private init(kind: Kind, id: String, opens: Bool, label: String? = nil, variables: JSONValue? = nil, answer: JSONValue? = nil) {
        self.kind = kind
        self.id = id
        self.opens = opens
        self.label = label
        self.variables = variables
        self.answer = answer
    }

    private static let graphQLOpening: Set<String> = ["subscribe", "start"]
    private static let graphQLClient: Set<String> = ["complete", "stop"]
    private static let graphQLServer: Set<String> = ["next", "data", "complete", "error"]

    private init?(graphQL object: JSONObject, from side: ConversationSide) {
        guard let type = object["type"]?.stringValue, let id = Self.scalar(object["id"]) else { return nil }
        switch side {
        case .client where Self.graphQLOpening.contains(type):
            let operation = object["payload"]?.objectValue.flatMap { GraphQLOperation($0) }
            self.init(kind: .graphQL, id: id, opens: true, label: operation?.label ?? "graphql \(type)", variables: operation?.variables)
        case .client where Self.graphQLClient.contains(type):
            self.init(kind: .graphQL, id: id, opens: false)
        case .server where Self.graphQLServer.contains(type):
            // `next` and `data` carry an execution result; `error` a list of errors.
            self.init(kind: .graphQL, id: id, opens: false, answer: type == "complete" ? nil : object["payload"])
        default:
            return nil
        }
    }

    private init?(jsonRPC object: JSONObject, from side: ConversationSide) {
        guard let id = Self.scalar(object["id"]) else { return nil }
        switch side {
        case .client:
            guard let method = object["method"]?.stringValue else { return nil }
            self.init(kind: .jsonRPC, id: id, opens: true, label: "rpc \(method)", variables: object["params"])
        case .server:
            guard object["method"] == nil, object["result"] != nil || object["error"] != nil else { return nil }
            self.init(kind: .jsonRPC, id: id, opens: false, answer: object["result"] ?? object["error"])
        }
    }

    private init?(socketIO message: ConversationMessage) {
        guard let packet = SocketIOPacket(message.payload), let ackID = packet.ackID else { return nil }
        let payload = message.payload
        let type = payload[payload.startIndex + 1]
        // The namespace (`/chat,`, empty for `/`) with the id: each namespace counts its own ids.
        let namespace = String(decoding: SocketIOPacket.slice(payload, 2..<packet.header.upperBound), as: UTF8.self)
        let id = namespace + String(decoding: SocketIOPacket.slice(payload, ackID), as: UTF8.self)
        let values = try? JSONValue(parsing: SocketIOPacket.slice(payload, packet.json))
        switch (message.direction, type) {
        case (.client, UInt8(ascii: "2")):
            guard let event = values?[0]?.stringValue else { return nil }
            let place = namespace.isEmpty ? "" : String(namespace.dropLast()) + " "
            let arguments = values?.arrayValue.map { JSONValue.array(Array($0.dropFirst())) }
            self.init(kind: .socketIO, id: id, opens: true, label: "event \(place)\(event)", variables: arguments)
        case (.server, UInt8(ascii: "3")):
            self.init(kind: .socketIO, id: id, opens: false, answer: values)
        default:
            // The server's events that ask the client for an acknowledgement are the server's
            // operations, which a replay answers in turn order.
            return nil
        }
    }

    /// A JSON id as a key: strings and numbers as written, so `1` and `"1"` stay apart.
    private static func scalar(_ value: JSONValue?) -> String? {
        switch value {
        case .string(let text): "s:" + text
        case .integer(let number): "n:\(number)"
        case .bigInteger(let text): "n:" + text
        case .number(let number): "n:\(number)"
        default: nil
        }
    }
}
