import Foundation
import HTTPTypes

/// Answering whole requests: the record mode decides between the recording and the upstream.
extension CassetteSession {
    /// Answers one request according to the record mode. The caller gets the live response when it
    /// was forwarded, the stored (redacted) one when it was replayed. `own`: the address of the
    /// proxy the request came in by, keyed and stored as a placeholder (`OwnAddress`).
    package func respond(to request: TransportRequest, own: OwnAddress? = nil) async throws -> Exchange {
        try await explainingMisses(of: request) { try await respondUnexplained(to: request, own: own) }
    }

    /// Runs `body`, giving a miss it throws the advice only the request's headers can confirm.
    func explainingMisses<Result>(of request: TransportRequest, _ body: () async throws -> Result) async throws -> Result {
        do {
            return try await body()
        } catch let miss as CassetteMiss {
            throw miss.explained(by: request.headerFields, redactor: keyer.redactor)
        }
    }

    private func respondUnexplained(to request: TransportRequest, own: OwnAddress?) async throws -> Exchange {
        let (redacted, key, secrets) = redactedWithKey(own?.placeholding(request) ?? request)
        switch step(for: key) {
        case .replay(let orPassthrough):
            do {
                return try replay(key: key, echoing: request.headerFields)
            } catch is CassetteMiss where orPassthrough {
                return try await passthrough(request, key: key)
            }
        case .record:
            return try await record(request, redacted: redacted, key: key, secrets: secrets, own: own)
        }
    }

    /// The serving policy's step for `key`, given what the cassette holds.
    func step(for key: RequestKey) -> ServingPolicy.Step {
        options.policy.step(for: key.rawValue, in: index)
    }

    /// Answers from the cassette only, whatever the mode.
    package func replay(_ request: TransportRequest) throws -> Exchange {
        do {
            return try replay(key: key(for: request), echoing: request.headerFields)
        } catch let miss as CassetteMiss {
            throw miss.explained(by: request.headerFields, redactor: keyer.redactor)
        }
    }

    /// Forwards without recording (a replay miss the user chose to let through).
    package func passthrough(_ request: TransportRequest) async throws -> Exchange {
        try await passthrough(request, key: key(for: request))
    }

    private func passthrough(_ request: TransportRequest, key: RequestKey) async throws -> Exchange {
        let upstream = try requireUpstream()
        let response = try await upstream.send(request)
        passthroughCount.add(1, ordering: .relaxed)
        return Exchange(response: response, outcome: .passthrough, key: key, interaction: nil)
    }

    /// The key a request gets in this session (after redaction), for logs and explanations.
    package func key(for request: TransportRequest) -> RequestKey {
        redactedWithKey(request).key
    }

    /// The request as it would be stored, its key, and its secrets (`ReplayKeyer.redactedWithKey`).
    func redactedWithKey(_ request: TransportRequest) -> (redacted: TransportRequest, key: RequestKey, secrets: SecretValues) {
        keyer.redactedWithKey(request)
    }

    /// The recording `key` picks, answered to a request with `liveHeaders`: the secrets it echoed
    /// are that request's own (`Interaction.echoingSecrets(of:)`).
    func replay(key: RequestKey, echoing liveHeaders: HTTPFields = [:]) throws -> Exchange {
        let recording = try lookup(key: key)
        let interaction = recording.echoingSecrets(of: liveHeaders) ?? recording
        return Exchange(response: interaction.response, outcome: .replayed, key: key, interaction: interaction)
    }

    func record(_ request: TransportRequest, redacted: TransportRequest, key: RequestKey, secrets: SecretValues, own: OwnAddress?) async throws -> Exchange {
        let upstream = try requireUpstream()
        let recordedAt = Date()
        let response = try await upstream.send(request)
        return try await keep(response, for: request, redacted: redacted, key: key, secrets: secrets, recordedAt: recordedAt, own: own)
    }

