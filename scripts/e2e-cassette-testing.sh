#!/usr/bin/env bash
# End-to-end check of the CassetteTesting product as a user meets it: a scratch package outside
# this repository depends on it by path and tests the sample API through the .cassette trait,
# with both Cassette.current.client and Cassette.current.urlSession.
#   run 1: the sample API is up, nothing recorded yet: the tests pass and record.
#   run 2: the sample API is stopped and CI=1: the tests pass from the recordings alone.
#   run 3: a test with a request never recorded is added: it fails with the miss explanation.
# Its own build takes minutes (the library compiled from scratch), so scripts/test.sh runs it
# after `swift test` rather than from inside the suite. Prints the build time.
set -euo pipefail
cd "$(dirname "$0")/.."
root="$PWD"
source scripts/lib.sh
# SAMPLE_API_BIN: an already built sample-api (saves building it when checking a copy of the tree).
sample_api="${SAMPLE_API_BIN:-$(build_products sample-api)/sample-api}"
open_workspace

package="$work/CassetteConsumer"
mkdir -p "$package/Sources/CassetteConsumer" "$package/Tests/CassetteConsumerTests"
cat >"$package/Package.swift" <<EOF
// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "CassetteConsumer",
    platforms: [.macOS(.v15)],
    dependencies: [.package(path: "$root")],
    targets: [
        .target(name: "CassetteConsumer"),
        .testTarget(
            name: "CassetteConsumerTests",
            dependencies: [
                "CassetteConsumer",
                .product(name: "CassetteTesting", package: "$(basename "$root")"),
                .product(name: "WellPlateNetworking", package: "$(basename "$root")"),
            ]
        ),
    ]
)
EOF
cat >"$package/Sources/CassetteConsumer/User.swift" <<'EOF'
import Foundation

public struct User: Codable, Sendable {
    public let id: Int
    public let name: String
    public let email: String
    public let createdAt: Date
}
EOF
cat >"$package/Tests/CassetteConsumerTests/SampleAPITests.swift" <<'EOF'
import CassetteConsumer
import CassetteTesting
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
import WellPlateNetworking

let base = URL(string: ProcessInfo.processInfo.environment["SAMPLE_API_URL"] ?? "http://127.0.0.1:9")!

@Suite(.cassette)
struct SampleAPITests {
    @Test func readsAUserThroughTheClient() async throws {
        let user = try await Cassette.current.client.get(url: base.appending(path: "api/users/1"), responseType: User.self)
        #expect(user.name == "Ada Lovelace")
    }

    @Test func createsAUserThroughURLSession() async throws {
        var request = URLRequest(url: base.appending(path: "api/users"))
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = Data(#"{"name":"Grace Hopper","email":"grace@example.com"}"#.utf8)
        let (data, response) = try await Cassette.current.urlSession.data(for: request)
        #expect((response as? HTTPURLResponse)?.statusCode == 201)
        #expect(try JSONCoding.decode(User.self, from: data).name == "Grace Hopper")
    }

    // Checks the recordings, so only once they exist (the recording run is parallel).
    @Test(.enabled(if: ProcessInfo.processInfo.environment["CI"] != nil))
    func everyRecordedUserDecodes() async throws {
        try await Cassette.decodeAll(User.self, endpoint: "GET /api/users/{id}", store: Cassette.current.storePath)
    }
}
EOF

swift_test() {
    # No CI or CASSETTE_* from the caller's environment: each run sets exactly what it tests.
    env -u CI -u CASSETTE_RECORD -u CASSETTE_DB "$@" swift test --package-path "$package" --scratch-path "$package/.build" 2>&1
}

started=$(date +%s)
swift build --package-path "$package" --scratch-path "$package/.build" --build-tests >"$work/build.log" 2>&1 || { cat "$work/build.log"; exit 1; }
build_seconds=$(( $(date +%s) - started ))
echo "scratch package built in ${build_seconds} s"

read -r api_pid api_url < <(start_server "$work/api.log" "$sample_api" --port 0)
pids+=("$api_pid")
swift_test SAMPLE_API_URL="$api_url" >"$work/run1.log" || { cat "$work/run1.log"; echo "run 1 (recording) failed" >&2; exit 1; }
store="$package/Tests/__Cassettes__/CassetteConsumerTests.db"
[[ -s "$store" ]] || { echo "run 1 did not create $store" >&2; exit 1; }
echo "run 1: recorded into $store"

stop_server "$api_pid"
swift_test SAMPLE_API_URL="$api_url" CI=1 >"$work/run2.log" || { cat "$work/run2.log"; echo "run 2 (CI=1, API stopped) failed" >&2; exit 1; }
echo "run 2: passed from the recordings with the API stopped and CI=1"

cat >"$package/Tests/CassetteConsumerTests/NeverRecordedTests.swift" <<'EOF'
import CassetteConsumer
import CassetteTesting
import Testing
import WellPlateNetworking

@Test(.cassette("SampleAPITests/readsAUserThroughTheClient()"))
func readsAnotherUser() async throws {
    _ = try await Cassette.current.client.get(url: base.appending(path: "api/users/2"), responseType: User.self)
}
EOF
if swift_test SAMPLE_API_URL="$api_url" CI=1 >"$work/run3.log"; then
    cat "$work/run3.log"; echo "run 3 passed, but its request was never recorded" >&2; exit 1
fi
expected='No recording of GET /api/users/2 in cassette "SampleAPITests/readsAUserThroughTheClient()"'
grep -F "$expected" "$work/run3.log" | grep -q "nearest: GET /api/users/1" || {
    cat "$work/run3.log"; echo "run 3 failed without the miss explanation" >&2; exit 1
}
echo "run 3: failed with the miss explanation:"
grep -F "$expected" "$work/run3.log" | head -n1
echo "e2e-cassette-testing: ok (scratch package build ${build_seconds} s)"
