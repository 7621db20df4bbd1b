import Foundation

/// Section 2 of the report, record overhead: each figure beside the direct-to-upstream figure of
/// the same round (rounds alternate direct and recorded runs, so a ratio shares its round's noise).
/// Used by the full report and on its own (`bench-tool record-report`, `SECTIONS="2"`).
enum RecordReport {
    static func section(directory: String, duration: String) throws -> String {
        func rounds(_ name: String) throws -> [Report.WrkResult] {
            var results: [Report.WrkResult] = []
            for round in 1... {
                let file = directory + "/\(name)-\(round).wrk"
                guard FileManager.default.fileExists(atPath: file) else { break }
                results.append(try Report.parseWrk(String(contentsOfFile: file, encoding: .utf8)))
            }
            return results
        }
        let directC1 = try rounds("direct-c1"), recordC1 = try rounds("record-c1")
        let directC64 = try rounds("direct-c64"), recordC64 = try rounds("record-c64")
        let count = min(directC1.count, recordC1.count, directC64.count, recordC64.count)
        guard count > 0 else { return "## 2. Record overhead\n\nNo rounds were measured.\n\n" }
        let added = (0..<count).map { recordC1[$0].p50 - directC1[$0].p50 }
        let ratiosC1 = (0..<count).map { recordC1[$0].requestsPerSecond / directC1[$0].requestsPerSecond }
        let ratiosC64 = (0..<count).map { recordC64[$0].requestsPerSecond / directC64[$0].requestsPerSecond }
        let addedC64 = (0..<count).map { recordC64[$0].p50 - directC64[$0].p50 }
        let recorded =
            (try? Data(contentsOf: URL(fileURLWithPath: directory + "/recorded-count.json")))
            .flatMap { try? JSONSerialization.jsonObject(with: $0) as? [String: Any] }?["interactions"] ?? 0
        func m(_ results: [Report.WrkResult], _ value: (Report.WrkResult) -> Double) -> Double { median(results.prefix(count).map(value)) }

        var out = "## 2. Record overhead\n\n"
        out +=
            "`cassette record --mode all` in front of `bench-baseline` serving 300 small recordings; every request is forwarded through libcurl and committed to SQLite (group commit: requests that complete while a transaction is written share the next one) before it is answered (\(recorded) rows recorded in total). Medians of \(count) round(s); ratios and differences are taken within each round.\n\n"
        out += "| load | straight to upstream | through `cassette record` | same-round ratio or difference |\n|---|---:|---:|---:|\n"
        out += "| 1 connection, p50 | \(Report.ms(m(directC1, \.p50))) | \(Report.ms(m(recordC1, \.p50))) | +\(Report.ms(median(added))) |\n"
        out +=
            "| 1 connection, requests/s | \(Report.int(m(directC1, \.requestsPerSecond))) | \(Report.int(m(recordC1, \.requestsPerSecond))) | \(Report.pct(median(ratiosC1))) |\n"
        out +=
            "| 64 connections, requests/s | \(Report.int(m(directC64, \.requestsPerSecond))) | \(Report.int(m(recordC64, \.requestsPerSecond))) | \(Report.pct(median(ratiosC64))) |\n"
        out += "| 64 connections, p50 | \(Report.ms(m(directC64, \.p50))) | \(Report.ms(m(recordC64, \.p50))) | +\(Report.ms(median(addedC64))) |\n\n"
        out +=
            "Record `--mode all` at 64 connections: **\(Report.pct(median(ratiosC64)))** of direct requests/s (rounds: \(ratiosC64.map(Report.pct).joined(separator: ", ")); target ≥ 50%: \(Report.verdict(median(ratiosC64) >= 0.5))). "
        out +=
            "Added median latency at 1 connection: **\(Report.ms(median(added)))** (rounds: \(added.map(Report.ms).joined(separator: ", ")); target < 0.5 ms: \(Report.verdict(median(added) < 0.5))).\n\n"
        out += ceilings(rounds: rounds, directC1: directC1, directC64: directC64, recordC1: recordC1, recordC64: recordC64)
        out += "```bash\n"
        out += "bench-baseline UPSTREAM.db                                   # the upstream, on a free port\n"
        out += "cassette record --upstream http://127.0.0.1:UP --mode all --db recorded.db --port 0\n"
        out += "wrk -t1 -c1 -d\(duration)s --latency -s Benchmarks/paths.lua http://127.0.0.1:UP    # direct, 1 connection\n"
        out += "wrk -t1 -c1 -d\(duration)s --latency -s Benchmarks/paths.lua http://127.0.0.1:REC   # through cassette record\n"
        out += "wrk -t2 -c64 -d\(duration)s --latency -s Benchmarks/paths.lua http://127.0.0.1:UP   # direct, 64 connections\n"
        out += "wrk -t2 -c64 -d\(duration)s --latency -s Benchmarks/paths.lua http://127.0.0.1:REC  # through cassette record\n"
        out +=
            "cassette replay --on-miss passthrough --upstream http://127.0.0.1:UP --db forward.db --cassette forward --port 0   # forwarding alone (no benchmark path is in the cassette)\n"
        out +=
            "bench-nio-proxy UP                     # a minimal SwiftNIO reverse proxy: one keep-alive upstream connection per client, parts relayed on one event loop\n"
        out += "nginx -c Benchmarks/nginx-proxy.conf   # a reverse proxy in C, keep-alive to the upstream; all three measured like the recorder\n"
        out += "```\n\n"
        return out
    }

