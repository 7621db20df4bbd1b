import CassetteTools
import Foundation
import Subprocess
import Synchronization
import WellPlateCore
import WellPlateNetworking

// FilePath, which swift-subprocess takes from System on Apple platforms and from swift-system elsewhere.
#if canImport(System)
import System
#else
import SystemPackage
#endif

/// Runs the user's command for `cassette run` with the proxy's address in its environment.
///
/// swift-subprocess starts it as a shell would, which `Process` does not: on Linux its fork/exec
/// path sets every signal back to its default disposition and unblocks them all before exec.
/// Both matter here: SwiftNIO ignores SIGPIPE in this process, and an ignored signal survives exec
/// (a pipeline such as `yes | head` would see EPIPE errors instead of ending quietly); Swift's pool
/// threads block nearly every signal, and a blocked mask survives exec too.
enum ChildCommand {
    /// The exit status: the command's own, 128 + the signal number when a signal killed it, 127
    /// when it was not found and 126 when it could not be executed, as a shell reports them.
    static func run(_ command: [String], environment extra: [String: String], forwarding signals: SignalWaiter) async -> Int32 {
        let variables = Dictionary(uniqueKeysWithValues: extra.map { (Environment.Key(stringLiteral: $0.key), Optional($0.value)) })
        // Signals that arrive before the command has a pid wait for it: the first one may come as
        // soon as the command runs, before `run` hands over the pid.
        let target = Mutex<(pid: pid_t?, pending: [Int32])>((nil, []))
        let forwarder = Task {
            while let number = await signals.next() {
                let pid = target.withLock { target in
                    if target.pid == nil { target.pending.append(number) }
                    return target.pid
                }
                if let pid { kill(pid, number) }
            }
        }
        defer { forwarder.cancel() }
        do {
            let result = try await Subprocess.run(
                // As a shell does: a name with a slash is a path, any other is looked up in PATH.
                command[0].contains("/") ? .path(FilePath(command[0])) : .name(command[0]),
                arguments: Arguments(Array(command.dropFirst())),
                environment: .inherit.updating(variables),
                input: .fileDescriptor(.standardInput, closeAfterSpawningProcess: false),
                output: .fileDescriptor(.standardOutput, closeAfterSpawningProcess: false),
                error: .fileDescriptor(.standardError, closeAfterSpawningProcess: false)
            ) { execution in
                // `run` waits for the command to end once this returns; signals go to it meanwhile.
                let pid = execution.processIdentifier.value
                for number in target.withLock({ target in
                    target.pid = pid
                    defer { target.pending = [] }
                    return target.pending
                }) {
                    kill(pid, number)
                }
            }
            switch result.terminationStatus {
            case .exited(let code): return code
            case .signaled(let signal): return 128 + signal
            }
        } catch let error as SubprocessError {
            var number = error.underlyingError?.rawValue
            if error.code == .executableNotFound {
                // Reported for a file that exists but is not executable too; a shell tells them apart.
                number = command[0].contains("/") && access(command[0], F_OK) == 0 ? EACCES : ENOENT
            }
            let notFound = number == ENOENT
            let reason = notFound ? "command not found" : number.map { String(cString: strerror($0)) } ?? "\(error)"
            Terminal.printError("cannot run \(command[0]): \(reason)")
            return notFound ? 127 : 126
        } catch {
            Terminal.printError("cannot run \(command[0]): \(error)")
            return 126
        }
    }
}
