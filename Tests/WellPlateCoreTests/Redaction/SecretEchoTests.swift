import Foundation
import HTTPTypes
import Testing

@testable import WellPlateCore

/// Where a response repeats a secret of its request, the store keeps `REDACTED` and notes which
/// secret it was; replay writes the live request's own value there.
@Suite("Secret echoes")
struct SecretEchoTests {
    let redactor = Redactor.default
    static let echoHeader = HTTPField.Name("X-Echo")!

    /// A response recorded for `request`, as the session stores it: redacted, echoes noted.
    func recorded(request: HTTPFields, responseHeaders: HTTPFields, body: String) -> Interaction {
        let secrets = redactor.redact(requestURL: "/echo", headerFields: request, body: nil).secrets
        let result = redactor.redactCollectingSecrets(responseHeaders: responseHeaders, body: Data(body.utf8), requestSecrets: secrets, echoing: request)
        var interaction = Interaction(
            cassette: "dev", method: .get, url: "/echo", key: "GET /echo", statusCode: 200,
            responseHeaders: Interaction.storedResponseHeaders(result.headerFields, bodyCount: result.body.count, statusCode: 200, method: .get),
            responseBody: result.body)
        interaction.secretEchoes = result.echoes
        return interaction
    }

    @Test func noticingEchoesStoresExactlyWhatPlainRedactionStores() {
        let request: HTTPFields = [
            .authorization: "Basic \(Data("ann:pa55word-long".utf8).base64EncodedString())", .cookie: "sid=abcdefgh12345678; theme=dark",
            HTTPField.Name("X-Api-Key")!: "key/with spaces",
        ]
        let bodies = [
            #"{"auth":"Basic YW5uOnBhNTV3b3JkLWxvbmc=","pw":"pa55word-long","user":"ann:pa55word-long","sid":"abcdefgh12345678"}"#,
            "key%2Fwith%20spaces key%2fwith+spaces key\\/with spaces abcdefgh12345678abcdefgh12345678",
            #"{"access_token":"tok-from-response-123","echo":"abcdefgh12345678"}"#,
            "nothing secret here",
        ]
        for body in bodies {
            let responseHeaders: HTTPFields = [.contentType: "application/json", Self.echoHeader: "sid=abcdefgh12345678 key/with spaces"]
            let secrets = redactor.redact(requestURL: "/echo", headerFields: request, body: nil).secrets
            let plain = redactor.redactCollectingSecrets(responseHeaders: responseHeaders, body: Data(body.utf8), requestSecrets: secrets)
            let noting = redactor.redactCollectingSecrets(responseHeaders: responseHeaders, body: Data(body.utf8), requestSecrets: secrets, echoing: request)
            #expect(noting.body == plain.body, "\(body)")
            #expect(noting.headerFields == plain.headerFields)
            #expect(noting.found == plain.found)
        }
    }

    @Test func aHeaderEchoGetsTheLiveValue() throws {
        let recording = recorded(
            request: [.authorization: "Bearer recorded-token-1"], responseHeaders: [Self.echoHeader: "you sent Bearer recorded-token-1"], body: "")
        #expect(recording.responseHeaders[Self.echoHeader] == "you sent REDACTED")
        let replayed = try #require(recording.echoingSecrets(of: [.authorization: "Bearer live-2"]))
        #expect(replayed.responseHeaders[Self.echoHeader] == "you sent Bearer live-2")
    }

    @Test func aBodyEchoGetsTheLiveValueInTheSameSpellingAndContentLengthFollows() throws {
        let credential = "Bearer rec/orded token"
        let body = #"{"raw":"Bearer rec\/orded token","credential":"rec\/orded token","encoded":"Bearer%20rec%2Forded%20token"}"#
        let recording = recorded(request: [.authorization: credential], responseHeaders: [.contentType: "application/json"], body: body)
        #expect(String(decoding: recording.responseBody, as: UTF8.self) == #"{"raw":"REDACTED","credential":"REDACTED","encoded":"REDACTED"}"#)
        let live = #"Bearer l"ve/x y"#
        let replayed = try #require(recording.echoingSecrets(of: [.authorization: live]))
        let text = String(decoding: replayed.responseBody, as: UTF8.self)
        #expect(text == #"{"raw":"Bearer l\"ve\/x y","credential":"l\"ve\/x y","encoded":"Bearer%20l%22ve%2Fx%20y"}"#)
        #expect(replayed.responseHeaders[.contentLength] == String(replayed.responseBody.count))
        let json = try JSONSerialization.jsonObject(with: replayed.responseBody) as? [String: String]
        #expect(json?["raw"] == live)
    }

