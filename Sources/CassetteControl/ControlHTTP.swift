import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One call to the proxy's session endpoints: JSON in and out, its error answers turned into
/// `CassetteControlError`s that carry the proxy's explanation.
struct ControlHTTP: Sendable {
    let base: URL
    let timeout: TimeInterval

    /// `method path?query` with `json` as its body; answers with a status in `expecting` are
    /// decoded as `Answer`, others thrown with the proxy's message.
    func call<Answer: Decodable>(
        _ method: String, _ path: String, query: [URLQueryItem] = [], json: Data? = nil, expecting: Set<Int> = [200]
    ) async throws
        -> Answer
    {
        var components = URLComponents(url: base, resolvingAgainstBaseURL: false)
        components?.percentEncodedPath = path
        components?.queryItems = query.isEmpty ? nil : query
        guard let url = components?.url else {
            throw CassetteControlError(kind: .unreachable, message: "\(base) is not an http URL such as http://127.0.0.1:8080")
        }
        var request = URLRequest(url: url, timeoutInterval: timeout)
        request.httpMethod = method
        if let json {
            request.httpBody = json
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        let (data, status) = try await send(request)
        guard expecting.contains(status) else {
            let problem = try? JSONDecoder().decode(Problem.self, from: data)
            throw CassetteControlError(
                kind: .refused, message: "\(method) \(path): \(problem?.message ?? "the proxy answered \(status)") (\(status))", statusCode: status,
                code: problem?.error)
        }
        do {
            return try JSONDecoder().decode(Answer.self, from: data)
        } catch {
            throw CassetteControlError(
                kind: .unreadable,
                message:
                    "\(method) \(path): the answer is not a cassette proxy's (\(error)); is \(base) a cassette proxy (`cassette record`, `replay` or `run`)?",
                statusCode: status)
        }
    }

    /// `{"error": code, "message": text}`, the proxy's one error shape.
    private struct Problem: Decodable {
        let error: String
        let message: String
    }

    private func send(_ request: URLRequest) async throws -> (Data, Int) {
        try await withCheckedThrowingContinuation { continuation in
            let task = URLSession.shared.dataTask(with: request) { data, response, error in
                if let error {
                    continuation.resume(
                        throwing: CassetteControlError(
                            kind: .unreachable,
                            message:
                                "the cassette proxy at \(base) could not be reached (\(error.localizedDescription)); start it with `cassette record`, `replay` or `run`, and pass the address it prints"
                        ))
                    return
                }
                continuation.resume(returning: (data ?? Data(), (response as? HTTPURLResponse)?.statusCode ?? 0))
            }
            task.resume()
        }
    }
}
