import Foundation

/// Section 6 of the report, from `Benchmarks/streaming.sh`'s JSON lines: memory while recording a
/// large body (against the body's own size) and the first event of a Server-Sent Events stream
/// through `cassette record` (against the same stream read straight from the upstream, same round).
enum StreamingReport {
    static func section(file: String) throws -> String {
        var out = "## 6. Streaming\n\n"
        guard FileManager.default.fileExists(atPath: file) else {
            return out + "Not measured in this run (`SKIP_STREAMING=1`).\n\n"
        }
        let lines = try String(contentsOfFile: file, encoding: .utf8).split(separator: "\n")
        let records = lines.compactMap { line in
            (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any]
        }
        let memory = records.filter { $0["measure"] as? String == "record-memory" }
        let events = records.filter { $0["measure"] as? String == "first-event" }
        func number(_ record: [String: Any], _ key: String) -> Double { (record[key] as? NSNumber)?.doubleValue ?? .nan }
        // The script sizes bodies in MiB, so the table does too.
        func mib(_ bytes: Double) -> String { String(format: "%.1f MiB", bytes / 1_048_576) }

        if !memory.isEmpty {
            let ratios = memory.map { number($0, "peakGrowthRatio") }
            let body = Int(number(memory[0], "bodyBytes"))
            let peak = median(memory.map { number($0, "peakGrowthBytes") })
            out +=
                "`cassette record --mode all` forwarding a \(mib(Double(body))) download (with a bearer token, so redaction scans it) from a Python upstream; peak resident memory (`VmHWM`) less the resident memory before the request, until the recording is stored. Median of \(memory.count) fresh process(es).\n\n"
            out += "| body | peak growth while recording | peak growth / body |\n|---:|---:|---:|\n"
            out += "| \(mib(Double(body))) | \(mib(peak)) | \(Report.fixed(median(ratios)))× |\n\n"
            out +=
                "Memory while recording a large body: **\(Report.fixed(median(ratios)))×** the body (rounds: \(ratios.map { Report.fixed($0) + "×" }.joined(separator: ", ")); target ≤ 1.5×: \(Report.verdict(median(ratios) <= 1.5))).\n\n"
        }
        if !events.isEmpty {
            let direct = events.map { number($0, "directFirstEventMs") }
            let recorded = events.map { number($0, "recordFirstEventMs") }
            let differences = events.map { number($0, "differenceMs") }
            let gap = Int(number(events[0], "eventGapMs"))
            out +=
                "A Server-Sent Events stream of 5 events, \(gap) ms apart; time until the client has the first event. Medians of \(events.count) round(s); differences are taken within each round.\n\n"
            out += "| | straight to upstream | through `cassette record` | same-round difference |\n|---|---:|---:|---:|\n"
            out +=
                "| first event | \(Report.fixed(median(direct))) ms | \(Report.fixed(median(recorded))) ms | \(String(format: "%+.1f", median(differences))) ms |\n"
            out +=
                "| whole stream | \(Report.fixed(median(events.map { number($0, "directTotalMs") }))) ms | \(Report.fixed(median(events.map { number($0, "recordTotalMs") }))) ms | |\n\n"
        }
        out += "```bash\nBenchmarks/streaming.sh   # ROUNDS=3; also run.sh section 6\n```\n\n"
        return out
    }
}
