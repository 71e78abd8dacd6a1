import Glibc

/// Where the library reports problems it contains rather than propagates: an observer or
/// event monitor that threw, a refresh provider that answered twice. Default: one line on
/// stderr, prefixed `gatewire: `. Never contains credentials (callers pass messages built
/// from kinds, methods and paths only).
public enum Diagnostics {
    private static let sink = Lock<(@Sendable (String) -> Void)?>(nil)

    /// Replaces the sink (nil restores stderr). Process-wide; safe from any thread.
    public static func setSink(_ newSink: (@Sendable (String) -> Void)?) { sink.withLock { $0 = newSink } }

    /// Reports one line.
    package static func report(_ message: String) {
        if let current = sink.withLock({ $0 }) {
            current(message)
        } else {
            let line = Array("gatewire: \(message)\n".utf8)
            _ = line.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
        }
    }
}
