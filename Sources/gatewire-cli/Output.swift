import Glibc

/// Writes a line to stderr.
func printError(_ text: String) {
    var line = text + "\n"
    line.withUTF8 { _ = write(STDERR_FILENO, $0.baseAddress, $0.count) }
}

/// Prints "gatewire: MESSAGE" on stderr and exits with `code` (2, a usage error, unless given).
func fail(_ message: String, code: Int32 = 2) -> Never {
    printError("gatewire: \(message)")
    exit(code)
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
