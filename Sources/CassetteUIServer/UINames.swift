import CassetteKernel

extension ControlNames {
    /// The web UI and its data (`/__cassette/ui/`, `.../api/...`).
    package static let ui = "/__cassette/ui"
}
