import CassetteTools
import Synchronization
import Testing
import WellPlateCore

@Suite("progress line")
struct ProgressLineTests {
    /// Time that moves only when the test says so, and everything the line wrote.
    final class Harness: Sendable {
        let time = Mutex(Duration.zero)
        let writes = Mutex<[String]>([])

        func line(enabled: Bool = true, width: Int = 100) -> ProgressLine {
            ProgressLine(
                enabled: enabled, now: { [self] in time.withLock { $0 } }, width: { width },
                output: { [self] text in writes.withLock { $0.append(text) } })
        }

        func advance(_ duration: Duration) {
            time.withLock { $0 += duration }
        }

        var written: [String] { writes.withLock { $0 } }
    }

    static let clear = "\r\u{1B}[K"

    @Test("a step draws at once, then redraws at most every 100 ms however often the work reports")
    func throttled() throws {
        let harness = Harness()
        let line = harness.line()
        let report = try #require(line.step("auditing", unit: "interactions"))
        report(0, 1000)
        #expect(harness.written == ["\rauditing     0/1000 interactions    0%\u{1B}[K"])
        for done in 1...500 { report(done, 1000) }
        harness.advance(.milliseconds(99))
        report(501, 1000)
        #expect(harness.written.count == 1)
        harness.advance(.milliseconds(1))
        report(502, 1000)
        #expect(harness.written.count == 2)
        // The redraw shows the latest count; the rate needs half a second.
        #expect(harness.written.last == "\rauditing   502/1000 interactions   50%\u{1B}[K")
        harness.advance(.milliseconds(900))
        report(800, 1000)
        #expect(harness.written.last == "\rauditing   800/1000 interactions   80%  800/s  1s left\u{1B}[K")
        #expect(harness.written.count == 3)
    }

    @Test("a new step draws at once; its rate counts from its first report, not from its start")
    func steps() throws {
        let harness = Harness()
        let line = harness.line()
        let reading = try #require(line.step("reading BASE", unit: "recordings"))
        harness.advance(.seconds(5))  // a count or a query before the first row: not in the rate
        reading(0, 100)
        harness.advance(.seconds(10))
        reading(100, 100)
        line.status("checking OURS")
        let writing = try #require(line.step("writing", unit: "recordings"))
        writing(0, 100)
        harness.advance(.seconds(1))
        writing(50, 100)
        #expect(
            harness.written == [
                "\rreading BASE    0/100 recordings    0%\u{1B}[K",
                "\rreading BASE  100/100 recordings  100%  10/s\u{1B}[K",
                "\rchecking OURS\u{1B}[K",
                "\rwriting    0/100 recordings    0%\u{1B}[K",
                "\rwriting   50/100 recordings   50%  50/s  1s left\u{1B}[K",
            ])
        // A late report of an earlier step changes nothing.
        harness.advance(.seconds(1))
        reading(1, 100)
        #expect(harness.written.count == 5)
    }

    @Test("finish clears a drawn line once; later reports draw nothing")
    func finish() throws {
        let harness = Harness()
        let line = harness.line()
        line.finish()
        #expect(harness.written.isEmpty, "nothing drawn, nothing to clear")
        let report = try #require(line.step("auditing", unit: "interactions"))
        report(1, 2)
        line.finish()
        line.finish()
        harness.advance(.seconds(1))
        report(2, 2)
        #expect(harness.written.count == 2)
        #expect(harness.written.last == Self.clear)
    }

    @Test("a line that is not wanted hands out no handler and writes nothing")
    func disabled() {
        let harness = Harness()
        let line = harness.line(enabled: false)
        #expect(line.step("auditing", unit: "interactions") == nil)
        line.status("merging")
        line.finish()
        #expect(harness.written.isEmpty)
    }

    @Test("the line fits the terminal it is drawn on")
    func width() throws {
        let harness = Harness()
        let line = harness.line(width: 30)
        let report = try #require(line.step("auditing", unit: "interactions"))
        report(4200, 10000)
        let drawn = try #require(harness.written.first)
        #expect(drawn == "\rauditing   4200/10000 interac\u{1B}[K")
    }

    @Test(
        "wanted only on a terminal, without --quiet, and not with TERM=dumb; NO_COLOR does not matter",
        arguments: [
            (false, true, ["TERM": "xterm-256color"], true),
            (false, true, [:], true),
            (false, true, ["TERM": "xterm", "NO_COLOR": "1"], true),
            (true, true, ["TERM": "xterm"], false),
            (false, false, ["TERM": "xterm"], false),
            (false, true, ["TERM": "dumb"], false),
        ] as [(Bool, Bool, [String: String], Bool)])
    func wanted(quiet: Bool, terminal: Bool, environment: [String: String], expected: Bool) {
        #expect(ProgressLine.isWanted(quiet: quiet, errorIsTerminal: terminal, environment: environment) == expected)
    }

    @Test("reports from many threads at once: every write is one whole line")
    func concurrentReports() async throws {
        let harness = Harness()
        let line = harness.line()
        let report = try #require(line.step("verifying", unit: "requests"))
        await withTaskGroup(of: Void.self) { group in
            for worker in 0..<8 {
                group.addTask {
                    for done in 0..<2000 {
                        if done % 100 == 0 { harness.advance(.milliseconds(101)) }
                        report(worker * 2000 + done, 16000)
                    }
                }
            }
        }
        line.finish()
        let written = harness.written
        #expect(written.count > 2)
        for text in written.dropLast() {
            #expect(text.hasPrefix("\rverifying ") && text.contains("/16000 requests") && text.hasSuffix("\u{1B}[K"), "\(text.debugDescription)")
        }
        #expect(written.last == Self.clear)
    }
}
