import GRPCCore
import GRPCNIOTransportHTTP2

/// shop.v1.Catalog (Tests/Peers/grpc/shop.proto) called through grpc-swift 2's `GRPCClient` with
/// method descriptors and `ProtoMessageCoder`: the four kinds of call, each answered as a
/// `GRPCCallOutcome` whether it succeeded or not.
struct ShopClient {
    static let service = "shop.v1.Catalog"
    let client: GRPCClient<HTTP2ClientTransport.Posix>

    /// Runs `body` with a client of the h2c (plaintext HTTP/2) server at 127.0.0.1:`port`; with
    /// `gzip` it compresses its messages and accepts compressed ones.
    static func with<Result: Sendable>(port: Int, gzip: Bool = false, _ body: (ShopClient) async throws -> Result) async throws -> Result {
        let config = HTTP2ClientTransport.Posix.Config.defaults { config in
            if gzip { config.compression = .init(algorithm: .gzip, enabledAlgorithms: .gzip) }
        }
        let transport = try HTTP2ClientTransport.Posix(
            target: .ipv4(address: "127.0.0.1", port: port), transportSecurity: .plaintext, config: config)
        return try await withGRPCClient(transport: transport) { client in
            try await body(ShopClient(client: client))
        }
    }

    private static func descriptor(_ method: String, service: String = service) -> MethodDescriptor {
        MethodDescriptor(fullyQualifiedService: service, method: method)
    }

    private var options: CallOptions {
        var options = CallOptions.defaults
        options.timeout = .seconds(10)
        return options
    }

    func unary(_ method: String, service: String = service, _ request: ProtoMessage, metadata: Metadata = [:]) async -> GRPCCallOutcome {
        await outcome {
            try await client.unary(
                request: ClientRequest(message: request, metadata: metadata), descriptor: Self.descriptor(method, service: service),
                serializer: ProtoMessageCoder(), deserializer: ProtoMessageCoder(), options: options
            ) { response in
                var outcome = GRPCCallOutcome()
                switch response.accepted {
                case .success(let contents):
                    outcome.metadata = contents.metadata
                    switch contents.message {
                    case .success(let message):
                        outcome.messages = [message]
                        outcome.trailingMetadata = contents.trailingMetadata
                    case .failure(let error):
                        outcome.fail(with: error)
                    }
                case .failure(let error):
                    outcome.fail(with: error)
                }
                return outcome
            }
        }
    }

    func clientStreaming(_ method: String, _ requests: [ProtoMessage]) async -> GRPCCallOutcome {
        await outcome {
            try await client.clientStreaming(
                request: StreamingClientRequest { writer in try await writer.write(contentsOf: requests) },
                descriptor: Self.descriptor(method), serializer: ProtoMessageCoder(), deserializer: ProtoMessageCoder(), options: options
            ) { response in
                var outcome = GRPCCallOutcome()
                switch response.accepted {
                case .success(let contents):
                    outcome.metadata = contents.metadata
                    switch contents.message {
                    case .success(let message):
                        outcome.messages = [message]
                        outcome.trailingMetadata = contents.trailingMetadata
                    case .failure(let error):
                        outcome.fail(with: error)
                    }
                case .failure(let error):
                    outcome.fail(with: error)
                }
                return outcome
            }
        }
    }

    func serverStreaming(_ method: String, _ request: ProtoMessage) async -> GRPCCallOutcome {
        await outcome {
            try await client.serverStreaming(
                request: ClientRequest(message: request), descriptor: Self.descriptor(method),
                serializer: ProtoMessageCoder(), deserializer: ProtoMessageCoder(), options: options
            ) { response in try await Self.collect(response) }
        }
    }

    func bidirectional(_ method: String, _ requests: [ProtoMessage]) async -> GRPCCallOutcome {
        await outcome {
            try await client.bidirectionalStreaming(
                request: StreamingClientRequest { writer in try await writer.write(contentsOf: requests) },
                descriptor: Self.descriptor(method), serializer: ProtoMessageCoder(), deserializer: ProtoMessageCoder(), options: options
            ) { response in try await Self.collect(response) }
        }
    }

    /// Every message and the trailers of a streamed response; an error status ends it.
    private static func collect(_ response: StreamingClientResponse<ProtoMessage>) async throws -> GRPCCallOutcome {
        var outcome = GRPCCallOutcome()
        switch response.accepted {
        case .success(let contents):
            outcome.metadata = contents.metadata
            do {
                for try await part in contents.bodyParts {
                    switch part {
                    case .message(let message): outcome.messages.append(message)
                    case .trailingMetadata(let trailers): outcome.trailingMetadata = trailers
                    }
                }
            } catch let error as RPCError {
                outcome.fail(with: error)
            }
        case .failure(let error):
            outcome.fail(with: error)
        }
        return outcome
    }

    /// The call's outcome, an `RPCError` thrown before any response included.
    private func outcome(_ call: () async throws -> GRPCCallOutcome) async -> GRPCCallOutcome {
        do {
            return try await call()
        } catch let error as RPCError {
            var outcome = GRPCCallOutcome()
            outcome.fail(with: error)
            return outcome
        } catch {
            var outcome = GRPCCallOutcome()
            outcome.code = .unknown
            outcome.statusMessage = "not an RPCError: \(error)"
            return outcome
        }
    }
}
