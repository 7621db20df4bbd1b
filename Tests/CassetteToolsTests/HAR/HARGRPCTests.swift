import Foundation
import HTTPTypes
import Testing

@testable import CassetteTools
@testable import WellPlateCore

/// A gRPC call in a HAR file as an ordinary HTTP/2 exchange (a `POST` with framed messages in
/// base64, the trailers in `_trailers`, message times in `_grpcMessages`), and back.
@Suite("HAR export and import of gRPC calls")
struct HARGRPCTests {
    static let recordedAt = Date(timeIntervalSince1970: 1_800_000_000)
    static let status = HTTPField.Name("grpc-status")!
    static let message = HTTPField.Name("grpc-message")!
    static let cost = HTTPField.Name("x-cost")!

    /// A server-streaming call: one request, its half-close, two replies, then trailers.
    static let call = Conversation(
        id: 3, cassette: "dev", url: "/shop.v1.Catalog/ListItems", key: "POST /shop.v1.Catalog/ListItems",
        requestHeaders: [.contentType: "application/grpc", .userAgent: "grpc-python"], subprotocol: nil, extensions: nil, recordedAt: recordedAt,
        messages: [
            ConversationMessage(direction: .client, kind: .binary, payload: Data([0x0A, 0x01, 0x62]), offsetMilliseconds: 0.5),
            ConversationMessage(direction: .client, kind: .close, payload: Data(), offsetMilliseconds: 0.75),
            ConversationMessage(direction: .server, kind: .binary, payload: Data([0x0A, 0x02, 0x62, 0x31]), offsetMilliseconds: 20),
            ConversationMessage(direction: .server, kind: .binary, payload: Data(), offsetMilliseconds: 40),
        ],
        end: .closed(by: .server, code: 0, reason: ""),
        grpc: GRPCCallHeads(responseHeaders: [.contentType: "application/grpc"], trailers: [status: "0", message: "", cost: "7"]))

    static func framed(_ payloads: [[UInt8]]) -> String {
        payloads.reduce(into: Data()) { $0.append(GRPCFrame(payload: Data($1)).encoded) }.base64EncodedString()
    }

