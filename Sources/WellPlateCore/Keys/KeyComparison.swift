/// The part-by-part comparison of two keys behind `KeyDifference` and the ranking of `nearest`.
struct KeyComparison {
    let items: [KeyDifference.Item]
    let sameMethod: Bool
    let samePath: Bool
    let sameOrigin: Bool
    let differingQueryParameters: Int
    let bodyDiffers: Bool
    let sameOperation: Bool

    init(request: RequestKey, recorded: RequestKey) {
        var items = [KeyDifference.Item]()
        sameMethod = request.method == recorded.method
        if !sameMethod { items.append(.method(request: request.method, recorded: recorded.method)) }
        sameOrigin = request.origin == recorded.origin
        if !sameOrigin { items.append(.origin(request: request.origin, recorded: recorded.origin)) }
        samePath = request.path == recorded.path
        if !samePath { items.append(.path(request: request.path, recorded: recorded.path)) }

        sameOperation = request.graphQL == recorded.graphQL
        if !sameOperation { items.append(.operation(request: request.graphQL?.label, recorded: recorded.graphQL?.label)) }

        let queryItems = Self.queryDifferences(request.query, recorded.query)
        differingQueryParameters = queryItems.count
        items += queryItems

        switch (request.bodyFingerprint, recorded.bodyFingerprint) {
        case (nil, nil):
            bodyDiffers = false
        case (nil, _?):
            bodyDiffers = true
            items.append(.bodyMissing)
        case (_?, nil):
            bodyDiffers = true
            items.append(.bodyNotRecorded)
        case let (left?, right?):
            bodyDiffers = left != right
            if bodyDiffers, sameOperation, let operation = request.graphQL {
                var detail: String?
                if let requestBody = request.canonicalBody, let recordedBody = recorded.canonicalBody {
                    detail = GraphQLDifference.describe(request: requestBody, recorded: recordedBody)
                }
                items.append(.graphQL(operation: operation.name, detail: detail))
            } else if bodyDiffers, !sameOperation, request.graphQL != nil || recorded.graphQL != nil {
                // Another operation's body says nothing the operation item does not.
            } else if bodyDiffers {
                var detail: String?
                if let requestBody = request.canonicalBody, let recordedBody = recorded.canonicalBody {
                    detail = BodyDifference.describe(request: requestBody, recorded: recordedBody)
                }
                items.append(.body(detail: detail))
            }
        }
        items += Self.headerDifferences(request.headers, recorded.headers)
        self.items = items
    }

    private static func headerDifferences(_ request: [KeyedHeader], _ recorded: [KeyedHeader]) -> [KeyDifference.Item] {
        if request == recorded { return [] }
        let requestValues = Dictionary(request.map { ($0.name, $0.value) }, uniquingKeysWith: { first, _ in first })
        let recordedValues = Dictionary(recorded.map { ($0.name, $0.value) }, uniquingKeysWith: { first, _ in first })
        return Set(requestValues.keys).union(recordedValues.keys).sorted().compactMap { name in
            let mine = requestValues[name], theirs = recordedValues[name]
            return mine == theirs ? nil : .header(name: name, request: mine, recorded: theirs)
        }
    }

    /// Differences by parameter name, in byte order of the names.
    private static func queryDifferences(
        _ request: [RequestKey.QueryParameter], _ recorded: [RequestKey.QueryParameter]
    ) -> [KeyDifference.Item] {
        if request == recorded { return [] }
        let requestValues = grouped(request), recordedValues = grouped(recorded)
        let names = Set(requestValues.keys).union(recordedValues.keys).sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        var items = [KeyDifference.Item]()
        for name in names {
            switch (requestValues[name], recordedValues[name]) {
            case let (left?, right?) where left != right:
                items.append(.queryValue(name: name, request: left, recorded: right))
            case (nil, _?):
                items.append(.queryParameterMissing(name: name))
            case (_?, nil):
                items.append(.queryParameterNotRecorded(name: name))
            default:
                break
            }
        }
        return items
    }

    static func grouped(_ parameters: [RequestKey.QueryParameter]) -> [String: [String]] {
        var result = [String: [String]]()
        for parameter in parameters { result[parameter.name, default: []].append(parameter.value) }
        return result
    }
}
