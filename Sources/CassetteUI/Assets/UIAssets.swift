import Crypto
import Foundation

/// The web UI's files, compiled into the binary as Swift constants: nothing is looked up in a
/// resource bundle at run time and nothing is fetched from another origin, so the UI works
/// wherever the `cassette` executable is copied, with no network.
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

    /// The served page: the stylesheet and the script are files of their own (`app.css`, `app.js`).
    /// The empty icon keeps the browser from asking the proxy for `/favicon.ico`, which would be
    /// served (or missed, and counted against `--strict`) as the app's own traffic.
    package static let indexHTML = """
        <!doctype html>
        <html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">
        <title>cassette</title><link rel="icon" href="data:,"><link rel="stylesheet" href="app.css"><script src="app.js" defer></script></head>
        <body>
        \(body)
        </body></html>

        """

    /// The file at `name` (a path below the UI's root: `""`, `index.html`, `app.css`, `app.js`).
    package static func asset(named name: String) -> Asset? {
        switch name {
        case "", "index.html": Asset(contentType: "text/html; charset=utf-8", bytes: Data(indexHTML.utf8))
        case "app.css": Asset(contentType: "text/css; charset=utf-8", bytes: Data(stylesheet.utf8))
        case "app.js": Asset(contentType: "text/javascript; charset=utf-8", bytes: Data(script.utf8))
        default: nil
        }
    }

    /// `'sha256-…'`: the CSP source that allows exactly `text` as an inline script or style.
    package static func hashSource(of text: String) -> String {
        "'sha256-\(Data(SHA256.hash(data: Data(text.utf8))).base64EncodedString())'"
    }
}
