import Foundation
import Testing
import WellPlateCore
import WellPlateNetworking

#if canImport(Glibc)
import Glibc
#endif

/// The test helper that runs executables: it must never leave a child behind.
@Suite("Child process helper")
package struct ChildProcessTests {
    package init() {
    }

    private struct BodyFailed: Error {}

    @Test package func theChildIsStoppedWhenTheBodyThrows() async throws {
        var started: ChildProcess?
        await #expect(throws: BodyFailed.self) {
            try await withSampleAPIProcess { _, process in
                started = process
                throw BodyFailed()
            }
        }
        #expect(started?.exitStatus == .exited(0))
    }

    @Test package func aChildIgnoringSIGTERMIsKilledAfterTheGracePeriod() async throws {
        let process = try await withChildProcess(
            "/bin/sh",
            // Long enough that only the SIGKILL ends it, even when a full parallel run keeps this
            // task from resuming for tens of seconds after the child's first line.
            arguments: ["-c", "trap '' TERM; echo ready; exec sleep 600"],
            gracePeriod: .milliseconds(300)
        ) { process async throws in
            #expect(try await process.firstLineOfOutput() == "ready")
            return process
        }
        #expect(process.exitStatus == .signalled(SIGKILL))
    }

    @Test package func outputIsCapturedAndTheExitCodeReported() async throws {
        try await withChildProcess("/bin/sh", arguments: ["-c", "echo out; echo err >&2; echo \"$GREETING\"; exit 3"], environment: ["GREETING": "hi"]) {
            process async throws in
            #expect(try await process.waitForExit() == .exited(3))
            #expect(process.standardOutput == "out\nhi\n")
            #expect(process.standardError == "err\n")
        }
    }

    @Test package func aMissingProductIsAClearError() async throws {
        do {
            try await withChildProcess("no-such-product") { _ in }
            Issue.record("a missing executable started")
        } catch let error as ChildProcessError {
            #expect(error.description.contains("swift build --product no-such-product"))
        }
    }
}
