// swift-tools-version:6.0
import PackageDescription

let nioHTTP: [Target.Dependency] = [
    .product(name: "NIOCore", package: "swift-nio"),
    .product(name: "NIOPosix", package: "swift-nio"),
    .product(name: "NIOHTTP1", package: "swift-nio"),
]

/// `WELLPLATE_NO_CURL=1` builds the library and `CassetteTesting` as they build where libcurl does
/// not exist (iOS, tvOS, watchOS, visionOS), with URLSession as their only transport, so that build
/// is proven on Linux; the command-line tool, the proxy and their tests need libcurl and are left out.
let withoutCurl = Context.environment["WELLPLATE_NO_CURL"] == "1"
/// libcurl only on the platforms that ship it.
let curl: [Target.Dependency] = withoutCurl ? [] : [.target(name: "CCurl", condition: .when(platforms: [.linux, .macOS]))]

let package = Package(
    name: "WellPlateNetworking",
    // Where `Synchronization` (Mutex, Atomic) and Swift Testing's traits exist.
    platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],
    products: [
        .library(name: "WellPlateNetworking", targets: ["WellPlateNetworking"]),
        .library(name: "CassetteTesting", targets: ["CassetteTesting"]),
        .library(name: "CassetteControl", targets: ["CassetteControl"]),
        .executable(name: "cassette", targets: ["cassette"]),
        .executable(name: "sample-api", targets: ["SampleAPI"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-extras.git", from: "1.35.2"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
        // YAML output of `cassette openapi` only; the library never depends on it.
        .package(url: "https://github.com/jpsim/Yams.git", from: "6.2.2"),
        .package(url: "https://github.com/swiftlang/swift-subprocess.git", from: "1.0.2"),
        // The forward proxy's TLS interception only (`cassette record --forward`): the proxy
        // target links them, the library never does.
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
        // HTTP/2 on every listener (prior knowledge beside HTTP/1.1, ALPN `h2` where cassette
        // terminates TLS): the kernel's connections and the modules that take streams over (gRPC).
        .package(url: "https://github.com/apple/swift-nio-http2.git", from: "1.46.0"),
        .package(url: "https://github.com/apple/swift-certificates.git", from: "1.21.1"),
        .package(url: "https://github.com/apple/swift-asn1.git", from: "1.7.4"),
        // SHA-256 and HMAC everywhere, the core included (on Apple's platforms a shim over
        // CryptoKit), and the forward proxy's keys and certificates.
        .package(url: "https://github.com/apple/swift-crypto.git", "3.12.3"..<"5.0.0"),
        // WebSocket permessage-deflate (RFC 7692) in the proxy only: zlib's raw deflate streams.
        .package(url: "https://github.com/adam-fowler/compress-nio.git", from: "1.5.0"),
        // A real grpc-swift 2 client in front of the proxy, in GRPCSwiftPeerTests only: no other
        // target links it.
        .package(url: "https://github.com/grpc/grpc-swift-2.git", from: "2.4.3"),
        .package(url: "https://github.com/grpc/grpc-swift-nio-transport.git", from: "2.9.2"),
    ],
    targets: [
        .systemLibrary(
            name: "CCurl",
            pkgConfig: "libcurl",
            providers: [.apt(["libcurl4-openssl-dev"])]
        ),
        .systemLibrary(
            name: "CSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]
        ),
        // The core: HTTP framing rules, JSON, keys, redaction, the transport protocols, the store
        // and all of its SQL, the cassette session and replay index. No SwiftNIO, no libcurl: every
        // other target builds on it, and apps get it through `WellPlateNetworking`.
        .target(
            name: "WellPlateCore",
            dependencies: [
                "CSQLite",
                .product(name: "HTTPTypes", package: "swift-http-types"),
                // SHA-256 of request bodies and HMAC of learned secrets: the same swift-crypto the
                // UI and the forward proxy use (CryptoKit underneath on Apple's platforms).
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        // What apps link: the clients, configuration, mocks, the libcurl transport and the
        // recording/replay transports. It deliberately has no SwiftNIO dependency and none on the
        // tools: an app never carries the command-line tool's code.
        .target(
            name: "WellPlateNetworking",
            dependencies: [
                "WellPlateCore",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ] + curl
        ),
        // The client of a running proxy's sessions, for test runners that drive the app in another
        // process (XCUITest, end-to-end tests): Foundation only, so any test target can link it.
        .target(name: "CassetteControl"),
        // Cassettes inside Swift Testing tests (the `.cassette` trait, `CassetteURLProtocol`, and
        // proxy sessions named after the test): a separate product so the library itself never
        // links the Testing module.
        .target(
            name: "CassetteTesting",
            dependencies: ["WellPlateNetworking", "WellPlateCore", "CassetteControl"]
        ),
        // What the command-line tool does that is not about the command line: audit, HAR,
        // dump/merge, codegen, OpenAPI, schema and drift, cassette.json, fixture export.
        .target(
            name: "CassetteTools",
            dependencies: [
                "WellPlateCore",
                "WellPlateNetworking",
                .product(name: "HTTPTypes", package: "swift-http-types"),
                // SHA-256 for `cassette dump` and the names of long GraphQL variants.
                .product(name: "Crypto", package: "swift-crypto"),
                // YAML output of `cassette openapi` only.
                .product(name: "Yams", package: "Yams"),
            ]
        ),
        // The web UI's pages, the JSON it reads from a store, and the self-contained HTML report:
        // Foundation, the core and a SHA-256 for the report's policy. The page, stylesheet and
        // script are files of their own, compiled into the binary so it needs no resource bundle.
        .target(
            name: "CassetteUI",
            dependencies: [
                "WellPlateCore",
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            resources: [
                .embedInCode("Assets/index.html"),
                .embedInCode("Assets/app.css"),
                .embedInCode("Assets/app.js"),
            ]
        ),
        // The proxy is a small server kernel with protocols as modules (docs/architecture.md).
        // The kernel: listeners, the one HTTP/1.1 pipeline set-up and HTTP/2 beside it (streams
        // answered by the same handler, or taken over by a module), the connection state machine,
        // the one answer type and its writer, lingering close, the request log, and the two
        // registries modules plug into (control endpoints, protocol switches). It knows nothing
        // of cassettes, sessions, WebSocket, the UI or TLS interception.
        .target(
            name: "CassetteKernel",
            dependencies: nioHTTP + [
                "WellPlateCore",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOExtras", package: "swift-nio-extras"),
                .product(name: "NIOHTTP2", package: "swift-nio-http2"),
                // Prepared replay heads keep their HTTP/2 header block, built once.
                .product(name: "NIOHPACK", package: "swift-nio-http2"),
                // ALPN's choice between `h2` and `http/1.1` where cassette terminates TLS.
                .product(name: "NIOTLS", package: "swift-nio"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ]
        ),
        // Serving a cassette over the kernel: `ServedCassette`, the serving policy's decision,
        // replay preparation, forwarding and recording, upstream URLs, sessions, and the
        // responder the kernel is given. No WebSocket, no UI, no TLS interception.
        .target(
            name: "CassetteServing",
            dependencies: nioHTTP + [
                "CassetteKernel",
                "WellPlateCore",
                "WellPlateNetworking",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOFoundationCompat", package: "swift-nio"),
                // Client TLS towards the upstreams libcurl does not reach (WebSocket, gRPC).
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                // The HTTP/2 stream switches its protocol modules offer (gRPC).
                .product(name: "NIOHTTP2", package: "swift-nio-http2"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ]
        ),
        // WebSocket conversations: both upgraders (a protocol switch of the kernel), frames,
        // permessage-deflate, the relay and recorder, the turn-by-turn replay.
        .target(
            name: "CassetteWebSocket",
            dependencies: nioHTTP + [
                "CassetteKernel",
                "CassetteServing",
                "WellPlateCore",
                "WellPlateNetworking",
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "CompressNIO", package: "compress-nio"),
                // `wss://` upstreams.
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ]
        ),
        // gRPC calls as a protocol module: the HTTP/2 streams it takes over, the upstream's h2c or
        // h2-over-TLS client (libcurl cannot relay client and bidirectional streams with their trailers),
        // the recorder, the turn-by-turn replay, gzip per message.
        .target(
            name: "CassetteGRPC",
            dependencies: nioHTTP + [
                "CassetteKernel",
                "CassetteServing",
                "WellPlateCore",
                "WellPlateNetworking",
                .product(name: "NIOHTTP2", package: "swift-nio-http2"),
                .product(name: "NIOHPACK", package: "swift-nio-http2"),
                .product(name: "CompressNIO", package: "compress-nio"),
                // h2 over TLS towards `https://` upstreams (ALPN `h2`).
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOTLS", package: "swift-nio"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // `--forward`: CONNECT, tunnels, TLS towards clients with certificates from a local authority.
        .target(
            name: "CassetteForward",
            dependencies: nioHTTP + [
                "CassetteKernel",
                "CassetteServing",
                "WellPlateCore",
                "WellPlateNetworking",
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOTLS", package: "swift-nio"),
                // The upgrade error of a WebSocket handshake in absolute form that its host declines.
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        // The web UI served by the kernel: its control endpoint, the Live view's feed, the token
        // off loopback; `cassette ui` is the kernel plus this module.
        .target(
            name: "CassetteUIServer",
            dependencies: [
                "CassetteKernel",
                "CassetteUI",
                "WellPlateCore",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ]
        ),
        // The proxy as `record`, `replay` and `run` start it: the kernel and the modules put
        // together (`ProxyRunner`). No tool code: it reports through its request log and the
        // `Logger` its caller passes in, and throws `ProxyError`.
        .target(
            name: "CassetteProxy",
            dependencies: nioHTTP + [
                "CassetteKernel",
                "CassetteServing",
                "CassetteWebSocket",
                "CassetteGRPC",
                "CassetteForward",
                "CassetteUIServer",
                "WellPlateCore",
                "WellPlateNetworking",
                "CassetteUI",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // The command-line tool: ArgumentParser commands and flags only.
        .executableTarget(
            name: "cassette",
            dependencies: [
                "WellPlateCore",
                "WellPlateNetworking",
                "CassetteTools",
                "CassetteProxy",
                "CassetteKernel",
                "CassetteServing",
                "CassetteForward",
                "CassetteUIServer",
                "CassetteUI",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Subprocess", package: "swift-subprocess"),
            ]
        ),
        // The WellPlate backend stand-in used by the tests, the demo and the benchmarks.
        .executableTarget(
            name: "SampleAPI",
            dependencies: [
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOHTTPCompression", package: "swift-nio-extras"),
            ]
        ),
        // Benchmarks (Benchmarks/run.sh builds them in release mode; no product ships them). They
        // are targets of this package because they measure its `package` internals (the replay
        // index, the store's batch writes, the audit scan).
        .target(
            name: "BenchServer",
            dependencies: nioHTTP,
            path: "Benchmarks/Sources/BenchServer"
        ),
        // Store generation, scale, in-process and schema measurements.
        .executableTarget(
            name: "bench-tool",
            dependencies: [
                "WellPlateCore", "WellPlateNetworking", "CassetteTools",
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
            path: "Benchmarks/Sources/bench-tool"
        ),
        // The baseline: a minimal SwiftNIO server returning the same bytes as the replay proxy.
        .executableTarget(
            name: "bench-baseline",
            dependencies: ["BenchServer", "WellPlateCore"] + nioHTTP,
            path: "Benchmarks/Sources/bench-baseline"
        ),
        // A ceiling for the record benchmark: a minimal SwiftNIO reverse proxy, nothing stored.
        .executableTarget(
            name: "bench-nio-proxy",
            dependencies: ["BenchServer"] + nioHTTP,
            path: "Benchmarks/Sources/bench-nio-proxy"
        ),
        // The WebSocket benchmark's peers: a minimal SwiftNIO echo server (the baseline) and a load client.
        .executableTarget(
            name: "bench-websocket",
            dependencies: nioHTTP + [.product(name: "NIOWebSocket", package: "swift-nio")],
            path: "Benchmarks/Sources/bench-websocket"
        ),
        // The gRPC benchmark's baseline and upstream: a minimal swift-nio-http2 server answering one unary call.
        .executableTarget(
            name: "bench-grpc",
            dependencies: ["BenchServer"] + nioHTTP + [
                .product(name: "NIOHTTP2", package: "swift-nio-http2"), .product(name: "NIOHPACK", package: "swift-nio-http2"),
            ],
            path: "Benchmarks/Sources/bench-grpc"
        ),
        // The REST-over-HTTP/2 benchmark's ceiling: minimal NIOHTTP1 and swift-nio-http2 servers answering replay's bytes.
        .executableTarget(
            name: "bench-rest-bare",
            dependencies: ["BenchServer"] + nioHTTP + [
                .product(name: "NIOHTTP2", package: "swift-nio-http2"), .product(name: "NIOHPACK", package: "swift-nio-http2"),
            ],
            path: "Benchmarks/Sources/bench-rest-bare"
        ),
        // Helpers every test target shares: child processes, upstreams, workspaces, raw sockets.
        .target(
            name: "TestSupport",
            dependencies: [
                "WellPlateCore",
                "WellPlateNetworking",
                "CassetteTools",
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            path: "Tests/TestSupport"
        ),
        // One test target per source target, mirroring its folders.
        .testTarget(
            name: "WellPlateCoreTests",
            dependencies: [
                "TestSupport", "WellPlateCore", "WellPlateNetworking", "CSQLite",
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        .testTarget(
            name: "WellPlateNetworkingTests",
            dependencies: ["TestSupport", "WellPlateCore", "WellPlateNetworking"] + curl
        ),
        .testTarget(
            name: "CassetteToolsTests",
            dependencies: ["TestSupport", "WellPlateCore", "WellPlateNetworking", "CassetteTools"]
        ),
        .testTarget(
            name: "CassetteProxyTests",
            dependencies: [
                "TestSupport", "WellPlateCore", "WellPlateNetworking", "CassetteTools", "CassetteProxy",
                "CassetteKernel", "CassetteServing", "CassetteWebSocket", "CassetteForward", "CassetteUIServer", "CassetteGRPC",
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOHTTP2", package: "swift-nio-http2"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                .product(name: "Crypto", package: "swift-crypto"),
                // Listed so `swift test` builds the binaries the tests start as child processes.
                "cassette", "SampleAPI",
            ]
        ),
        .testTarget(
            name: "CassetteUITests",
            dependencies: [
                "TestSupport", "WellPlateCore", "CassetteUI",
                .product(name: "HTTPTypes", package: "swift-http-types"),
                // Listed so `swift test` builds the binaries the browser tests start as child processes.
                "cassette", "SampleAPI",
            ],
            // The selenium scripts the browser tests run with python3, and the module they share.
            exclude: ["Browser"]
        ),
        .testTarget(
            name: "cassetteTests",
            dependencies: [
                "TestSupport", "WellPlateCore", "WellPlateNetworking", "CassetteTools", "CassetteProxy", "cassette", "SampleAPI",
                "CassetteKernel", "CassetteServing", "CassetteForward", "CassetteUIServer", "CassetteWebSocket",
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ]
                // The Swift WebSocket client that replays a conversation through `cassette replay`.
                + nioHTTP + [.product(name: "NIOWebSocket", package: "swift-nio")]
        ),
        .testTarget(
            name: "CassetteControlTests",
            dependencies: ["TestSupport", "WellPlateCore", "CassetteControl", "cassette", "SampleAPI"]
        ),
        .testTarget(
            name: "CassetteTestingTests",
            dependencies: ["TestSupport", "WellPlateCore", "WellPlateNetworking", "CassetteTesting", "SampleAPI"]
        ),
        .testTarget(
            name: "SampleAPITests",
            dependencies: ["TestSupport", "WellPlateCore", "WellPlateNetworking", "SampleAPI"]
        ),
        // grpc-swift 2 over h2c (grpc-swift-nio-transport) recorded through the proxy and replayed
        // with the upstream stopped: the one target that links grpc-swift.
        .testTarget(
            name: "GRPCSwiftPeerTests",
            dependencies: [
                "TestSupport", "WellPlateCore",
                .product(name: "GRPCCore", package: "grpc-swift-2"),
                .product(name: "GRPCNIOTransportHTTP2", package: "grpc-swift-nio-transport"),
                // Listed so `swift test` builds the binary the tests start as a child process.
                "cassette",
            ]
        ),
        // The loop as users meet it: the README's examples and the four clients, over the binaries.
        .testTarget(
            name: "EndToEndTests",
            dependencies: ["TestSupport", "WellPlateCore", "WellPlateNetworking", "CassetteTesting", "CassetteControl", "cassette", "SampleAPI"]
        ),
    ],
    swiftLanguageModes: [.v6]
)

if withoutCurl {
    // What builds without libcurl: the core, the library, CassetteControl, CassetteTesting, the sample API the tests
    // record from, and the library's and CassetteTesting's tests.
    let kept: Set<String> = [
        "CSQLite", "WellPlateCore", "WellPlateNetworking", "CassetteControl", "CassetteTesting", "CassetteTools", "SampleAPI", "TestSupport",
        "WellPlateNetworkingTests", "CassetteTestingTests",
    ]
    package.targets.removeAll { !kept.contains($0.name) }
    package.products.removeAll { $0.name == "cassette" }
    // The packages only the proxy's targets use: declared, they would each warn "not used by any target".
    let proxyOnly = ["swift-nio-http2", "swift-certificates", "swift-asn1", "compress-nio", "grpc-swift-2", "grpc-swift-nio-transport"]
    package.dependencies.removeAll { dependency in
        guard case .sourceControl(_, let location, _) = dependency.kind else { return false }
        return proxyOnly.contains { location.hasSuffix("/\($0).git") }
    }
}
