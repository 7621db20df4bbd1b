// swift-tools-version:6.0
import PackageDescription

// Benchmarks live in their own package so they stay out of the product, the test suite and CI;
// they build in release mode against the project at "..". Run them with Benchmarks/run.sh.
let nioHTTP: [Target.Dependency] = [
    .product(name: "NIOCore", package: "swift-nio"),
    .product(name: "NIOPosix", package: "swift-nio"),
    .product(name: "NIOHTTP1", package: "swift-nio"),
]

let package = Package(
    name: "Benchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "WellPlateNetworking", path: ".."),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
    ],
    targets: [
        // The HTTP server setup the benchmark's own servers share.
        .target(
            name: "BenchServer",
            dependencies: nioHTTP
        ),
        // Store generation, scale, in-process and schema measurements.
        .executableTarget(
            name: "bench-tool",
            dependencies: [
                .product(name: "WellPlateNetworking", package: "WellPlateNetworking"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ]
        ),
        // The baseline: a minimal SwiftNIO server returning the same bytes as the replay proxy.
        .executableTarget(
            name: "bench-baseline",
            dependencies: ["BenchServer", .product(name: "WellPlateNetworking", package: "WellPlateNetworking")] + nioHTTP
        ),
        // A ceiling for the record benchmark: a minimal SwiftNIO reverse proxy, nothing stored.
        .executableTarget(
            name: "bench-nio-proxy",
            dependencies: ["BenchServer"] + nioHTTP
        ),
    ],
    swiftLanguageModes: [.v6]
)
