import Gatewire
import Glibc
import Synchronization

/// stderr as `gatewire call` writes to it while a call runs: whole lines at any time (from
/// the client's loop thread or the main thread), and, when stderr is a terminal, one status
/// line under them, redrawn in place (`\r`, erase to the end of the line): the page being
/// fetched (--all-pages), a progress bar once an attempt's transfer has taken longer than
/// ``barDelay`` (size, rate, ETA), and with --verbose the countdown of a backoff wait.
/// On anything else (a pipe, a file) only whole lines are written: output for tools.
///
/// Every write happens under one lock, so a line never lands in the middle of the status.
final class LiveConsole: Sendable {
    /// Whether stderr is a terminal (`isatty(2)`): only then is a status line drawn.
    let isTerminal: Bool
    /// Whether the countdown of a backoff wait is shown (--verbose).
    let showsWaits: Bool
    /// Whether each call is a page whose number is shown (--all-pages).
    let countsPages: Bool
    /// How long an attempt's transfer runs before its progress bar appears, in seconds.
    static let barDelay = 0.5

    private struct State {
        /// The status text on screen; "" when none.
        var shown = ""
        /// Whether the attempt's progress bar has been drawn (its final size then stays).
        var barShown = false
        var page: Int?
        var attemptStartedAt = 0.0
        var progress: TransferProgress?
        /// When the next attempt starts (``MonotonicClock``), while a retry delay runs.
        var retryAt: Double?
        var ticking = false
    }

    private let state = Mutex(State())

    init(showsWaits: Bool, countsPages: Bool) {
        isTerminal = isatty(STDERR_FILENO) == 1
        self.showsWaits = showsWaits
        self.countsPages = countsPages
    }

    /// Writes `line` on stderr above the status line.
    func print(_ line: String) {
        state.withLock { state in
            write(Self.erase(state.shown) + line + "\n")
            state.shown = ""
            redraw(&state)
        }
    }

    /// An attempt starts: its transfer's clock starts, a retry countdown ends.
    func attemptStarted() {
        state.withLock { state in
            state.attemptStartedAt = MonotonicClock.now()
            state.progress = nil
            state.barShown = false
            state.retryAt = nil
            redraw(&state)
        }
    }

    /// The attempt's progress; a final report ends its bar with the final size, kept on screen.
    func progress(_ progress: TransferProgress) {
        state.withLock { state in
            state.progress = progress
            guard progress.isFinal else { return redraw(&state) }
            if state.barShown {
                write(Self.erase(state.shown) + Self.bar(progress, elapsed: MonotonicClock.now() - state.attemptStartedAt) + "\n")
                state.shown = ""
            }
            state.progress = nil
            state.barShown = false
            redraw(&state)
        }
    }

    /// A retry waits `delay` seconds: counted down on the status line (``showsWaits``).
    func retryScheduled(after delay: Double) {
        state.withLock { state in
            state.retryAt = MonotonicClock.now() + delay
            redraw(&state)
        }
    }

    /// A call starts: with --all-pages, the next page (1, 2, ...).
    func callStarted() {
        guard countsPages else { return }
        state.withLock { state in
            state.page = (state.page ?? 0) + 1
            redraw(&state)
        }
    }

    /// Takes the status line off the screen (before stdout is written, and at the end); the
    /// next redraw puts it back.
    func clearStatus() {
        state.withLock { state in
            write(Self.erase(state.shown))
            state.shown = ""
        }
    }

    /// On a terminal, redraws the status line every 100 ms on a thread of its own until
    /// ``stop()`` (the countdown and the rate move while no byte arrives). Nothing otherwise.
    func start() {
        guard isTerminal else { return }
        state.withLock { $0.ticking = true }
        var thread = pthread_t()
        let context = Unmanaged.passRetained(self).toOpaque()
        let rc = pthread_create(&thread, nil, { context in
            let console = Unmanaged<LiveConsole>.fromOpaque(context!).takeRetainedValue()
            while console.tick() { usleep(100_000) }
            return nil
        }, context)
        if rc == 0 { pthread_detach(thread) } else { Unmanaged<LiveConsole>.fromOpaque(context).release() }
    }

    /// Stops the redraws and clears the status line.
    func stop() {
        state.withLock { state in
            state.ticking = false
            write(Self.erase(state.shown))
            state.shown = ""
        }
    }

    /// One redraw; false once stopped.
    private func tick() -> Bool {
        state.withLock { state in
            guard state.ticking else { return false }
            redraw(&state)
            return true
        }
    }

    /// Draws the status the state describes, when it differs from the one shown.
    private func redraw(_ state: inout State) {
        guard isTerminal else { return }
        let now = MonotonicClock.now()
        var parts: [String] = []
        if let page = state.page { parts.append("page \(page)") }
        if showsWaits, let retryAt = state.retryAt, retryAt > now {
            parts.append("retrying in \(Int((retryAt - now).rounded(.up)))s")
        } else if let progress = state.progress, state.barShown || now - state.attemptStartedAt > Self.barDelay {
            state.barShown = true
            parts.append(Self.bar(progress, elapsed: now - state.attemptStartedAt))
        }
        let text = parts.joined(separator: "  ")
        guard text != state.shown else { return }
        write(Self.erase(state.shown) + text)
        state.shown = text
    }

    /// What erases `shown` from the screen: a carriage return and erase-in-line, or nothing.
    private static func erase(_ shown: String) -> String { shown.isEmpty ? "" : "\r\u{1B}[K" }

    private func write(_ text: String) {
        guard !text.isEmpty else { return }
        var text = text
        text.withUTF8 { _ = Glibc.write(STDERR_FILENO, $0.baseAddress, $0.count) }
    }

    /// `[=====>    ] 1.2 MiB / 4.0 MiB  350.0 KiB/s  ETA 3s`: the direction moving bytes
    /// (the upload until its body is sent, then the download), its rate over the attempt so
    /// far, and, with a known total, the bar and the time left at that rate.
    static func bar(_ progress: TransferProgress, elapsed: Double) -> String {
        let uploading = (progress.bytesToSend ?? 0) > 0 && progress.bytesSent < (progress.bytesToSend ?? 0)
        let done = uploading ? progress.bytesSent : progress.bytesReceived
        let total = uploading ? progress.bytesToSend : progress.bytesToReceive
        let rate = elapsed > 0 ? Double(done) / elapsed : 0
        var text = uploading ? "up " : ""
        if let total, total > 0 {
            let width = 20
            let filled = Int(Double(width) * Double(min(done, total)) / Double(total))
            text += "[" + String(repeating: "=", count: filled) + String(repeating: " ", count: width - filled) + "] "
            text += "\(size(done)) / \(size(total))  \(size(Int64(rate)))/s"
            if !progress.isFinal, rate > 0, done < total {
                text += "  ETA \(Int((Double(total - done) / rate).rounded(.up)))s"
            }
        } else {
            text += "\(size(done))  \(size(Int64(rate)))/s"
        }
        return text
    }

    /// `512 B`, `1.2 KiB`, `3.0 MiB`, `1.5 GiB`.
    static func size(_ bytes: Int64) -> String {
        guard bytes >= 1024 else { return "\(bytes) B" }
        var value = Double(bytes) / 1024
        for unit in ["KiB", "MiB", "GiB"] {
            if value < 1024 || unit == "GiB" {
                let tenths = Int((value * 10).rounded())
                return "\(tenths / 10).\(tenths % 10) \(unit)"
            }
            value /= 1024
        }
        return "\(bytes) B"
    }
}
