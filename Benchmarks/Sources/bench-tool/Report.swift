import Foundation

/// Turns the raw results of Benchmarks/run.sh into BENCHMARKS.md.
enum Report {
    struct WrkResult {
        var requestsPerSecond: Double
        var p50: Double
        var p99: Double
    }

    static func run(directory: String, duration: String, rounds: String) throws {
        func json(_ name: String) throws -> [String: Any] {
            let data = try Data(contentsOf: URL(fileURLWithPath: directory + "/" + name))
            return try JSONSerialization.jsonObject(with: data) as! [String: Any]
        }
        func wrk(_ prefix: String) throws -> WrkResult {
            let files = try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasPrefix(prefix + "-") && $0.hasSuffix(".wrk") }
            let parsed = try files.map { try parseWrk(String(contentsOfFile: directory + "/" + $0, encoding: .utf8)) }
            return WrkResult(requestsPerSecond: median(parsed.map(\.requestsPerSecond)), p50: median(parsed.map(\.p50)), p99: median(parsed.map(\.p99)))
        }
        let baseline = try wrk("baseline")
        let replay = try wrk("replay")
        // Rounds alternate baseline and replay, with one more baseline at the end: each replay
        // round is taken against the mean of the baseline rounds before and after it, so a steady
        // drift of the machine's speed over the pair cancels out.
        func pairedRatios(_ numerator: String, _ denominator: String, _ value: (WrkResult) -> Double) throws -> [Double] {
            func read(_ name: String, _ round: Int) throws -> Double? {
                let file = directory + "/\(name)-\(round).wrk"
                guard FileManager.default.fileExists(atPath: file) else { return nil }
                return value(try parseWrk(String(contentsOfFile: file, encoding: .utf8)))
            }
            var ratios: [Double] = []
            for round in 1... {
                guard let top = try read(numerator, round), let before = try read(denominator, round) else { break }
                let after = try read(denominator, round + 1)
                ratios.append(top / (after.map { (before + $0) / 2 } ?? before))
            }
            return ratios
        }
        let throughputRatios = try pairedRatios("replay", "baseline", \.requestsPerSecond)
        let p99Ratios = try pairedRatios("replay", "baseline", \.p99)
        let inprocess = try json("inprocess.json")
        let schema = try json("schema.json")
        let startup = try json("startup.json")

        var out = "# Benchmarks\n\n"
        out +=
            "Produced by `Benchmarks/run.sh` (release build, `wrk -t2 -c64 -d\(duration)s --latency`, \(rounds) alternating round(s), medians) on \(machine()), \(Date().formatted(.iso8601)).\n"
        out +=
            "Load generator and servers share the machine's cores, so every number sits beside a baseline measured in the same run; the ratios are what to compare across runs.\n\n"

        out += "## 1. Replay throughput and latency\n\n"
        out += "300 recordings of JSON lists of 200 B, 2 KB and 50 KB, requested in rotation (`Benchmarks/paths.lua`).\n\n"
        out += "| server | requests/s | p50 | p99 |\n|---|---:|---:|---:|\n"
        out +=
            "| baseline: minimal SwiftNIO server, same bytes (`bench-baseline`) | \(int(baseline.requestsPerSecond)) | \(ms(baseline.p50)) | \(ms(baseline.p99)) |\n"
        out += "| `cassette replay` | \(int(replay.requestsPerSecond)) | \(ms(replay.p50)) | \(ms(replay.p99)) |\n\n"
        let throughputRatio = median(throughputRatios)
        let p99Ratio = median(p99Ratios)
        out += "Each replay round runs between two baseline rounds and is compared with their mean. "
        out +=
            "Throughput ratio **\(pct(throughputRatio))** of the baseline (median of the rounds' ratios \(throughputRatios.map(pct).joined(separator: ", ")); target ≥ 90%: \(verdict(throughputRatio >= 0.9))); p99 ratio **\(fixed(p99Ratio))×** (rounds: \(p99Ratios.map(fixed).joined(separator: ", ")); target ≤ 2×: \(verdict(p99Ratio <= 2))).\n\n"
        if FileManager.default.fileExists(atPath: directory + "/onecore-replay-1.wrk") {
            // Per core: a proxy that scaled worse than the baseline would fall further behind it on every core than on one.
            let oneCore = try wrk("onecore-replay").requestsPerSecond / wrk("onecore-baseline").requestsPerSecond
            out +=
                "Both servers held to one core (`taskset -c 1`, one round): replay at **\(pct(oneCore))** of the baseline, against \(pct(throughputRatio)) on every core (target: no lower per core as cores are added: \(verdict(throughputRatio >= oneCore * 0.95))).\n\n"
        }

        out += try RecordReport.section(directory: directory, duration: duration)

