import CassetteTools
import Testing

@Suite("progress line text")
struct ProgressTextTests {
    private func text(_ title: String = "auditing", unit: String = "interactions", done: Int, total: Int, elapsed: Duration) -> ProgressText {
        ProgressText(title: title, unit: unit, done: done, total: total, elapsed: elapsed)
    }

    @Test("the count is right-aligned under the total's width, so the line does not jitter")
    func paddedCount() {
        #expect(text(done: 42, total: 10000, elapsed: .zero).line(width: 120) == "auditing     42/10000 interactions    0%")
        #expect(text(done: 4200, total: 10000, elapsed: .zero).line(width: 120) == "auditing   4200/10000 interactions   42%")
        #expect(text(done: 10000, total: 10000, elapsed: .zero).line(width: 120) == "auditing  10000/10000 interactions  100%")
    }

    @Test("rate and time left from the step's average, once half a second has passed")
    func rateAndTimeLeft() {
        #expect(text(done: 2500, total: 10000, elapsed: .seconds(2)).line(width: 120) == "auditing   2500/10000 interactions   25%  1250/s  6s left")
        #expect(text(done: 2500, total: 10000, elapsed: .milliseconds(499)).line(width: 120) == "auditing   2500/10000 interactions   25%")
        #expect(text(done: 0, total: 10000, elapsed: .seconds(3)).line(width: 120) == "auditing      0/10000 interactions    0%")
        // Slow work (live requests) keeps one decimal; the time left is rounded up.
        #expect(
            text("verifying", unit: "requests", done: 7, total: 100, elapsed: .seconds(2)).line(width: 120)
                == "verifying    7/100 requests    7%  3.5/s  27s left")
        // Measured from the first report's count.
        #expect(
            ProgressText(title: "auditing", unit: "interactions", done: 3000, total: 10000, initial: 1000, elapsed: .seconds(2)).line(width: 120)
                == "auditing   3000/10000 interactions   30%  1000/s  7s left")
        #expect(
            ProgressText(title: "auditing", unit: "interactions", done: 1000, total: 10000, initial: 1000, elapsed: .seconds(2)).line(width: 120)
                == "auditing   1000/10000 interactions   10%")
        // Done: no time left.
        #expect(text(done: 10, total: 10, elapsed: .seconds(1)).line(width: 120) == "auditing  10/10 interactions  100%  10/s")
    }

    @Test("an unknown total shows the count and the rate only")
    func unknownTotal() {
        #expect(text("reading", unit: "recordings", done: 1200, total: 0, elapsed: .seconds(1)).line(width: 120) == "reading  1200 recordings  1200/s")
    }

    @Test("a step without a count is its title")
    func status() {
        #expect(text("checking OURS", unit: "", done: 0, total: 0, elapsed: .seconds(5)).line(width: 120) == "checking OURS")
    }

    @Test("more done than counted at the start (rows added meanwhile) never shows more than 100%")
    func overshoot() {
        #expect(text(done: 12, total: 10, elapsed: .zero).line(width: 120) == "auditing  10/10 interactions  100%")
    }

    @Test("a narrow terminal: time left goes first, then the rate, the percentage, then the end of the text")
    func narrowTerminal() {
        let progress = text(done: 2500, total: 10000, elapsed: .seconds(2))
        let full = "auditing   2500/10000 interactions   25%  1250/s  6s left"
        #expect(progress.line(width: full.count + 1) == full)
        #expect(progress.line(width: full.count) == "auditing   2500/10000 interactions   25%  1250/s")
        #expect(progress.line(width: 41) == "auditing   2500/10000 interactions   25%")
        #expect(progress.line(width: 40) == "auditing   2500/10000 interactions")
        #expect(progress.line(width: 20) == "auditing   2500/100")
        for width in 1...80 {
            #expect(progress.line(width: width).count <= max(width - 1, 1), "width \(width)")
        }
    }

    @Test("rates and times left in the units a person reads")
    func units() {
        #expect(ProgressText.rate(0.04) == "0.0/s")
        #expect(ProgressText.rate(9.94) == "9.9/s")
        #expect(ProgressText.rate(9.96) == "10/s")
        #expect(ProgressText.rate(123_456.4) == "123456/s")
        #expect(ProgressText.timeLeft(0) == "0s left")
        #expect(ProgressText.timeLeft(59) == "59s left")
        #expect(ProgressText.timeLeft(60) == "1m00s left")
        #expect(ProgressText.timeLeft(605) == "10m05s left")
        #expect(ProgressText.timeLeft(3725) == "1h02m left")
    }
}
