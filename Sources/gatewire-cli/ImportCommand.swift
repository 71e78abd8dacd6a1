import GatewireBase
import GatewireOpenAPI
import Glibc

/// `gatewire import openapi DOCUMENT [--server N] [--out FILE] [--report FILE]`: writes the
/// gateway config (stdout or FILE) and the report, JSON Lines (stderr or FILE); exits 0 (the
/// report may have lines: the config is still made), 1 (the document cannot be imported:
/// "DOCUMENT: why" or "DOCUMENT#/pointer: why" on stderr) or 2 (a usage error, or an --out or
/// --report file that cannot be written).
func importCommand(_ arguments: ArraySlice<String>) -> Never {
    var arguments = arguments
    switch arguments.popFirst() {
    case "--help", "-h": printLine(Help.importCommand); exit(ExitStatus.success)
    case "openapi": break
    case nil: fail("import needs a format (openapi)", usage: Help.importUsage)
    case let format?: fail("unknown import format \"\(format)\" (expected openapi)", usage: Help.importUsage)
    }
    var document: String?
    var server: Int?
    var out: String?
    var reportFile: String?
    while let argument = arguments.popFirst() {
        func value() -> String {
            guard let value = arguments.popFirst() else { fail("\(argument) needs a value", usage: Help.importUsage) }
            return value
        }
        switch argument {
        case "--help", "-h": printLine(Help.importCommand); exit(ExitStatus.success)
        case "--server":
            let text = value()
            guard let index = Int(text), index >= 0 else { fail("--server takes a server's index (0, 1, ...), not \"\(text)\"") }
            server = index
        case "--out": out = value()
        case "--report": reportFile = value()
        default:
            if argument.hasPrefix("-"), argument != "-" { fail("unknown option \(argument)", usage: Help.importUsage) }
            guard document == nil else { fail("import openapi takes one DOCUMENT", usage: Help.importUsage) }
            document = argument
        }
    }
    guard let document else { fail("import openapi needs a DOCUMENT", usage: Help.importUsage) }
    let result: OpenAPIImport
    do {
        result = try OpenAPIImporter.importDocument(atPath: document, server: server)
    } catch {
        printError("\(error)")
        exit(ExitStatus.failed)
    }
    write(result.config, to: out, orTo: STDOUT_FILENO, flag: "--out")
    write(result.report.jsonLines, to: reportFile, orTo: STDERR_FILENO, flag: "--report")
    exit(ExitStatus.success)
}

/// Writes `text` to the file `path` (created with mode 0644, or truncated), or to `descriptor`
/// when `path` is nil; a file that cannot be written is a usage error naming `flag`.
private func write(_ text: String, to path: String?, orTo descriptor: Int32, flag: String) {
    var text = text
    guard let path else {
        _ = text.withUTF8 { FileWriting.writeAll(UnsafeRawBufferPointer($0), to: descriptor) }
        return
    }
    let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
    guard fd >= 0 else { fail("cannot write \(flag) \(path): " + String(cString: strerror(errno))) }
    let written = text.withUTF8 { FileWriting.writeAll(UnsafeRawBufferPointer($0), to: fd) }
    guard close(fd) == 0, written else { fail("cannot write \(flag) \(path): " + String(cString: strerror(errno))) }
}