    @Test func aCallIsAnHTTP2PostWithItsFramedMessagesInBase64AndItsTrailers() throws {
        let exporter = HARExporter(creatorVersion: "test", grpcOrigins: ["dev": "http://127.0.0.1:50051/"])
        let entry = try #require(exporter.archive([], conversations: [Self.call]).log.entries.first)
        #expect(entry.resourceType == nil && entry.webSocketMessages == nil)
        #expect(entry.request.method == "POST")
        #expect(entry.request.url == "http://127.0.0.1:50051/shop.v1.Catalog/ListItems")
        #expect(entry.request.httpVersion == "http/2.0" && entry.response.httpVersion == "http/2.0")
        #expect(entry.request.headers.contains(HARNameValue(name: "User-Agent", value: "grpc-python")))
        #expect(entry.request.postData == HARPostData(mimeType: "application/grpc", text: Self.framed([[0x0A, 0x01, 0x62]]), params: nil, encoding: "base64"))
        #expect(entry.response.status == 200)
        #expect(entry.response.content.encoding == "base64")
        #expect(entry.response.content.text == Self.framed([[0x0A, 0x02, 0x62, 0x31], []]))
        #expect(entry.response.content.size == 9 + 5)
        #expect(entry.response.headers == [HARNameValue(name: "Content-Type", value: "application/grpc")])
        #expect(
            entry.response.trailers == [
                HARNameValue(name: "grpc-status", value: "0"), HARNameValue(name: "grpc-message", value: ""), HARNameValue(name: "x-cost", value: "7"),
            ])
        #expect(
            entry.grpcMessages == [
                HARGRPCMessage(type: "send", time: 1_800_000_000.0005, bodyOffset: 0, size: 3),
                HARGRPCMessage(type: "send", time: 1_800_000_000.00075, end: true),
                HARGRPCMessage(type: "receive", time: 1_800_000_000.02, bodyOffset: 0, size: 4),
                HARGRPCMessage(type: "receive", time: 1_800_000_000.04, bodyOffset: 9, size: 0),
            ])
        #expect(entry.time == 40)
        #expect(entry.timings?.send == 0.75 && entry.timings?.wait == 19.25 && entry.timings?.receive == 20)
        #expect(entry.comment?.hasPrefix("gRPC OK; cassette dev, key POST /shop.v1.Catalog/ListItems") == true, "\(entry.comment ?? "")")
        // Under the names HAR readers see: `_trailers` on the response, `_grpcMessages` on the entry.
        let json = try #require(
            try JSONSerialization.jsonObject(with: HARArchive(log: HARLog(creator: HARCreator(name: "t", version: "1"), entries: [entry])).encoded())
                as? [String: Any])
        let written = try #require(((json["log"] as? [String: Any])?["entries"] as? [[String: Any]])?.first)
        #expect(written["_grpcMessages"] != nil)
        #expect((written["response"] as? [String: Any])?["_trailers"] != nil)
    }

    @Test func anExportedCallImportsBackAsTheSameCall() throws {
        let exporter = HARExporter(creatorVersion: "test", grpcOrigins: ["dev": "http://127.0.0.1:50051"])
        let archive = try HARArchive.decode(exporter.archive([], conversations: [Self.call]).encoded())
        let result = HARImporter(cassette: "dev").convert(archive)
        #expect(result.interactions.isEmpty && result.skipped.isEmpty && result.warnings.isEmpty, "\(result.skipped) \(result.warnings)")
        #expect(result.grpcOrigin == "http://127.0.0.1:50051")
        var imported = try #require(result.conversations.first)
        #expect(imported.key == Self.call.key)
        #expect(imported.url == Self.call.url)
        #expect(imported.grpc == Self.call.grpc)
        #expect(imported.end == Self.call.end)
        #expect(imported.messages.map(\.kind) == Self.call.messages.map(\.kind))
        #expect(imported.messages.map(\.payload) == Self.call.messages.map(\.payload))
        for (read, written) in zip(imported.messages, Self.call.messages) {
            #expect(abs(read.offsetMilliseconds - written.offsetMilliseconds) < 0.01)
        }
        imported.id = Self.call.id
        #expect(imported.requestHeaders == Self.call.requestHeaders)
    }

    /// `startedDateTime` holds milliseconds; the message times count from it, so the offsets of a
    /// call recorded mid-millisecond come back as recorded.
    @Test func offsetsComeBackExactlyWhenTheCallStartedMidMillisecond() throws {
        var call = Self.call
        call.recordedAt = Date(timeIntervalSince1970: 1_800_000_000.123_456_7)
        let entry = HARExporter(creatorVersion: "test").grpcEntry(call)
        #expect(entry.startedDateTime == "2027-01-15T08:00:00.123Z")
        let back = try #require(
            HARImporter(cassette: "dev").convert(HARArchive(log: HARLog(creator: HARCreator(name: "x", version: "1"), entries: [entry]))).conversations.first)
        for (read, written) in zip(back.messages, call.messages) {
            #expect(abs(read.offsetMilliseconds - written.offsetMilliseconds) < 0.000_1, "\(read.offsetMilliseconds) \(written.offsetMilliseconds)")
        }
    }

    @Test func aTrailersOnlyAnswerIsOneHeadersBlockAndStaysTrailersOnly() throws {
        var call = Self.call
        call.messages = [call.messages[0], call.messages[1]]
        call.grpc = GRPCCallHeads(responseHeaders: nil, trailers: [.contentType: "application/grpc", Self.status: "5", Self.message: "item%20nope"])
        call.end = .closed(by: .server, code: 5, reason: "item nope")
        let entry = HARExporter(creatorVersion: "test").grpcEntry(call)
        #expect(entry.response.trailers == nil)
        #expect(entry.response.headers.contains(HARNameValue(name: "grpc-status", value: "5")))
        #expect(entry.response.content.text == "")
        #expect(entry.comment?.hasPrefix("gRPC NOT_FOUND \"item nope\";") == true, "\(entry.comment ?? "")")
        let back = try #require(
            HARImporter(cassette: "dev").convert(HARArchive(log: HARLog(creator: HARCreator(name: "x", version: "1"), entries: [entry]))).conversations.first)
        #expect(back.grpc == call.grpc)
        #expect(back.end == call.end)
    }

    /// mitmproxy and others write no `_trailers` and no `_grpcMessages`: the messages still come
    /// out of the bodies, `grpc-status` from the headers when the tool put it there, OK otherwise.
    @Test func anotherToolsEntryWithTheBodyImportsAsACall() throws {
        let entry = HAREntry(
            startedDateTime: "2026-11-29T10:00:00.000Z", time: 12,
            request: HARRequest(
                method: "POST", url: "https://api.example.com/shop.v1.Catalog/GetItem", httpVersion: "HTTP/2.0", cookies: [],
                headers: [
                    HARNameValue(name: ":authority", value: "api.example.com"), HARNameValue(name: "content-type", value: "application/grpc+proto"),
                    HARNameValue(name: "authorization", value: "Bearer abc"),
                ], queryString: [],
                postData: HARPostData(mimeType: "application/grpc+proto", text: Self.framed([[0x0A, 0x02, 0x62, 0x31]]), params: nil, encoding: "base64"),
                headersSize: -1, bodySize: 9),
            response: HARResponse(
                status: 200, statusText: "", httpVersion: "HTTP/2.0", cookies: [], headers: [HARNameValue(name: "content-type", value: "application/grpc")],
                content: HARContent(size: 8, compression: nil, mimeType: "application/grpc", text: Self.framed([[0x0A, 0x01, 0x78]]), encoding: "base64"),
                redirectURL: "", headersSize: -1, bodySize: 8),
            timings: HARTimings(send: 1, wait: 10, receive: 1))
        let result = HARImporter(cassette: "dev").convert(HARArchive(log: HARLog(creator: HARCreator(name: "mitmproxy", version: "11"), entries: [entry])))
        let call = try #require(result.conversations.first, "\(result.skipped)")
        #expect(call.key == "POST /shop.v1.Catalog/GetItem")
        #expect(call.messages.map(\.direction) == [.client, .client, .server])
        #expect(call.messages.map(\.kind) == [.binary, .close, .binary])
        #expect(call.messages.map(\.offsetMilliseconds) == [0, 1, 11])
        #expect(call.messages[2].payload == Data([0x0A, 0x01, 0x78]))
        #expect(call.requestHeaders[.authorization] == "REDACTED", "\(call.requestHeaders)")
        #expect(call.grpc?.trailers[Self.status] == "0")
        #expect(result.warnings.map(\.reason) == ["no grpc-status in the HAR (the tool left the trailers out); imported as OK"])
        // A body that is not gRPC framing is refused with the reason.
        var broken = entry
        broken.response.content.text = Data([0, 0, 0, 0, 9, 1]).base64EncodedString()
        let refused = HARImporter(cassette: "dev").convert(HARArchive(log: HARLog(creator: HARCreator(name: "x", version: "1"), entries: [broken])))
        #expect(refused.conversations.isEmpty)
        #expect(refused.skipped.first?.reason.contains("not gRPC framing") == true, "\(refused.skipped)")
    }

    @Test func messagesAreWrittenAsProtobufJSONWhenTheStoreHasDescriptors() throws {
        // No descriptors: no `json`, the frames alone.
        let entry = HARExporter(creatorVersion: "test").grpcEntry(Self.call)
        #expect(entry.grpcMessages?.allSatisfy { $0.json == nil } == true)
    }
}
