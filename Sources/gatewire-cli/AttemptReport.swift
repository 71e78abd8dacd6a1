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

/// What --verbose prints on stderr: each call's attempts, then what the client's global
/// failure observer saw of the call (it runs on the loop thread, before the call's result
/// reaches the main thread, so its lines are held until the attempts are printed).
struct AttemptReport {
    let verbose: Bool
    private let observed = ObserverLines()

    /// Registers the failure observer on `client` when `verbose`.
    init(client: Client, verbose: Bool) {
        self.verbose = verbose
        guard verbose else { return }
        let observed = observed
        client.addFailureObserver { error in
            observed.add("observer: call failed: kind=\(error.kind) status=\(error.status) \(error.method) \(error.path)")
        }
    }

    /// Prints `attempts` (one line each) and the observer's lines since the last call.
    func print(_ attempts: [Attempt]) {
        guard verbose else { return }
        for attempt in attempts { printError(describe(attempt)) }
        for line in observed.take() { printError(line) }
    }
}
