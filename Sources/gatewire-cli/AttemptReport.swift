import Gatewire
import Synchronization

/// The lines the failure observer wrote (on the client's loop thread) until the call's
/// attempts are printed (on the main thread).
final class ObserverLines: Sendable {
    private let lines = Mutex<[String]>([])

    func add(_ line: String) { lines.withLock { $0.append(line) } }

    /// The lines added so far, oldest first; empties the list.
    func take() -> [String] { lines.withLock { lines in defer { lines = [] }; return lines } }
}

/// One attempt as --verbose prints it: "attempt 2: status 503 after 0.012s; retrying in 0.400s (why)".
func describe(_ attempt: Attempt) -> String {
    let outcome = attempt.errorKind.map { "\($0) (\(attempt.message ?? "curl \(attempt.curlCode)"))" } ?? "status \(attempt.status)"
    var line = "attempt \(attempt.number): \(outcome) after \(seconds(attempt.duration))"
    if !attempt.redirects.isEmpty {
        line += "; followed " + attempt.redirects.map { "\($0.status) to \($0.url)" }.joined(separator: ", ")
    }
    if let delay = attempt.delayAfter {
        line += "; retrying in \(seconds(delay)) (\(attempt.decision))"
    } else if !attempt.decision.isEmpty {
        line += "; stopping (\(attempt.decision))"
    }
    return line
}

/// What `gatewire call` reports on stderr while a call runs (``LiveConsole``): with
/// --verbose each attempt line as it happens (one that retries when its retry is scheduled,
/// the last one when the call ends, with its decision), then what the client's global failure
/// observer saw of the call (it runs on the loop thread, before the call's result reaches the
/// main thread, so its lines are held until the last attempt is printed), and whether the
/// call's shared breaker or rate limit decided in process (the store's degradation and
/// recovery are the library's log lines on stderr); on a terminal the status line's progress
/// bar and countdown.
struct AttemptReport {
    let verbose: Bool
    let console: LiveConsole
    private let observed = ObserverLines()
    /// The current call's finished attempt not printed yet, and how many of its attempts were.
    private let live = Lock<(finished: Attempt?, printed: Int)>((nil, 0))

    /// Registers the failure observer (--verbose) and the event monitor that feeds `console`
    /// (when it has anything to show) on `client`.
    init(client: Client, verbose: Bool, console: LiveConsole) {
        self.verbose = verbose
        self.console = console
        guard verbose || console.isTerminal else { return }
        let observed = observed
        if verbose {
            client.addFailureObserver { error in
                observed.add("observer: call failed: kind=\(error.kind) status=\(error.status) \(error.method) \(error.path)")
            }
        }
        let live = live
        client.addEventMonitor { event in
            switch event.kind {
            case .callStarted:
                live.withLock { $0 = (nil, 0) }
                console.callStarted()
            case .attemptStarted:
                console.attemptStarted()
            case .attemptFinished:
                live.withLock { $0.finished = event.record }
            case .retryScheduled:
                console.retryScheduled(after: event.delay ?? 0)
                guard verbose, var attempt = live.withLock({ $0.finished }) else { return }
                attempt.delayAfter = event.delay
                attempt.decision = event.reason ?? ""
                console.print(describe(attempt))
                live.withLock { $0.printed += 1 }
            case .callFinished:
                break
            case .sharedStateDegraded, .sharedStateRecovered:
                break  // the library's log line says it on stderr already, verbose or not
            }
        }
    }

    /// The request with the console's progress bar as its progress handler, on a terminal.
    func watching(_ request: Request) -> Request {
        guard console.isTerminal else { return request }
        var request = request
        let console = console
        request.options.onProgress = { console.progress($0) }
        return request
    }

    /// Prints the call's `attempts` not printed yet (one line each), the observer's lines
    /// since the last call, and when `sharedStateLocal` (``Response/sharedStateLocal``) that
    /// the shared state was decided in process.
    func print(_ attempts: [Attempt], sharedStateLocal: Bool = false) {
        guard verbose else { return }
        for attempt in attempts.dropFirst(live.withLock { $0.printed }) { console.print(describe(attempt)) }
        for line in observed.take() { console.print(line) }
        if sharedStateLocal {
            console.print("shared state: decided in process (the store failed or did not answer in time); "
                + "the circuit breaker and rate limit counted this client's calls only")
        }
    }
}