        var openAt100k: Double?
        var openAtMillion: Double?
        var worstMemory = 0.0
        let scaleFiles = try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasPrefix("scale-") }.sorted {
            Int($0.dropFirst(6).dropLast(5))! < Int($1.dropFirst(6).dropLast(5))!
        }
        // Each file holds the runs of one store size, each in a fresh process: their medians.
        func scaleMedians(_ file: String) throws -> [String: Any] {
            let runs = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: directory + "/" + file))) as! [[String: Any]]
            var result = runs[0]
            for name in ["openSeconds", "memoryPerBodyByte", "replayLookupMicroseconds", "indexLookupMicroseconds"] {
                result[name] = median(runs.map { $0[name] as! Double })
            }
            result["residentBytesAdded"] = Int(median(runs.map { Double($0["residentBytesAdded"] as! Int) }))
            result["runs"] = runs.count
            return result
        }
        let scaleRuns = try scaleFiles.first.map { try scaleMedians($0)["runs"] as! Int } ?? 1
        out += "## 3. Scale\n\n"
        out +=
            "Stores of small JSON recordings (200 B to 1 KB), opened in a fresh process: `CassetteStore.open` + `CassetteSession.open` (the whole cassette loaded into the in-memory index). Medians of \(scaleRuns) fresh processes per size.\n\n"
        out +=
            "| interactions | open | resident memory added | body bytes | memory / body bytes | replay lookup (redact + key + index) | index lookup |\n|---:|---:|---:|---:|---:|---:|---:|\n"
        for file in scaleFiles {
            let scale = try scaleMedians(file)
            let count = scale["interactions"] as! Int
            let open = scale["openSeconds"] as! Double
            if count == 100_000 { openAt100k = open }
            let memory = scale["memoryPerBodyByte"] as! Double
            // Below 100,000 small recordings the fixed costs (SQLite's page cache, the process's
            // allocator arenas) dominate the ratio; the target is about large cassettes.
            if count >= 100_000 { worstMemory = max(worstMemory, memory) }
            if count == 1_000_000 { openAtMillion = open }
            out +=
                "| \(count) | \(fixed(open * 1000)) ms | \(mb(scale["residentBytesAdded"] as! Int)) | \(mb(scale["bodyBytes"] as! Int)) | \(fixed(memory))× | \(fixed(scale["replayLookupMicroseconds"] as! Double)) µs | \(fixed(scale["indexLookupMicroseconds"] as! Double)) µs |\n"
        }
        if let openAt100k {
            out +=
                "\nOpening 100,000 interactions: **\(fixed(openAt100k * 1000)) ms** (target < 500 ms: \(verdict(openAt100k < 0.5))). Memory at most **\(fixed(worstMemory))×** the body bytes from 100,000 interactions up (target about 2×: \(verdict(worstMemory <= 2.2))); smaller stores show a higher ratio because fixed costs (SQLite's page cache, allocator arenas) dominate a few megabytes.\n\n"
        }
        if let openAtMillion {
            out += "Opening 1,000,000 interactions: **\(fixed(openAtMillion))s** (target < 3 s: \(verdict(openAtMillion < 3))).\n\n"
        }

        var listeningAtMillion: Double?
        let proxyFiles = try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasPrefix("proxy-") }.sorted {
            Int($0.dropFirst(6).dropLast(5))! < Int($1.dropFirst(6).dropLast(5))!
        }
        if !proxyFiles.isEmpty {
            if openAt100k == nil { out += "\n" }
            out += "The whole `cassette replay --quiet` process on the same stores (index, answers prepared for writing, event loops, runtime):\n\n"
            out +=
                "| interactions | until `listening on` | resident memory | body bytes | memory / body bytes | `sqlite3` reading the same rows |\n|---:|---:|---:|---:|---:|---:|\n"
            for file in proxyFiles {
                let proxy = try json(file)
                let count = Int(file.dropFirst(6).dropLast(5))!
                let bodyBytes = try scaleMedians("scale-\(count).json")["bodyBytes"] as! Int
                let resident = proxy["residentBytes"] as! Int
                let raw = (try? json("raw-\(count).json"))?["rawReadSeconds"] as? Double
                out +=
                    "| \(count) | \(fixed(proxy["listeningSeconds"] as! Double * 1000)) ms | \(mb(resident)) | \(mb(bodyBytes)) | \(fixed(Double(resident) / Double(bodyBytes)))× | \(raw.map { fixed($0 * 1000) + " ms" } ?? "–") |\n"
                if count == 1_000_000 {
                    listeningAtMillion = proxy["listeningSeconds"] as? Double
                }
            }
            if let listeningAtMillion {
                out +=
                    "\n`cassette replay` listening on 1,000,000 interactions after **\(fixed(listeningAtMillion))s** (target < 5 s: \(verdict(listeningAtMillion < 5))).\n"
            }
            out +=
                "\nThe proxy holds each body once, in the buffers it writes from (the index shares them); the rest is the index, one prepared answer per recording, and the runtime's fixed cost.\n\n"
        }
        out += "## 4. In-process\n\n"
        out += "| measurement | per second | baseline in the same run | ratio |\n|---|---:|---:|---:|\n"
        out +=
            "| `ReplayAPIClient.get` (lookup + decode of the mixed recordings) | \(int(inprocess["replayRequestsPerSecond"] as! Double)) | `JSONDecoder` alone on the same bodies: \(int(inprocess["decodeOnlyPerSecond"] as! Double)) | \(pct(inprocess["replayVersusDecodeOnly"] as! Double)) |\n"
        out +=
            "| request key normalization (`RequestKey`, 7 query parameters) | \(int(inprocess["keysPerSecond"] as! Double)) | `URLComponents` parsing the same targets: \(int(inprocess["urlComponentsPerSecond"] as! Double)) | \(fixed(inprocess["keysVersusURLComponents"] as! Double))× |\n"
        out +=
            "| schema inference of a \(mb(schema["bytes"] as! Int)) response (parse + infer, median of \(schema["repetitions"] as? Int ?? 1)) | \(fixed(schema["parseAndInferSeconds"] as! Double * 1000)) ms | `JSONSerialization` parse alone: \(fixed(schema["jsonSerializationSeconds"] as! Double * 1000)) ms | parse \(fixed(schema["parseVersusJSONSerialization"] as! Double))× faster |\n\n"

        out += "## 5. Start-up\n\n"
        out += "| measurement | median of 15 |\n|---|---:|\n"
        out += "| spawning `/bin/true` (baseline) | \(fixed(startup["processSpawnSeconds"] as! Double * 1000)) ms |\n"
        out += "| `cassette --version` | \(fixed(startup["versionSeconds"] as! Double * 1000)) ms |\n"
        out += "| `cassette replay` until `listening on` (300 recordings, 5 MB) | \(fixed(startup["replayListeningSeconds"] as! Double * 1000)) ms |\n\n"

        out += try StreamingReport.section(file: directory + "/streaming.jsonl")
        out += try ToolsReport.auditSection(directory: directory)
        out += try ToolsReport.codegenSection(directory: directory)

        out += "## Commands\n\n```bash\nBenchmarks/run.sh   # DURATION=\(duration) ROUNDS=\(rounds)\n"
        out +=
            "# inside it, per round:\nwrk -t2 -c64 -d\(duration)s --latency -s Benchmarks/paths.lua http://127.0.0.1:PORT   # baseline, then cassette replay --cassette bench --port 0\n"
        out += "wrk -t1 -c1 -d\(duration)s --latency -s Benchmarks/paths.lua ...   # straight to upstream, then through cassette record --mode all\n"
        out += "bench-tool make-store DB COUNT small && bench-tool scale DB       # for COUNT in 10000 100000 1000000\n"
        out += "bench-tool inprocess DB; bench-tool schema 10; bench-tool startup cassette DB\n"
        out += "bench-tool make-store DB 100000 small && bench-tool audit DB && cassette audit --db DB --format json   # section 7\n"
        out += "FORMAT=json ROUNDS=3 Benchmarks/codegen.sh   # section 8: 10,000 recordings, sqlite3 reading them as the baseline\n```\n"
        print(out, terminator: "")
    }

    static func parseWrk(_ text: String) throws -> WrkResult {
        var result = WrkResult(requestsPerSecond: 0, p50: 0, p99: 0)
        for line in text.split(separator: "\n") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            if line.contains("Requests/sec:"), let value = fields.last.flatMap({ Double($0) }) {
                result.requestsPerSecond = value
            } else if fields.count == 2, fields[0] == "50%" {
                result.p50 = milliseconds(String(fields[1]))
            } else if fields.count == 2, fields[0] == "99%" {
                result.p99 = milliseconds(String(fields[1]))
            }
        }
        return result
    }

    /// wrk prints `812.00us`, `1.23ms` or `1.02s`.
    static func milliseconds(_ text: String) -> Double {
        if text.hasSuffix("us") { return (Double(text.dropLast(2)) ?? 0) / 1000 }
        if text.hasSuffix("ms") { return Double(text.dropLast(2)) ?? 0 }
        if text.hasSuffix("s") { return (Double(text.dropLast(1)) ?? 0) * 1000 }
        return Double(text) ?? 0
    }

    static func machine() -> String {
        let cpu =
            (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8))?
            .split(separator: "\n").first { $0.hasPrefix("model name") }?
            .split(separator: ":").last?.trimmingCharacters(in: .whitespaces) ?? "unknown CPU"
        return "\(ProcessInfo.processInfo.activeProcessorCount) cores (\(cpu))"
    }

    static func int(_ value: Double) -> String { String(Int(value.rounded())) }
    static func fixed(_ value: Double) -> String { String(format: "%.2f", value) }
    static func ms(_ value: Double) -> String { String(format: "%.2f ms", value) }
    static func pct(_ value: Double) -> String { String(format: "%.0f%%", value * 100) }
    static func mb(_ bytes: Int) -> String { String(format: "%.1f MB", Double(bytes) / 1_000_000) }
    static func verdict(_ met: Bool) -> String { met ? "met" : "**missed**" }
}
