import Foundation
import WellPlateCore

/// The UI's request target read once: the path below the UI's root and the query's values.
package struct UIRequest: Sendable, Equatable {
    /// Below `/__cassette/ui/`: `""` for the page, `app.js`, `api/interactions`, ...
    package var path: String
    package var query: [String: String]

    /// `target` as sent (`/__cassette/ui/api/interactions?method=GET`); `root` the UI's path.
    package init(target: String, root: String) {
        let components = URLComponents(string: target)
        let full = components?.percentEncodedPath ?? target
        path = full.hasPrefix(root) ? String(full.dropFirst(root.count)) : full
        var query: [String: String] = [:]
        for item in components?.queryItems ?? [] where query[item.name] == nil {
            query[item.name] = item.value ?? ""
        }
        self.query = query
    }

    /// The list's filter and page from `?cassette=&method=&status=&host=&path=&text=&operation=&offset=`.
    package var browseQuery: InteractionBrowseQuery {
        func value(_ name: String) -> String? {
            guard let value = query[name]?.trimmingCharacters(in: .whitespaces), !value.isEmpty else { return nil }
            return value
        }
        var browse = InteractionBrowseQuery(cassette: value("cassette"))
        browse.method = value("method")
        browse.status = value("status").flatMap { Int($0) }
        browse.host = value("host")
        browse.path = value("path")
        browse.text = value("text")
        browse.operation = value("operation")
        browse.offset = value("offset").flatMap { Int($0) } ?? 0
        browse.limit = value("limit").flatMap { Int($0) } ?? 100
        return browse
    }
}
