import Glibc

/// Writes a line to stderr.
func printError(_ text: String) {
    var line = text + "\n"
    line.withUTF8 { _ = write(STDERR_FILENO, $0.baseAddress, $0.count) }
}

/// The exit statuses, one per class of outcome, as `gatewire --help` documents them.
enum ExitStatus {
    /// The call succeeded; `check`: the config is valid.
    static let success: Int32 = 0
    /// The call failed (its error is JSON); `check`: the config is invalid.
    static let failed: Int32 = 1
    /// The command line, or a file it names, is wrong; nothing was sent.
    static let usage: Int32 = 2
}

/// A usage error: prints "gatewire: MESSAGE" on stderr, then `usage` (the command's usage
/// lines) when given, and exits 2 (``ExitStatus/usage``).
func fail(_ message: String, usage: String? = nil) -> Never {
    printError("gatewire: \(message)" + (usage.map { "\n\($0)" } ?? ""))
    exit(ExitStatus.usage)
}

/// Writes a line to stdout and flushes it.
func printLine(_ text: String) {
    print(text)
    fflush(nil)
}

/// "1 route", "2 routes": `count` and `noun`, plural unless `count` is 1.
func counted(_ count: Int, _ noun: String) -> String {
    "\(count) \(noun)\(count == 1 ? "" : "s")"
}

/// "1.250s": `value` seconds with three decimals, as the attempt lines show times.
func seconds(_ value: Double) -> String {
    let millis = Int((value * 1000).rounded())
    return "\(millis / 1000).\(String(repeating: "0", count: 3 - String(millis % 1000).count))\(millis % 1000)s"
}

/// Writes a call's result to stdout: `bytes` as they are, then a newline, flushed. When stdout
/// is a terminal (`isatty(1)`) and `anyway` is false (no `--output -`), output that the
/// terminal would act on rather than show (``terminalHazard(in:)``) is not written: stderr
/// says why and how to get it, and the result is false. curl warns of the same ("Binary
/// output can mess up your terminal", src/tool_cb_wrt.c) but looks only for a NUL byte in the
/// first 2,000 bytes; an escape sequence in plain text can
/// clear the screen, retitle the window or rewrite what the user reads.
func writeResult(_ bytes: [UInt8], anyway: Bool) -> Bool {
    if !anyway, isatty(STDOUT_FILENO) == 1, let hazard = terminalHazard(in: bytes) {
        printError("gatewire: the result was not written to the terminal: it \(hazard), which a terminal "
            + "would act on rather than show; use --output FILE to save it, or --output - to write it here anyway")
        return false
    }
    fflush(nil)  // after anything `print` buffered
    let line = bytes + [0x0A]
    var offset = 0
    while offset < line.count {
        let count = line[offset...].withUnsafeBytes { write(STDOUT_FILENO, $0.baseAddress, $0.count) }
        if count < 0, errno == EINTR { continue }
        guard count > 0 else { break }  // a closed pipe: nobody reads the rest
        offset += count
    }
    return true
}

/// What in `bytes` a terminal would act on rather than show, in words ("has the control
/// character 0x1B at byte 3", "is not UTF-8 text"), or nil when it is plain text: UTF-8
/// (RFC 3629) with no C0 control but tab, line feed and carriage return, and no C1 control
/// (U+0080 to U+009F, which some terminals take as CSI and the like), as ECMA-48 defines them.
func terminalHazard(in bytes: [UInt8]) -> String? {
    guard let text = String(validating: bytes, as: UTF8.self) else { return "is not UTF-8 text (binary data)" }
    var offset = 0
    for scalar in text.unicodeScalars {
        let value = scalar.value
        if (value < 0x20 && value != 0x09 && value != 0x0A && value != 0x0D) || (0x80...0x9F).contains(value) {
            let hex = String(value, radix: 16, uppercase: true)
            let code = value < 0x80 ? "0x" + (hex.count < 2 ? "0" : "") + hex : "U+00" + hex
            return "has the control character \(code) at byte \(offset)"
        }
        offset += UTF8.width(scalar)
    }
    return nil
}