    /// Stores an upstream's response (redacted) and adds it to the index; `chunks` for one that
    /// was streamed. `own`: the proxy's address, stored as its placeholder (`OwnAddress`); the
    /// exchange returned holds the response as it came.
    func keep(
        _ live: TransportResponse, for request: TransportRequest, redacted: TransportRequest, key: RequestKey, secrets: SecretValues, recordedAt: Date,
        chunks: [ResponseChunk]? = nil, own: OwnAddress? = nil
    ) async throws -> Exchange {
        let response = own?.placeholding(live) ?? live
        let request = own?.placeholding(request) ?? request
        // A server may repeat a credential it was sent (an echo, an error quoting the request):
        // `secrets`, found while the request was redacted, are scrubbed from the response too.
        // Where it repeats one of the request's secret headers or cookies is noted, so replay can
        // put the live request's own value there (`Interaction.echoingSecrets(of:)`).
        let redactedResponse = options.redactor.redactCollectingSecrets(
            responseHeaders: response.headerFields, body: response.body, requestSecrets: secrets,
            echoing: request.headerFields)
        var redacted = redacted
        var key = key
        // What the response holds in a secret place (a cookie it sets, a token field) is a
        // secret wherever a request carries it, this one included: remembered by its hash,
        // stored before the recording, and the request keyed again without it.
        let learned = keyer.learned.learn(redactedResponse.found)
        keyer.learned.noteSetByResponse(options.redactor.redactedSetCookieValues(response.headerFields))
        if !learned.isEmpty {
            do {
                try await store.saveLearnedSecrets(learned)
            } catch {
                throw RecordingFailure(response: live, key: key.rawValue, underlying: error)
            }
            (redacted, key, _) = redactedWithKey(request)
        }
        // Redaction can change the body's length; Content-Length must describe the stored body.
        let storedBody = keyer.scrubLearned(body: redactedResponse.body)
        let learnedScrubbedHeaders = keyer.learned.scrub(redactedResponse.headerFields)
        let storedHeaders = Interaction.storedResponseHeaders(
            learnedScrubbedHeaders, bodyCount: storedBody.count, statusCode: response.statusCode, method: request.method,
            addsLength: chunks == nil)
        // A learned secret scrubbed after the echoes were noted moves them: those of that part go.
        let echoes = redactedResponse.echoes.filter { echo in
            echo.part == .body ? storedBody == redactedResponse.body : learnedScrubbedHeaders == redactedResponse.headerFields
        }
        var interaction = Interaction(
            cassette: options.cassette,
            method: request.method,
            url: redacted.url.absoluteString,
            key: key.rawValue,
            requestHeaders: redacted.headerFields,
            requestBody: redacted.body,
            statusCode: response.statusCode,
            responseHeaders: storedHeaders,
            responseBody: storedBody,
            contentEncoding: response.decodedContentEncoding,
            recordedAt: recordedAt,
            duration: response.duration,
            chunks: chunks
        )
        interaction.contentEncodingPosition = response.decodedContentEncoding == nil ? nil : response.decodedContentEncodingPosition
        interaction.secretEchoes = echoes
        interaction.httpVersion = request.httpVersion
        let replacing = options.policy.replacesRecordings && overwritten.withLock { $0.insert(key.rawValue).inserted }
        let stored: Interaction
        do {
            // Only a key's first recording in the session removes its older rows: deleting for
            // every one would scan all of the key's rows each time, slower the longer it records.
            stored = try await store.record(interaction, replacingRowsUpTo: replacing ? rowsBeforeSession : nil)
        } catch {
            // Not stored, so the key's older rows are still there: its next recording removes them.
            if replacing { overwritten.withLock { _ = $0.remove(key.rawValue) } }
            throw RecordingFailure(response: live, key: key.rawValue, underlying: error)
        }
        // A request recorded with its GraphQL document answers the same operation sent later by
        // its persisted hash alone, in this session as after reopening (docs/graphql.md).
        let alias =
            key.graphQL == nil
            ? nil
            : RequestKey.graphQLHashOnly(
                method: stored.method, target: stored.url, headerFields: stored.requestHeaders, body: stored.requestBody, rules: keyer.rules)?.rawValue
        if replacing {
            index.replaceServed(stored, alias: alias)
        } else {
            index.appendServed(stored, alias: alias)
        }
        parsedKeys.withLock { $0 = nil }
        recordedCount.add(1, ordering: .relaxed)
        return Exchange(response: live, outcome: .recorded, key: key, interaction: stored)
    }

    func requireUpstream() throws -> any HTTPTransport {
        guard let upstream else {
            throw TransportError(.invalidRequest, "cassette \"\(options.cassette)\" was opened without an upstream, so it cannot forward requests")
        }
        return upstream
    }
}
