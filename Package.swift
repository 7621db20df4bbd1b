// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "WellPlateNetworking",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "WellPlateNetworking", targets: ["WellPlateNetworking"]),
        .library(name: "CassetteTesting", targets: ["CassetteTesting"]),
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
        // The library deliberately has no SwiftNIO dependency: apps embed it,
        // and the server side lives with the command-line tool.
        .target(
            name: "WellPlateNetworking",
            dependencies: [
                "CCurl",
                "CSQLite",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ]
        ),
        // Cassettes inside Swift Testing tests (the `.cassette` trait, `CassetteURLProtocol`): a
        // separate product so the library itself never links the Testing module.
        .target(
            name: "CassetteTesting",
            dependencies: ["WellPlateNetworking"]
        ),
        .executableTarget(
            name: "cassette",
            dependencies: [
                "WellPlateNetworking",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOFoundationCompat", package: "swift-nio"),
                .product(name: "NIOExtras", package: "swift-nio-extras"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Yams", package: "Yams"),
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
        .testTarget(
            name: "WellPlateNetworkingTests",
            dependencies: [
                "WellPlateNetworking",
                "CassetteTesting",
                "CSQLite",
                // Listed so `swift test` builds the binaries the tests start as child processes.
                "cassette",
                "SampleAPI",
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
