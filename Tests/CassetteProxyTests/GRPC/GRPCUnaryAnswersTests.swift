import Foundation
import HTTPTypes
import NIOCore
import NIOHTTP2
import Testing
import WellPlateCore

@testable import CassetteGRPC

/// A unary method's answers worked out once (`GRPCUnaryAnswers`) are what `GRPCReplay` answers
/// each call: the same recording chosen, nothing answered whole that has to wait or has no
/// trailers, and a live secret matched against its recorded `REDACTED`.
@Suite("gRPC unary answers worked out once per request")
struct GRPCUnaryAnswersTests {
    static let path = GRPCStreamHandlerTests.path
    static let request = Data([0x0A, 0x02, 0x62, 0x31])

    static func recording(_ sequence: Int, request: Data = request, reply: [UInt8], delay: Double = 0) -> Conversation {
        var recording = GRPCStreamHandlerTests.recording(request: request, reply: Data(reply))
        recording.id = Int64(sequence)
        recording.sequence = sequence
        recording.messages[2].offsetMilliseconds = delay
        return recording
    }

    static func answers(_ recordings: [Conversation], waits: Bool = true, redactLive: @escaping @Sendable (Data) -> Data = { $0 }) -> GRPCUnaryAnswers? {
        GRPCUnaryAnswers(path: path, key: "POST \(path)", recordings: recordings, schema: ProtoSchema(), waits: waits, redactLive: redactLive)
    }

    /// The DATA frames' bytes of an answer.
    static func dataBytes(_ frames: [HTTP2Frame.FramePayload]) -> [[UInt8]] {
        frames.compactMap { frame in
            guard case .data(let data) = frame, case .byteBuffer(let buffer) = data.data else { return nil }
            return Array(buffer.readableBytesView)
        }
    }

    @Test func theFirstRecordingInSequenceAnswersARequestRecordedTwice() throws {
        let answers = try #require(Self.answers([Self.recording(1, reply: [0x12, 0x01, 0x41]), Self.recording(2, reply: [0x12, 0x01, 0x42])]))
        let answer = try #require(answers.answer(to: Self.request))
        #expect(answer.recording.id == 1)
        #expect(Self.dataBytes(answer.frames) == [[0, 0, 0, 0, 3, 0x12, 0x01, 0x41]])
        #expect(answer.outcome == "gRPC OK replayed")
        // The frames are the stream path's, made by the same `GRPCReplayAnswer`.
        let recording = Self.recording(1, reply: [0x12, 0x01, 0x41])
        let expected = GRPCReplayAnswer(recording: recording, acceptsGzip: false).frames(
            messages: [recording.messages[2].payload], trailers: recording.grpc!.trailers)
        #expect(answer.frames.map { "\($0)" } == expected.map { "\($0)" })
    }

    @Test func aRequestNoRecordingHoldsHasNoAnswer() throws {
        let answers = try #require(Self.answers([Self.recording(1, reply: [0x12, 0x01, 0x41])]))
        #expect(answers.answer(to: Data([0x0A, 0x02, 0x62, 0x32])) == nil)
    }

    @Test func aRecordedDelayIsAnsweredWholeOnlyWhenNotWaitedFor() throws {
        let delayed = [Self.recording(1, reply: [0x12, 0x01, 0x41], delay: 250)]
        #expect(try #require(Self.answers(delayed, waits: true)).answer(to: Self.request) == nil)
        #expect(try #require(Self.answers(delayed, waits: false)).answer(to: Self.request) != nil)
    }

    @Test func aRecordingWithoutAStatusIsLeftToTheStreamPath() throws {
        var recording = Self.recording(1, reply: [0x12, 0x01, 0x41])
        recording.grpc?.trailers = [:]
        #expect(try #require(Self.answers([recording])).answer(to: Self.request) == nil)
    }

    @Test func aMethodWithAStreamingRecordingHasNoTable() {
        var streaming = Self.recording(2, reply: [0x12, 0x01, 0x42])
        streaming.messages.insert(ConversationMessage(direction: .client, kind: .binary, payload: Self.request, offsetMilliseconds: 0), at: 1)
        #expect(Self.answers([Self.recording(1, reply: [0x12, 0x01, 0x41]), streaming]) == nil)
        #expect(Self.answers([]) == nil)
    }

    @Test func aLiveSecretMatchesTheRecordedRedactedMessage() throws {
        let recorded = Data("\u{0A}\u{08}REDACTED".utf8)
        let live = Data("\u{0A}\u{08}tok-1234".utf8)
        let redact: @Sendable (Data) -> Data = { $0 == live ? recorded : $0 }
        let answers = try #require(Self.answers([Self.recording(1, request: recorded, reply: [0x12, 0x01, 0x41])], redactLive: redact))
        #expect(answers.answer(to: live)?.recording.id == 1)
        #expect(answers.answer(to: Data("\u{0A}\u{08}tok-9999".utf8)) == nil)
    }

    @Test func aGzipRecordingIsCompressedOnlyForAClientThatAcceptsIt() throws {
        var recording = Self.recording(1, reply: Array(repeating: 0x41, count: 64))
        recording.grpc?.responseHeaders = [.contentType: "application/grpc", HTTPField.Name("grpc-encoding")!: "gzip"]
        let answer = try #require(Self.answers([recording])?.answer(to: Self.request))
        let plain = try #require(Self.dataBytes(answer.frames).first)
        let gzipped = try #require(Self.dataBytes(answer.gzipFrames).first)
        #expect(plain.first == 0 && gzipped.first == 1)
        let inflated = GRPCCompression.inflate(GRPCFrame(compressed: true, payload: Data(gzipped.dropFirst(5))), encoding: "gzip", limit: 1024)
        #expect(inflated == Data(repeating: 0x41, count: 64))
        guard case .headers(let headers) = answer.gzipFrames[0], case .headers(let plainHeaders) = answer.frames[0] else {
            Issue.record("an answer starts with its response HEADERS")
            return
        }
        #expect(headers.headers.first(name: "grpc-encoding") == "gzip")
        #expect(plainHeaders.headers.first(name: "grpc-encoding") == nil)
    }

    @Test func aBodyIsOneMessageOrNone() {
        func body(_ bytes: [UInt8]) -> ByteBuffer { ByteBuffer(bytes: bytes) }
        #expect(GRPCService.onlyMessage(of: body([0, 0, 0, 0, 2, 0x08, 0x01]), limit: 64)?.payload == Data([0x08, 0x01]))
        #expect(GRPCService.onlyMessage(of: body([0, 0, 0, 0, 2, 0x08]), limit: 64) == nil, "truncated")
        #expect(GRPCService.onlyMessage(of: body([0, 0, 0, 0, 1, 0x08, 0, 0, 0, 0, 0]), limit: 64) == nil, "two messages")
        #expect(GRPCService.onlyMessage(of: body([2, 0, 0, 0, 1, 0x08]), limit: 64) == nil, "a flag gRPC does not define")
        #expect(GRPCService.onlyMessage(of: body([0, 0, 0, 0, 3, 1, 2, 3]), limit: 2) == nil, "over the limit")
        #expect(GRPCService.onlyMessage(of: body([]), limit: 64) == nil)
        #expect(GRPCService.onlyMessage(of: body([1, 0, 0, 0, 1, 0x08]), limit: 64)?.compressed == true)
    }
}
