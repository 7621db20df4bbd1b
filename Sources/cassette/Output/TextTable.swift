import CassetteKernel
import CassetteProxy
import CassetteServing
import CassetteTools
import WellPlateCore
import WellPlateNetworking

/// Columns sized to their content, two spaces apart. One column may be marked `shrinks`: when a
/// maximum width is given (stdout is a terminal), it is cut with "…" so each row fits on one line.
struct TextTable {
    enum Alignment {
        case left
        case right
    }

    struct Column {
        var title: String
        var alignment: Alignment = .left
        var shrinks = false
    }

    static let separator = "  "
    /// A shrinking column never gets narrower than this, even if rows then wrap.
    static let minimumShrunkWidth = 12

    var columns: [Column]
    var rows: [[String]] = []

    init(_ columns: [Column]) {
        self.columns = columns
    }

    mutating func append(_ row: [String]) {
        precondition(row.count == columns.count, "a row needs one cell per column")
        rows.append(row)
    }

    /// The header line and one line per row, without trailing spaces.
    func render(maxWidth: Int?) -> (header: String, lines: [String]) {
        var widths = columns.indices.map { index in
            rows.reduce(columns[index].title.count) { max($0, $1[index].count) }
        }
        if let maxWidth, let shrinking = columns.firstIndex(where: \.shrinks) {
            let others = widths.indices.filter { $0 != shrinking }.reduce(0) { $0 + widths[$1] }
            let available = maxWidth - others - Self.separator.count * (columns.count - 1)
            widths[shrinking] = min(widths[shrinking], max(available, Self.minimumShrunkWidth, columns[shrinking].title.count))
        }
        func line(_ cells: [String]) -> String {
            var text = ""
            for index in cells.indices {
                if index > 0 { text += Self.separator }
                var cell = cells[index]
                if cell.count > widths[index] {
                    cell = String(cell.prefix(widths[index] - 1)) + "…"
                }
                let padding = String(repeating: " ", count: widths[index] - cell.count)
                text += columns[index].alignment == .left ? cell + padding : padding + cell
            }
            while text.last == " " { text.removeLast() }
            return text
        }
        return (line(columns.map(\.title)), rows.map(line))
    }
}
