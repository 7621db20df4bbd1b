import Crypto
import Foundation

/// The web UI's files, `index.html`, `app.css` and `app.js` in this folder, which SwiftPM embeds
/// into the binary at build time (`.embedInCode` in Package.swift, read through the generated
/// `PackageResources`): nothing is looked up in a resource bundle at run time and nothing is
/// fetched from another origin, so the UI works wherever the `cassette` executable is copied,
/// with no network.
package enum UIAssets {
    /// A file the UI serves: its bytes and its `Content-Type`.
    package struct Asset: Sendable {
        package let contentType: String
        package let bytes: Data
    }

    /// The served page's policy: no inline script, no eval, nothing from another origin, and no
    /// framing. Recorded bodies are put in the page as text, so a `<script>` body cannot run even
    /// before this policy applies.
    package static let contentSecurityPolicy =
        "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; connect-src 'self'; frame-ancestors 'none'"

    private static let indexFile = Asset(contentType: "text/html; charset=utf-8", bytes: Data(PackageResources.index_html))
    private static let stylesheetFile = Asset(contentType: "text/css; charset=utf-8", bytes: Data(PackageResources.app_css))
    private static let scriptFile = Asset(contentType: "text/javascript; charset=utf-8", bytes: Data(PackageResources.app_js))

    /// The served page (`index.html`). Its empty icon keeps the browser from asking the proxy for
    /// `/favicon.ico`, which would be served (or missed, and counted against `--strict`) as the
    /// app's own traffic.
    package static let indexHTML = String(decoding: PackageResources.index_html, as: UTF8.self)
    /// The page's stylesheet (`app.css`), which the report inlines.
    static let stylesheet = String(decoding: PackageResources.app_css, as: UTF8.self)
    /// The page's one script (`app.js`), which the report inlines: views, filters in the URL, the
    /// live feed; recorded text only ever goes in through `textContent`.
    static let script = String(decoding: PackageResources.app_js, as: UTF8.self)

    /// The page's body, taken from `index.html` so the served page and the report cannot drift
    /// apart: the script fills its `main`.
    static let body: String = {
        guard let start = indexHTML.range(of: "<body>\n"), let end = indexHTML.range(of: "\n</body>", options: .backwards),
            start.upperBound <= end.lowerBound
        else { preconditionFailure("Assets/index.html has no <body> for the report to reuse") }
        return String(indexHTML[start.upperBound..<end.lowerBound])
    }()

    /// The file at `name` (a path below the UI's root: `""`, `index.html`, `app.css`, `app.js`).
    package static func asset(named name: String) -> Asset? {
        switch name {
        case "", "index.html": indexFile
        case "app.css": stylesheetFile
        case "app.js": scriptFile
        default: nil
        }
    }

    /// `'sha256-…'`: the CSP source that allows exactly `text` as an inline script or style.
    package static func hashSource(of text: String) -> String {
        "'sha256-\(Data(SHA256.hash(data: Data(text.utf8))).base64EncodedString())'"
    }
}
