import NIOCore
import NIOHTTP1
import Testing

@testable import CassetteForward
@testable import CassetteKernel
@testable import CassetteProxy
@testable import CassetteServing
@testable import CassetteUIServer
@testable import CassetteWebSocket

/// The connection's decisions, without a channel: what each request part leads to.
@Suite("Proxy connection state machine")
struct ProxyConnectionStateMachineTests {
    let now = NIODeadline.uptimeNanoseconds(1_000)

    func head(_ method: HTTPMethod = .GET, _ uri: String = "/api/users", _ headers: [(String, String)] = []) -> HTTPRequestHead {
        HTTPRequestHead(version: .http1_1, method: method, uri: uri, headers: HTTPHeaders(headers))
    }

    @Test func aRequestWithABodyIsAnsweredAtItsEndWithTheWholeBody() {
        var machine = ProxyConnectionStateMachine(maxBodySize: 100)
        let request = head(.POST, "/api/meals", [("Content-Type", "application/json")])
        let (read, action) = machine.head(request, now: now)
        #expect(read == request)
        #expect(action == .none)
        #expect(machine.body(ByteBuffer(string: "{\"a\":")) == .none)
        #expect(machine.body(ByteBuffer(string: "1}")) == .none)
        #expect(machine.end() == .answer(request, body: ByteBuffer(string: "{\"a\":1}"), started: now, route: .responder))
        #expect(machine.state == .idle)
    }

    @Test func aRequestWithoutABodyIsAnsweredWithNone() {
        var machine = ProxyConnectionStateMachine(maxBodySize: 100)
        let request = head()
        _ = machine.head(request, now: now)
        #expect(machine.end() == .answer(request, body: nil, started: now, route: .responder))
    }

    @Test func aDeclaredLengthOverTheLimitIsRefusedAndTheRestDropped() {
        var machine = ProxyConnectionStateMachine(maxBodySize: 10)
        let request = head(.POST, "/upload", [("Content-Length", "11")])
        #expect(machine.head(request, now: now).1 == .refuse(.tooLarge, request, started: now))
        #expect(machine.body(ByteBuffer(string: "01234567890")) == .none)
        #expect(machine.end() == .none)
        #expect(machine.state == .idle)
    }

    @Test func aBodyThatGrowsPastTheLimitIsRefusedAtTheChunkThatPassesIt() {
        var machine = ProxyConnectionStateMachine(maxBodySize: 10)
        let request = head(.POST, "/upload", [("Transfer-Encoding", "chunked")])
        _ = machine.head(request, now: now)
        #expect(machine.body(ByteBuffer(string: "0123456789")) == .none)
        #expect(machine.body(ByteBuffer(string: "x")) == .refuse(.tooLarge, request, started: now))
        #expect(machine.body(ByteBuffer(string: "y")) == .none)
        #expect(machine.end() == .none)
    }

    @Test func expectContinueAsksForTheBody() {
        var machine = ProxyConnectionStateMachine(maxBodySize: 100)
        let request = head(.PUT, "/a", [("Expect", "100-continue"), ("Content-Length", "2")])
        #expect(machine.head(request, now: now).1 == .sendContinue(.http1_1))
        _ = machine.body(ByteBuffer(string: "ok"))
        #expect(machine.end() == .answer(request, body: ByteBuffer(string: "ok"), started: now, route: .responder))
    }

    @Test(arguments: [("Upgrade", "websocket"), ("Expect", "202-accepted"), ("Upgrade", "TLS/1.2")])
    func anUpgradeOrExpectationTheProxyCannotMeetIsRefused(header: String, value: String) {
        var machine = ProxyConnectionStateMachine(maxBodySize: 100)
        let request = head(.GET, "/socket", [(header, value), ("Connection", "Upgrade")])
        #expect(machine.head(request, now: now).1 == .refuse(.interim(InterimRequestHeaders.decision(for: request)), request, started: now))
        #expect(InterimRequestHeaders.decision(for: request) != .proceed)
        #expect(machine.end() == .none)
    }

    @Test func anH2CUpgradeIsReadAsAPlainRequestThatClosesTheConnection() {
        var machine = ProxyConnectionStateMachine(maxBodySize: 100)
        let request = head(.GET, "/", [("Upgrade", "h2c"), ("HTTP2-Settings", "AAMAAABkAAQCAAAAAAIAAAAA"), ("Connection", "Upgrade, HTTP2-Settings")])
        let (read, action) = machine.head(request, now: now)
        #expect(action == .none)
        #expect(!read.headers.contains(name: "upgrade"))
        #expect(!read.headers.contains(name: "http2-settings"))
        #expect(read.headers["connection"] == ["close"])
        #expect(machine.end() == .answer(read, body: nil, started: now, route: .responder))
    }

    @Test func aControlPathIsRoutedByTheTableWhenItsHeadComes() {
        let table = ControlTable(routes: [ControlTable.Route(path: "/__cassette/health", endpoint: Fixed(), methods: [.GET])])
        var machine = ProxyConnectionStateMachine(maxBodySize: 100, controls: table)
        let health = head(.GET, "/__cassette/health")
        _ = machine.head(health, now: now)
        #expect(machine.end() == .answer(health, body: nil, started: now, route: .control(table.route(.GET, "/__cassette/health"))))
        let refused = head(.DELETE, "/__cassette/health")
        _ = machine.head(refused, now: now)
        guard case .answer(_, _, _, .control(.refuse(let refusal))) = machine.end() else {
            Issue.record("expected the table's refusal")
            return
        }
        #expect(refusal.status == 405)
        let other = head(.GET, "/api/health")
        _ = machine.head(other, now: now)
        #expect(machine.end() == .answer(other, body: nil, started: now, route: .responder))
    }

    private struct Fixed: ControlEndpoint {
        func answer(_ request: ControlRequest) -> ControlAnswer { .now(.error(200, code: "ok", message: "ok")) }
    }

    @Test func aParserErrorIsAnsweredOnceThenTheConnectionOnlyCloses() {
        var machine = ProxyConnectionStateMachine(maxBodySize: 100)
        #expect(machine.error(HTTPParserError.invalidHeaderToken) == .rejectMalformed(.invalidHeaderToken))
        #expect(machine.error(HTTPParserError.invalidHeaderToken) == .close)
        #expect(machine.head(head(), now: now).1 == .none)
        #expect(machine.end() == .none)
    }

    @Test func anyOtherErrorCloses() {
        var machine = ProxyConnectionStateMachine(maxBodySize: 100)
        #expect(machine.error(ChannelError.ioOnClosedChannel) == .close)
    }
}
