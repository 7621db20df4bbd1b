import CassetteTools
import Foundation
import WellPlateCore
import WellPlateNetworking

/// `cassette audit`'s work on a whole store: every interaction read row by row and scanned.
/// The baseline, in the same process just before: the same rows read the same way, not scanned.
/// Peak resident memory comes from the kernel (VmHWM), so it covers the whole run.
enum AuditBench {
    static func run(path: String) async throws {
        let store = try await CassetteStore.open(path: path, access: .readOnly)
        let residentBefore = Measure.residentBytes()
        var read = 0
        let readSeconds = try await Measure.seconds {
            try await store.forEachInteraction(cassette: nil) { _ in
                read += 1
                return true
            }
        }
        var result = CassetteStore.AuditResult(findings: [], interactions: 0, conversations: 0)
        let seconds = try await Measure.seconds { result = try await store.audit(cassette: nil) }
        try await store.close()
        let bytes = try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int ?? 0
        Measure.printJSON([
            "interactions": result.interactions,
            "findings": result.findings.count,
            "seconds": seconds,
            "readSeconds": readSeconds,
            "readInteractions": read,
            "auditVersusRead": seconds / readSeconds,
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
            let kilobytes = Int(line.split(separator: " ").dropFirst().first ?? "")
        else { return 0 }
        return kilobytes * 1024
    }
}