    @Test func aCookieEchoGetsTheLiveCookie() throws {
        let recording = recorded(
            request: [.cookie: "theme=dark; sid=recorded-sid-123456"], responseHeaders: [.contentType: "text/plain"],
            body: "cookies: theme=dark; sid=recorded-sid-123456")
        #expect(String(decoding: recording.responseBody, as: UTF8.self) == "cookies: theme=dark; sid=REDACTED")
        #expect(recording.secretEchoes.map(\.source) == [.cookie("sid")])
        let replayed = try #require(recording.echoingSecrets(of: [.cookie: "sid=live; other=1"]))
        #expect(String(decoding: replayed.responseBody, as: UTF8.self) == "cookies: theme=dark; sid=live")
    }

    @Test func basicCredentialsEchoedDecodedGetTheLiveOnes() throws {
        let basic = { (pair: String) in "Basic " + Data(pair.utf8).base64EncodedString() }
        let recording = recorded(
            request: [.authorization: basic("ann:recorded-pass")], responseHeaders: [.contentType: "text/plain"],
            body: "user ann:recorded-pass, password recorded-pass")
        let replayed = try #require(recording.echoingSecrets(of: [.authorization: basic("bob:live-pass")]))
        #expect(String(decoding: replayed.responseBody, as: UTF8.self) == "user bob:live-pass, password live-pass")
    }

    @Test func aSecretTheLiveRequestDoesNotCarryStaysRedacted() {
        let recording = recorded(
            request: [.authorization: "Bearer recorded-token-1"], responseHeaders: [.contentType: "text/plain"], body: "Bearer recorded-token-1")
        #expect(recording.echoingSecrets(of: [:]) == nil)
        #expect(recording.echoingSecrets(of: [.cookie: "sid=abc"]) == nil)
        #expect(String(decoding: recording.responseBody, as: UTF8.self) == "REDACTED")
    }

    @Test func aSecretTheResponseItselfSetIsNeverFilledFromTheRequest() {
        // The token field is the response's own secret: no echo of the request's credential.
        let recording = recorded(
            request: [.authorization: "Bearer recorded-token-1"], responseHeaders: [.contentType: "application/json"],
            body: #"{"access_token":"issued-token-999"}"#)
        #expect(recording.secretEchoes.isEmpty)
        #expect(recording.echoingSecrets(of: [.authorization: "Bearer live"]) == nil)
    }

    @Test func aStreamedRecordingsPiecesFollowTheNewLength() throws {
        var recording = recorded(
            request: [.authorization: "Bearer recorded-token-1"], responseHeaders: [.contentType: "text/plain"], body: "aaaa Bearer recorded-token-1 bbbb")
        recording.responseHeaders[.contentLength] = nil
        recording.chunks = [ResponseChunk(offset: .zero, size: 5), ResponseChunk(offset: .milliseconds(5), size: 13)]
        let replayed = try #require(recording.echoingSecrets(of: [.authorization: "B"]))
        #expect(String(decoding: replayed.responseBody, as: UTF8.self) == "aaaa B bbbb")
        #expect(replayed.chunks?.map(\.size) == [5, 6])
        #expect(replayed.responseHeaders[.contentLength] == nil)
    }

    @Test func aPlaceholderThatMovedIsLeftAlone() {
        var recording = recorded(
            request: [.authorization: "Bearer recorded-token-1"], responseHeaders: [.contentType: "text/plain"], body: "x Bearer recorded-token-1")
        recording.responseBody = Data("REDACTED moved".utf8)
        #expect(recording.echoingSecrets(of: [.authorization: "Bearer live"]) == nil)
    }

    @Test func theEchoesLineRoundTripsAndOlderReadersSkipIt() {
        let echoes = [
            SecretEcho(part: .body, offset: 12, source: .header("authorization"), derivation: .credential, encoding: .json),
            SecretEcho(part: .header("x-echo", occurrence: 1), offset: 0, source: .cookie("my sid:1"), derivation: .whole, encoding: .alphanumericPlusLower),
        ]
        let fields: HTTPFields = [.contentType: "application/json", Self.echoHeader: "a", Self.echoHeader: "b"]
        let text = HeaderLines.encode(fields, echoes: echoes)
        let decoded = HeaderLines.decodeMarked(text)
        #expect(decoded.fields == fields)
        #expect(decoded.echoes == echoes)
        // The line has no colon: a build that does not know it drops it, as it drops any such line.
        let line = text.split(separator: "\n").last.map(String.init) ?? ""
        #expect(line.hasPrefix("(Echoes ") && !line.contains(":"))
        #expect(SecretEchoLine.decode("(Echoes body,x,header,a,whole,raw body,3,header,a,whole,rot13)") == [])
    }

    @Test func theStoreKeepsTheEchoesOfARecording() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("echo-store-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let recording = recorded(
            request: [.authorization: "Bearer recorded-token-1"], responseHeaders: [.contentType: "text/plain"], body: "x Bearer recorded-token-1")
        let store = try await CassetteStore.open(path: directory.appendingPathComponent("c.db").path, access: .readWrite)
        _ = try await store.record(recording)
        let read = try await store.interactions(cassette: "dev")
        try await store.close()
        #expect(read.first?.secretEchoes == recording.secretEchoes)
        #expect(read.first?.secretEchoes.isEmpty == false)
    }
}
