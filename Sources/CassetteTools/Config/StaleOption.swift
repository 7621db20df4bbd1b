/// `--stale` and cassette.json's `"stale"`: what a replay does with a recording older than `--max-age`.
package enum StaleOption: String, CaseIterable, Sendable {
    case warn, fail
}
