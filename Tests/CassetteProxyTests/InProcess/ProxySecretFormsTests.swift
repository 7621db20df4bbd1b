import CassetteProxy
import CassetteTools
import Foundation
import HTTPTypes
import TestSupport
import Testing
import WellPlateCore
import WellPlateNetworking

/// Secrets in every place a client puts them, sent through `cassette record` to the sample API's
/// echo endpoint (which repeats the whole request in its body): no secret may reach the store's
/// files or the proxy's output in any form, and the recordings still replay.
@Suite("Proxy secret forms")
final class ProxySecretFormsTests {
    let workspace: CLIWorkspace
    var store: String { workspace.path("forms.db") }

    init() throws {
        workspace = try CLIWorkspace()
    }

    static let bearer = "bRr7Tk-9f2c41d0aa"
    static let basicUser = "alice"
    static let basicPassword = "pW9!xq/Lm 7"
    static let apiKey = "kY3-apikey-77ab"
    static let sessionCookie = "cS5-sess-4410ff"
    /// Shorter than the substring length: scrubbed where it stands as a whole token.
    static let shortCookie = "Zq7w"
    static let queryKey = "qK2/key+val ue"
    static let jsonPassword = "jP8-json-pass-3e"
    static let formSecret = "fS6-form-secret"

    static var secrets: [String] {
        [bearer, basicPassword, "\(basicUser):\(basicPassword)", apiKey, sessionCookie, shortCookie, queryKey, jsonPassword, formSecret]
    }

    /// Each secret raw, percent-encoded (upper and lower case escapes), form-encoded,
    /// JSON-escaped, and the Basic credentials base64-encoded.
    static var forms: [String] {
        var forms: [String] = []
        for secret in secrets {
            let encoded = secret.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
            let lowerEscapes = encoded.replacing(/%[0-9A-F]{2}/) { $0.output.lowercased() }
            let formEncoded = encoded.replacingOccurrences(of: "%20", with: "+")
            let jsonEscaped = secret.replacingOccurrences(of: "/", with: "\\/")
            for form in [secret, encoded, lowerEscapes, formEncoded, jsonEscaped] where !forms.contains(form) {
                forms.append(form)
            }
        }
        forms.append(Data("\(basicUser):\(basicPassword)".utf8).base64EncodedString())
        return forms
    }

    static var headers: HTTPFields {
        [
            .authorization: "Basic " + Data("\(basicUser):\(basicPassword)".utf8).base64EncodedString(),
            HTTPField.Name("X-Api-Key")!: apiKey,
            .cookie: "session=\(sessionCookie); pin=\(shortCookie)",
            HTTPField.Name("X-Trace")!: "visible-trace \(shortCookie)",
        ]
    }

    static func percent(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
    }

    /// The requests: every secret in its secret place and repeated in ordinary places.
    static func requests() -> [(HTTPMethod, String, HTTPFields, Data?)] {
        var bearerHeaders = headers
        bearerHeaders[.authorization] = "Bearer \(bearer)"
        var jsonHeaders = headers
        jsonHeaders[.contentType] = "application/json"
        var formHeaders = headers
        formHeaders[.contentType] = "application/x-www-form-urlencoded"
        let json = #"{"password": "\#(jsonPassword)", "comment": "\#(basicPassword)", "note": "mentions \#(jsonPassword) and \#(apiKey)", "n": 1.50}"#
        return [
            (.get, "/api/echo?api_key=\(percent(queryKey))&note=\(percent(basicPassword))&pin=\(shortCookie)&marker=visible-query", headers, nil),
            (.get, "/api/echo/\(percent(basicPassword))/\(percent(sessionCookie))?q=\(percent(apiKey))", headers, nil),
            (.get, "/api/echo?seen=\(bearer)", bearerHeaders, nil),
            (.post, "/api/echo?kind=json", jsonHeaders, Data(json.utf8)),
            (.post, "/api/echo?kind=form", formHeaders, Data("client_secret=\(formSecret)&echo=\(formSecret)&user=\(basicUser)".utf8)),
        ]
    }

    func leaks(in text: String, _ what: String) -> [String] {
        Self.forms.filter { text.contains($0) }.map { "\(what): \($0)" }
    }

    @Test func noSecretFormReachesTheStoreOrTheOutputAndRecordingsStillReplay() async throws {
        let forms = Self.forms
        try await withSampleAPI { api async throws in
            try await withInProcessRecorder(upstream: api, store: store) { recorder async throws in
                for (method, target, headers, body) in Self.requests() {
                    let response = try await recorder.send(method, target, headers: headers, body: body)
                    #expect(response.cassetteSource == "recorded", "\(target)")
                }
                try await recorder.waitForLogLine(containing: "kind=form")
                // While the recorder runs, fresh pages sit in the -wal file.
                for form in forms {
                    #expect(try StoreFiles.files(at: store, containing: form) == [], "secret form \(form) in the store while recording")
                }
                #expect(try !StoreFiles.files(at: store, containing: "visible-trace").isEmpty, "a harmless value must be found, or the search proves nothing")
                await recorder.stop()
                #expect(leaks(in: recorder.standardOutput, "stdout") == [])
                #expect(leaks(in: recorder.standardError, "stderr") == [])
                #expect(recorder.standardOutput.contains("/api/echo/REDACTED/REDACTED"))
            }
        }
        var found = 0
        for form in forms {
            let files = try StoreFiles.files(at: store, containing: form)
            found += files.count
            #expect(files == [], "secret form \(form) in the store")
        }
        let stored = try await StoreFiles.interactions(at: store)
        #expect(stored.count == Self.requests().count)
        let jsonRequest = try #require(stored.first { $0.url.contains("kind=json") })
        // Replaced in place: spacing, key order and the number's spelling are the client's.
        #expect(
            String(decoding: jsonRequest.requestBody ?? Data(), as: UTF8.self)
                == #"{"password": "REDACTED", "comment": "REDACTED", "note": "mentions REDACTED and REDACTED", "n": 1.50}"#)
        #expect(jsonRequest.requestHeaders[.cookie] == "session=REDACTED; pin=REDACTED")
        #expect(jsonRequest.requestHeaders[HTTPField.Name("X-Trace")!] == "visible-trace REDACTED")

        // The same requests, secrets and all, find their recordings.
        try await withInProcessReplayer(store: store) { replayer async throws in
            for (method, target, headers, body) in Self.requests() {
                let response = try await replayer.send(method, target, headers: headers, body: body)
                #expect(response.cassetteSource == "hit", "\(target)")
            }
            await replayer.stop()
            #expect(leaks(in: replayer.standardOutput, "stdout") == [])
            #expect(leaks(in: replayer.standardError, "stderr") == [])
        }
        print("secret forms tried \(forms.count), found in the store's files after recording: \(found)")
    }
}
