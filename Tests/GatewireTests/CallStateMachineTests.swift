@testable import Gatewire
import Testing

/// The transitions of one call, with no loop, transfer or socket: each test feeds the events a
/// call would see and checks the action the driver is asked to perform and the phase.
@Suite("CallStateMachine: a call's phases, events and actions")
struct CallStateMachineTests {
    typealias Machine = CallStateMachine

    /// Counts the terminal actions (`fail`, `cancelRetryAndFail`, `complete`) among `actions`.
    static func completions(_ actions: [Machine.Action]) -> Int {
        actions.filter { action in
            switch action {
            case .fail, .cancelRetryAndFail, .complete: true
            default: false
            }
        }.count
    }

    /// A machine with attempt 1 in flight (`sending(1, 0)`).
    static func sending() -> Machine {
        var machine = Machine()
        #expect(machine.handle(.start) == .startAttempt(1))
        #expect(machine.phase == .preparing(attempt: 1))
        #expect(machine.handle(.requestReady) == .send)
        #expect(machine.phase == .sending(attempt: 1, hop: 0))
        return machine
    }

    /// A machine in the retry delay after attempt 1 failed with a retryable status.
    static func backingOff() -> Machine {
        var machine = sending()
        #expect(machine.handle(.transferFinished(.failed)) == .decideRetry)
        #expect(machine.handle(.retryDecided(.retry(delay: 0.5, reason: "status 503 is retryable")))
            == .scheduleRetry(delay: 0.5))
        #expect(machine.phase == .backingOff(next: 2))
        return machine
    }

    @Test("a success maps the response and completes once")
    func success() {
        var machine = Self.sending()
        var actions = [machine.handle(.transferFinished(.succeeded))]
        #expect(actions == [.mapResponse])
        #expect(machine.phase == .mapping)
        actions.append(machine.handle(.mappingFinished))
        #expect(actions.last == .complete)
        #expect(machine.phase == .finished)
        actions.append(machine.handle(.mappingFinished))
        actions.append(machine.handle(.stop(.cancelled)))
        #expect(actions.suffix(2) == [.none, .none])
        #expect(Self.completions(actions) == 1)
    }

    @Test("a retryable status schedules the delay, and the delay starts the next attempt")
    func retryAfterRetryableStatus() {
        var machine = Self.backingOff()
        #expect(machine.handle(.delayElapsed) == .startAttempt(2))
        #expect(machine.phase == .preparing(attempt: 2))
        #expect(machine.handle(.requestReady) == .send)
        #expect(machine.phase == .sending(attempt: 2, hop: 0))
        #expect(machine.handle(.transferFinished(.succeeded)) == .mapResponse)
        #expect(machine.handle(.mappingFinished) == .complete)
    }

    @Test("a stop decision maps the failed attempt's response")
    func retryStop() {
        var machine = Self.sending()
        #expect(machine.handle(.transferFinished(.failed)) == .decideRetry)
        #expect(machine.phase == .sending(attempt: 1, hop: 0))
        #expect(machine.handle(.retryDecided(.stop(reason: "retries exhausted (0)"))) == .mapResponse)
        #expect(machine.phase == .mapping)
        #expect(machine.handle(.mappingFinished) == .complete)
    }

    @Test("the deadline during an attempt aborts the transfer; its completion fails the call")
    func deadlineDuringAttempt() {
        var machine = Self.sending()
        var actions = [machine.handle(.stop(.deadline))]
        #expect(actions == [.abortTransfer(.deadline)])
        #expect(machine.stopping == .deadline)
        actions.append(machine.handle(.stop(.cancelled)))  // a second stop while aborting
        actions.append(machine.handle(.redirect))  // an aborted attempt follows nothing
        #expect(actions.suffix(2) == [.none, .none])
        actions.append(machine.handle(.transferFinished(.failed)))
        #expect(actions.last == .fail(.attemptCutShort(.deadline)))
        #expect(machine.phase == .finished)
        #expect(Self.completions(actions) == 1)
    }

    @Test("the deadline during the retry delay cancels it and fails the call")
    func deadlineDuringBackoff() {
        var machine = Self.backingOff()
        #expect(machine.handle(.stop(.deadline)) == .cancelRetryAndFail(.stopped(.deadline)))
        #expect(machine.phase == .finished)
        #expect(machine.handle(.delayElapsed) == .none)
    }

    @Test("a wait past the deadline fails the call with kind deadline")
    func deadlineBeforeRetry() {
        var machine = Self.sending()
        #expect(machine.handle(.transferFinished(.failed)) == .decideRetry)
        let verdict = RetryPolicy.CallVerdict.failDeadline(reason: "delay 2s exceeds the time left (1s)")
        #expect(machine.handle(.retryDecided(verdict))
            == .fail(.deadlineBeforeRetry(reason: "delay 2s exceeds the time left (1s)")))
        #expect(machine.phase == .finished)
    }

    @Test("cancel during the retry delay cancels it; the timer's late firing does nothing")
    func cancelDuringBackoff() {
        var machine = Self.backingOff()
        let actions = [machine.handle(.stop(.cancelled)), machine.handle(.delayElapsed),
                       machine.handle(.stop(.deadline))]
        #expect(actions == [.cancelRetryAndFail(.stopped(.cancelled)), .none, .none])
        #expect(Self.completions(actions) == 1)
    }

    @Test("a 401 asks the credential; cancel meanwhile fails at once and its answer is ignored")
    func cancelDuringCredentialRefresh() {
        var machine = Self.sending()
        #expect(machine.handle(.transferFinished(.unauthorized)) == .refreshCredential)
        #expect(machine.phase == .awaitingCredential(attempt: 1))
        let actions = [machine.handle(.stop(.cancelled)), machine.handle(.credentialAnswered(.replay))]
        #expect(actions == [.fail(.stopped(.cancelled)), .none])
        #expect(machine.phase == .finished)
    }

    @Test("cancel while a worker maps fails at once and the late outcome is ignored")
    func cancelDuringMapping() {
        var machine = Self.sending()
        #expect(machine.handle(.transferFinished(.succeeded)) == .mapResponse)
        #expect(machine.handle(.mappingOffloaded) == .none)
        #expect(machine.phase == .mapping)
        let actions = [machine.handle(.stop(.cancelled)), machine.handle(.mappingFinished)]
        #expect(actions == [.fail(.stopped(.cancelled)), .none])
        #expect(Self.completions(actions) == 1)
    }

    @Test("the 401 replay happens once: a second 401 goes to the retry layer")
    func unauthorizedReplaysOnce() {
        var machine = Self.sending()
        #expect(machine.handle(.transferFinished(.unauthorized)) == .refreshCredential)
        #expect(machine.handle(.credentialAnswered(.replay)) == .startAttempt(2))
        #expect(machine.handle(.requestReady) == .send)
        #expect(machine.handle(.transferFinished(.unauthorized)) == .decideRetry)
        #expect(machine.phase == .sending(attempt: 2, hop: 0))
        #expect(machine.handle(.retryDecided(.stop(reason: "status 401 is not retryable"))) == .mapResponse)
        #expect(machine.handle(.mappingFinished) == .complete)
    }

    @Test("the credential can keep the 401 or fail the call")
    func credentialKeepsOrFails() {
        var keeping = Self.sending()
        #expect(keeping.handle(.transferFinished(.unauthorized)) == .refreshCredential)
        #expect(keeping.handle(.credentialAnswered(.keep("no refresh"))) == .mapResponse)
        #expect(keeping.phase == .mapping)
        var failing = Self.sending()
        #expect(failing.handle(.transferFinished(.unauthorized)) == .refreshCredential)
        #expect(failing.handle(.credentialAnswered(.fail("refresh failed"))) == .fail(.credential(message: "refresh failed")))
        #expect(failing.phase == .finished)
    }

    @Test("an open breaker fails the retry before anything is sent")
    func openBreaker() {
        var machine = Self.backingOff()
        #expect(machine.handle(.delayElapsed) == .startAttempt(2))
        let message = "the circuit breaker for h is open (the next trial in 5s); no retry was sent"
        #expect(machine.handle(.breakerRefused(message: message)) == .fail(.circuitOpen(message: message)))
        #expect(machine.phase == .finished)
        #expect(machine.handle(.requestReady) == .none)
    }

    @Test("a plugin that fails prepare fails the call")
    func pluginRefusal() {
        var machine = Machine()
        #expect(machine.handle(.start) == .startAttempt(1))
        #expect(machine.handle(.pluginRefused(message: "plugin p failed")) == .fail(.plugin(message: "plugin p failed")))
    }

    @Test("a redirect is the next hop of the same attempt")
    func redirectHop() {
        var machine = Self.sending()
        #expect(machine.handle(.redirect) == .followRedirect)
        #expect(machine.phase == .sending(attempt: 1, hop: 1))
        #expect(machine.handle(.redirect) == .followRedirect)
        #expect(machine.phase == .sending(attempt: 1, hop: 2))
        #expect(machine.handle(.transferFinished(.succeeded)) == .mapResponse)
    }

    @Test("a stop before the call starts fails it, and start then does nothing")
    func stopBeforeStart() {
        var machine = Machine()
        #expect(machine.handle(.stop(.cancelled)) == .fail(.stopped(.cancelled)))
        #expect(machine.handle(.start) == .none)
    }

    @Test("exactly one completion on every path, whatever arrives after it")
    func exactlyOneCompletion() {
        let late: [Machine.Event] = [
            .stop(.cancelled), .stop(.deadline), .delayElapsed, .mappingFinished, .credentialAnswered(.replay),
            .transferFinished(.failed), .retryDecided(.retry(delay: 1, reason: "r")), .requestReady, .redirect, .start,
        ]
        let paths: [[Machine.Event]] = [
            [.start, .requestReady, .transferFinished(.succeeded), .mappingFinished],
            [.start, .requestReady, .stop(.deadline), .transferFinished(.failed)],
            [.start, .requestReady, .transferFinished(.failed), .retryDecided(.retry(delay: 1, reason: "r")),
             .stop(.cancelled)],
            [.start, .requestReady, .transferFinished(.failed), .retryDecided(.failDeadline(reason: "r"))],
            [.start, .requestReady, .transferFinished(.unauthorized), .stop(.cancelled)],
            [.start, .requestReady, .transferFinished(.unauthorized), .credentialAnswered(.fail("no"))],
            [.start, .requestReady, .transferFinished(.succeeded), .mappingOffloaded, .stop(.deadline)],
            [.start, .breakerRefused(message: "open")],
            [.start, .pluginRefused(message: "bad")],
            [.stop(.cancelled)],
        ]
        for path in paths {
            var machine = Machine()
            let actions = (path + late).map { machine.handle($0) }
            #expect(Self.completions(actions) == 1, "path \(path)")
            #expect(machine.phase == .finished)
        }
    }

    @Test("the retry layer: a spent budget turns a retry into a stop, and a deadline stop fails")
    func budgetAndDeadlineRules() {
        let policy = RetryPolicy(maxRetries: 3, jitter: .none)
        let outcome = AttemptOutcome(attempt: 1, status: 503)
        let budget = RetryBudgetState(budget: RetryBudget(maxTokens: 2, tokenRatio: 0.1))
        var generator = SeededGenerator(seed: 1)
        func decide(remaining: Double? = nil) -> RetryPolicy.CallVerdict {
            policy.decideForCall(method: .get, outcome: outcome, test: nil, hasIdempotencyKey: false,
                                 remaining: remaining, previousDelay: nil, budget: budget,
                                 url: "http://127.0.0.1:8080/x", using: &generator)
        }
        #expect(decide() == .retry(delay: 0.5, reason: "status 503 is retryable"))
        #expect(decide(remaining: 0.1) == .failDeadline(reason: "delay 0.5s exceeds the time left (0.1s)"))
        budget.recordFailure()  // 1 of 2 tokens: not more than half
        #expect(decide() == .stop(reason: "the retry budget for 127.0.0.1:8080 is spent (1 of 2 tokens; retries need more than half)"))
        // The budget refuses retries only: a stop for the deadline stays a deadline failure.
        #expect(decide(remaining: 0.1) == .failDeadline(reason: "delay 0.5s exceeds the time left (0.1s)"))
    }
}
