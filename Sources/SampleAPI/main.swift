#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

exit(await SampleAPIProgram.run(arguments: Array(CommandLine.arguments.dropFirst())))
