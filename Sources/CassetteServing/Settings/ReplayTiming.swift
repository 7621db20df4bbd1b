/// How replay paces what a recording's server sent after a delay, for every protocol that
/// replays recorded timing (`--ws-timing` for WebSocket conversations, `--grpc-timing` for gRPC
/// calls): recorded delays are multiplied by the scale, 1 keeps them, 0 sends at once.
package enum ReplayTiming {
    /// What the flags accept, for their errors.
    package static let accepted = "recorded, fast or a factor of 0 or more such as 0.5"

    /// `recorded`, `fast` or a non-negative factor; `nil` for anything else.
    package static func scale(parsing text: String) -> Double? {
        switch text.lowercased() {
        case "recorded": return 1
        case "fast": return 0
        default:
            guard let scale = Double(text), scale >= 0, scale.isFinite else { return nil }
            return scale
        }
    }
}
