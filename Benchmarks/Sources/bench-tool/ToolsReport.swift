import Foundation

/// Sections 7 and 8 of the report: `cassette audit` against reading the same rows without
/// scanning them, and `cassette codegen swift` / `cassette openapi` against `sqlite3` reading the
/// same store, all in the same run.
enum ToolsReport {
    static func auditSection(directory: String) throws -> String {
        var out = "## 7. `cassette audit`\n\n"
        guard let audit = try json(directory + "/audit.json") else { return out + "Not measured in this run.\n\n" }
        let cli = try json(directory + "/audit-cli.json")
        func number(_ key: String) -> Double { (audit[key] as? NSNumber)?.doubleValue ?? .nan }
        let interactions = Int(number("interactions"))
        out +=
            "A generated store of \(interactions) small interactions (\(Report.mb(Int(number("storeBytes")))) file), scanned in process (`bench-tool audit`: `CassetteStore.audit`, every secret shape on every header, URL and body). Baseline in the same process, just before: the same rows read the same way (`forEachInteraction`) and not scanned.\n\n"
        out += "| measurement | value |\n|---|---:|\n"
        out += "| read every interaction (baseline) | \(Report.fixed(number("readSeconds"))) s |\n"
        out +=
            "| audit every interaction | \(Report.fixed(number("seconds"))) s (\(Report.int(number("interactionsPerSecond"))) interactions/s, \(Report.fixed(number("megabytesPerSecond"))) MB/s) |\n"
        out += "| audit / read | \(Report.fixed(number("auditVersusRead")))× |\n"
        out += "| peak resident memory | \(Report.mb(Int(number("peakResidentBytes")))) (\(Report.mb(Int(number("residentBytesBefore")))) before the scans) |\n"
        if let cli, let seconds = (cli["cliSeconds"] as? NSNumber)?.doubleValue {
            out += "| `cassette audit --db … --format json`, wall time (release CLI) | \(Report.fixed(seconds)) s |\n"
        }
        out += "| findings on the generated (clean) data | \(Int(number("findings"))) |\n\n"
        return out
    }

    static func codegenSection(directory: String) throws -> String {
        var out = "## 8. `cassette codegen swift` and `cassette openapi`\n\n"
        let file = directory + "/codegen.jsonl"
        guard FileManager.default.fileExists(atPath: file) else { return out + "Not measured in this run.\n\n" }
        let records = try String(contentsOfFile: file, encoding: .utf8).split(separator: "\n").compactMap { line in
            (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any]
        }
        let store = records.first { $0["store"] != nil }
        let runs = records.filter { $0["command"] != nil }
        guard let baseline = runs.first(where: { $0["baseline"] as? Bool == true }),
            let baselineSeconds = (baseline["seconds"] as? NSNumber)?.doubleValue
        else {
            return out + "No baseline was measured.\n\n"
        }
        if let store {
            out +=
                "A store of \(store["interactions"] ?? "?") recordings over \(store["endpoints"] ?? "?") endpoints (\(Report.mb((store["bodyBytes"] as? Int) ?? 0)) of bodies). Each command runs whole (process start, store read, inference, writing) \(baseline["rounds"] ?? "?") times: the median wall time and the largest peak resident set (`/usr/bin/time`). Baseline in the same run: `sqlite3` reading every column of the same rows.\n\n"
        }
        out += "| command | median wall time | against the baseline | peak RSS |\n|---|---:|---:|---:|\n"
        for run in runs {
            let seconds = (run["seconds"] as? NSNumber)?.doubleValue ?? .nan
            let peak = (run["peakResidentKiB"] as? Int) ?? 0
            let isBaseline = run["baseline"] as? Bool == true
            let name = isBaseline ? "`sqlite3` reading every column of the same rows" : "`\(run["command"] ?? "")`"
            let ratio = isBaseline ? "baseline" : Report.fixed(seconds / baselineSeconds) + "×"
            out += "| \(name) | \(String(format: "%.3f", seconds)) s | \(ratio) | \(peak / 1024) MiB |\n"
        }
        out += "\n"
        if let store {
            out +=
                "\(store["files"] ?? "?") generated files; `openapi.json` \(store["jsonBytes"] ?? "?") bytes, `openapi.yaml` \(store["yamlBytes"] ?? "?") bytes.\n\n"
        }
        return out
    }

    private static func json(_ path: String) throws -> [String: Any]? {
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        return try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any]
    }
}
