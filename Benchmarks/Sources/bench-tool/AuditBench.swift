import Foundation
import WellPlateNetworking

/// `cassette audit`'s work on a whole store: every interaction read row by row and scanned.
/// Peak resident memory comes from the kernel (VmHWM), so it covers the whole run.
enum AuditBench {
    static func run(path: String) async throws {
        let store = try await CassetteStore.open(path: path, access: .readOnly)
        let residentBefore = Measure.residentBytes()
        var result: (findings: [AuditFinding], interactions: Int) = ([], 0)
        let seconds = try await Measure.seconds { result = try await store.audit(cassette: nil) }
        try await store.close()
        let bytes = try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int ?? 0
        Measure.printJSON([
            "interactions": result.interactions,
            "findings": result.findings.count,
            "seconds": seconds,
            "interactionsPerSecond": Double(result.interactions) / seconds,
            "storeBytes": bytes,
            "megabytesPerSecond": Double(bytes) / 1_000_000 / seconds,
            "residentBytesBefore": residentBefore,
            "peakResidentBytes": peakResidentBytes(),
        ])
    }

    private static func peakResidentBytes() -> Int {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
              let kilobytes = Int(line.split(separator: " ").dropFirst().first ?? "") else { return 0 }
        return kilobytes * 1024
    }
}
