import Crypto
import Foundation
import WellPlateCore
import WellPlateNetworking

/// The recordings of one GraphQL operation grouped by their variables, as keys compare them
/// (ignored members left out, order and number spelling aside): each group is a variant that
/// `export --fixtures` gives a fixture and a route naming its variables. Recordings without
/// variables form no variant: the operation's own route (no variables) answers them.
struct GraphQLVariants {
    struct Variant {
        /// A JSON object, never empty.
        let variables: JSONValue
        /// Most recent first, as given.
        var recordings: [(Interaction, JSONValue)]

        /// What the fixture's name gets after the operation's: the variables as lower-case
        /// words (`id_1`, `first_2`), or, when that is long or empty, 8 hex digits of their hash.
        var nameSuffix: String {
            let text = variables.jsonString(options: .sortedKeys)
            var words = ""
            for scalar in text.lowercased().unicodeScalars {
                if scalar.isASCII, scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) {
                    words.unicodeScalars.append(scalar)
                } else if !words.isEmpty, !words.hasSuffix("_") {
                    words += "_"
                }
            }
            while words.hasSuffix("_") { words.removeLast() }
            guard words.isEmpty || words.count > Self.longestWords else { return words }
            return "v" + SHA256.hash(data: Array(text.utf8)).hexPrefix(8)
        }

        /// Longer variables make a file name nobody reads; they are named by hash instead.
        static let longestWords = 40
    }

    /// In the order of each variant's most recent recording.
    let all: [Variant]

    var count: Int { all.count }

    /// `recordings` (most recent first) of `endpoint`; none for an endpoint that is not a named
    /// GraphQL operation (hash-only and batch recordings have no route of their own).
    init(endpoint: Endpoint, recordings: [(Interaction, JSONValue)], rules: MatchingRules) {
        guard let operation = endpoint.operation, !operation.hasPrefix("persisted "), !operation.hasPrefix("batch ") else {
            all = []
            return
        }
        var variants: [Variant] = []
        var positions: [JSONValue: Int] = [:]
        for recording in recordings {
            let interaction = recording.0
            guard let url = URL(string: interaction.url),
                let variables = GraphQLRequest.singleOperation(
                    method: interaction.method, url: url, body: interaction.requestBody,
                    headerName: interaction.requestHeaders[GraphQLOperation.operationNameField]
                )?.keyedVariables(rules: rules)
            else { continue }
            if let position = positions[variables] {
                variants[position].recordings.append(recording)
            } else {
                positions[variables] = variants.count
                variants.append(Variant(variables: variables, recordings: [recording]))
            }
        }
        all = variants
    }
}
