import CassetteTools
import Foundation

/// The command line as bytes. Swift decodes each argument as UTF-8 and replaces bytes that are
/// not with U+FFFD, so a file name in another encoding (latin-1 `caf\xE9.db`) would silently name
/// another file, and a missing one would be created under the wrong name. Until every path the
/// tool opens keeps its bytes, such an argument is refused before anything is opened.
enum ArgumentBytes {
    /// The error for the first argument that is not UTF-8, shown escaped, or `nil` when all are.
    static func refusal(argc: Int32 = CommandLine.argc, argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?> = CommandLine.unsafeArgv) -> String? {
        for index in 1..<Int(max(argc, 1)) {
            guard let argument = argv[index], String(validatingCString: argument) == nil else { continue }
            let bytes = UnsafeRawBufferPointer(start: argument, count: strlen(argument))
            return "argument \(index) ('\(escaped(bytes))') is not UTF-8; cassette takes file names and arguments in UTF-8 only, "
                + "so it opens nothing rather than the wrong file: rename the file (mv) and run the command again"
        }
        return nil
    }

    /// Printable ASCII as it is; every other byte as `\xNN`, so the message is plain text.
    static func escaped(_ bytes: UnsafeRawBufferPointer) -> String {
        var text = ""
        for byte in bytes {
            if (0x20..<0x7F).contains(byte) && byte != UInt8(ascii: "\\") {
                text.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                text += "\\x" + (byte < 0x10 ? "0" : "") + String(byte, radix: 16, uppercase: true)
            }
        }
        return text
    }
}