    /// What forwarding alone costs on this machine, in the same rounds: through cassette without
    /// a store (libcurl), through a minimal SwiftNIO proxy, and through nginx. Recording cannot
    /// beat the first; the second bounds a proxy built on SwiftNIO's HTTP codecs, as the
    /// recorder's server side is; the third is what a proxy written in C reaches where wrk, the
    /// upstream and the proxy share the cores.
    private static func ceilings(
        rounds: (String) throws -> [Report.WrkResult], directC1: [Report.WrkResult], directC64: [Report.WrkResult], recordC1: [Report.WrkResult],
        recordC64: [Report.WrkResult]
    ) -> String {
        let forwardC1 = (try? rounds("forward-c1")) ?? [], forwardC64 = (try? rounds("forward-c64")) ?? []
        let nginxC1 = (try? rounds("nginx-c1")) ?? [], nginxC64 = (try? rounds("nginx-c64")) ?? []
        let nioC1 = (try? rounds("nio-c1")) ?? [], nioC64 = (try? rounds("nio-c64")) ?? []
        guard !forwardC64.isEmpty else { return "" }
        func added(_ proxy: [Report.WrkResult]) -> String {
            let count = min(proxy.count, directC1.count)
            return count == 0 ? "—" : "+" + Report.ms(median((0..<count).map { proxy[$0].p50 - directC1[$0].p50 }))
        }
        func ratio(_ proxy: [Report.WrkResult]) -> Double? {
            let count = min(proxy.count, directC64.count)
            return count == 0 ? nil : median((0..<count).map { proxy[$0].requestsPerSecond / directC64[$0].requestsPerSecond })
        }
        func share(_ proxy: [Report.WrkResult]) -> String {
            ratio(proxy).map(Report.pct) ?? "—"
        }
        var out = "Forwarding alone, in the same rounds (medians of same-round figures):\n\n"
        out +=
            "| | nginx 1.22 as a reverse proxy | minimal SwiftNIO proxy (`bench-nio-proxy`, nothing stored) | `cassette replay --on-miss passthrough` (libcurl, nothing stored) | `cassette record --mode all` |\n|---|---:|---:|---:|---:|\n"
        out += "| 1 connection, added p50 | \(added(nginxC1)) | \(added(nioC1)) | \(added(forwardC1)) | \(added(recordC1)) |\n"
        out += "| 64 connections, % of direct requests/s | \(share(nginxC64)) | \(share(nioC64)) | \(share(forwardC64)) | \(share(recordC64)) |\n\n"
        if let nioShare = ratio(nioC64) {
            out +=
                "A minimal SwiftNIO reverse proxy (NIO's HTTP codecs both ways, one keep-alive upstream connection per client on the client's event loop, nothing stored) reaches **\(Report.pct(nioShare))** of direct requests/s at 64 connections in the same rounds: "
            out +=
                nioShare < 0.5
                ? "below the 50% target with nothing forwarded through libcurl and nothing stored, so on this machine the target is out of reach for a recorder built on SwiftNIO's HTTP server.\n\n"
                : "the target is within reach of a SwiftNIO server here; what the recorder adds beyond it is libcurl's thread and the store.\n\n"
        }
        return out
    }
}
