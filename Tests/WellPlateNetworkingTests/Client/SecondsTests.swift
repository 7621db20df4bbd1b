import Foundation
import TestSupport
import Testing

@testable import WellPlateCore
@testable import WellPlateNetworking

/// Numbers from outside the program become durations in one place, and out-of-range ones are
/// errors that name the range, never integer-conversion traps.
@Suite("Seconds and duration conversions")
struct SecondsTests {
    @Test(arguments: [Double.infinity, -.infinity, .nan, 1e300, 86_400.000_001, -1, -0.001])
    func outOfRangeValuesAreRejected(value: Double) {
        #expect(Seconds(value, allowsZero: true) == nil)
        #expect(Seconds(value, allowsZero: false) == nil)
    }

    @Test func zeroIsAcceptedOnlyWhenAsked() {
        #expect(Seconds(0, allowsZero: true)?.duration == .zero)
        #expect(Seconds(0, allowsZero: false) == nil)
    }

    @Test func theLimitsConvertExactly() throws {
        #expect(try #require(Seconds(86_400, allowsZero: false)).duration == .seconds(86_400))
        #expect(try #require(Seconds(0.25, allowsZero: false)).duration == .milliseconds(250))
        #expect(try #require(Seconds(1e-9, allowsZero: false)).duration == .nanoseconds(1))
        #expect(try #require(Seconds(milliseconds: 86_400_000, allowsZero: false)).duration == .seconds(86_400))
        #expect(Seconds(milliseconds: 9_300_000_000_000, allowsZero: false) == nil)
    }

    @Test func clampingHoldsAnyDoubleInRange() {
        #expect(Seconds(clamping: .infinity).duration == .seconds(86_400))
        #expect(Seconds(clamping: 1e300).duration == .seconds(86_400))
        #expect(Seconds(clamping: -5).duration == .zero)
        #expect(Seconds(clamping: .nan).duration == .zero)
        #expect(Seconds(clamping: 2.5).duration == .milliseconds(2500))
    }

    @Test func durationsBecomeMillisecondsWithoutOverflow() {
        #expect(Duration.seconds(Int64.max).clampedMilliseconds == .max)
        #expect(Duration.seconds(-3).clampedMilliseconds == 0)
        #expect(Duration.milliseconds(1500).clampedMilliseconds == 1500)
        #expect(Duration.microseconds(999).clampedMilliseconds == 0)
        #expect(Duration.clampedMilliseconds(1e300) == .seconds(1_000_000_000))
        #expect(Duration.clampedMilliseconds(.nan) == .zero)
        #expect(Duration.clampedMilliseconds(12.345) == .microseconds(12_345))
    }

    @Test func anUnvalidatedConfigurationNeverTrapsTheClient() throws {
        let client = APIClient(config: AppConfig(apiTimeout: 1e300), transport: FixedUpstream(response: TransportResponse(statusCode: 200)))
        #expect(client.configuration.timeout == .seconds(86_400))
        let error = #expect(throws: ConfigError.self) { try AppConfig(apiTimeout: .infinity).validate() }
        #expect(error?.key == "apiTimeout")
        #expect(error?.accepted == "a number of seconds greater than 0 and at most 86400 (one day)")
    }

    @Test func aMockDelayOutOfRangeIsAConfigurationError() throws {
        do {
            _ = try MockAPIClient(config: AppConfig(mode: .mock, mockResponseDelay: 1e300))
            Issue.record("a delay of 1e300 s was accepted")
        } catch let error as ConfigError {
            #expect(error.key == "mockResponseDelay")
            #expect(error.description.contains("from 0 to 86400"))
        }
    }

    @Test func environmentVariablesOutOfRangeNameTheVariable() {
        for value in ["inf", "1e300", "nan", "-1"] {
            do throws(ConfigError) {
                _ = try AppConfig.load(from: nil, environmentVariables: ["WELLPLATE_API_TIMEOUT": value])
                Issue.record("WELLPLATE_API_TIMEOUT=\(value) was accepted")
            } catch {
                #expect(error.source == "environment variable WELLPLATE_API_TIMEOUT")
                #expect(error.accepted == "a number of seconds greater than 0 and at most 86400 (one day)")
            }
        }
    }

    @Test func aRetryAfterDateFarAwayIsALongDurationNotATrap() throws {
        let now = Date(timeIntervalSince1970: 1_700_000_000)
        let far = try #require(RetryPolicy.parseRetryAfter("Fri, 31 Dec 9999 23:59:59 GMT", now: now))
        #expect(far > .seconds(200_000_000_000))
        #expect(RetryPolicy.default.delay(beforeRetry: 1, retryAfter: far) == nil)
    }
}
