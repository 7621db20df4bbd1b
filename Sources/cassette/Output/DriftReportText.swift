import CassetteKernel
import CassetteProxy
import CassetteServing
import CassetteTools
import WellPlateCore
import WellPlateNetworking

/// `cassette diff`'s text output: a block per endpoint with findings, then one summary line.
///
///     GET /api/users/{id}  (fixture mock_api_users_id_get.json, 3 recordings)
///       error   $.age  type changed: fixture has string, API sends integer
///
///     1 error, 0 warnings, 0 notes in 1 endpoint (4 fixtures, 6 recorded endpoints)
struct DriftReportText {
    /// The names of two compared recordings; `nil` when fixtures were compared with a recording.
    let sides: SchemaDiff.Sides?

    func lines(for report: DriftReport) -> [String] {
        var lines: [String] = []
        for entry in report.endpoints where !entry.findings.isEmpty {
            lines.append(Terminal.paint(header(entry), .bold))
            if let requests = entry.requests, !requests.isEmpty {
                let shown = requests.prefix(5).joined(separator: ", ")
                lines.append("  drifted: " + shown + (requests.count > 5 ? " and \(requests.count - 5) more" : ""))
            }
            for finding in entry.findings {
                lines.append("  " + paintSeverity(finding.textLine, finding.severity))
            }
            lines.append("")
        }
        lines.append(summary(report.summary))
        return lines
    }

    func header(_ entry: DriftReport.Entry) -> String {
        let name = entry.endpoint?.description ?? "(no endpoint)"
        let details: String
        if let sides {
            details =
                "\(sides.fixture): \(Formatting.count(entry.baselineRecordings ?? 0, "recording")), "
                + "\(sides.api): \(Formatting.count(entry.recordings, "recording"))"
        } else {
            details = (entry.fixture.map { "fixture \($0)" } ?? "no fixture") + ", " + Formatting.count(entry.recordings, "recording")
        }
        return "\(name)  (\(details))"
    }

    func summary(_ summary: DriftReport.Summary) -> String {
        let counts = [
            Formatting.count(summary.errors, "error"),
            Formatting.count(summary.warnings, "warning"),
            Formatting.count(summary.notes, "note"),
        ].joined(separator: ", ")
        let scope: String
        if let sides {
            scope =
                "\(Formatting.count(summary.baselineEndpoints ?? 0, "endpoint")) in \(sides.fixture), "
                + "\(summary.recordedEndpoints) in \(sides.api)"
        } else {
            scope = "\(Formatting.count(summary.fixtures ?? 0, "fixture")), \(Formatting.count(summary.recordedEndpoints, "recorded endpoint"))"
        }
        return "\(counts) in \(Formatting.count(summary.endpoints, "endpoint")) (\(scope))"
    }

    /// Colours the severity label at the start of a `textLine`.
    private func paintSeverity(_ line: String, _ severity: SchemaFinding.Severity) -> String {
        let label = severity.rawValue
        guard line.hasPrefix(label) else { return line }
        let color: Terminal.Color =
            switch severity {
            case .error: .red
            case .warning: .yellow
            case .note: .blue
            }
        return Terminal.paint(label, color) + line.dropFirst(label.count)
    }
}
