@testable import Gatewire
import Testing

/// The transitions of one call, with no loop, transfer in flight or socket: each test feeds
/// the events a call would see and checks the action the driver is asked to perform, the
/// data it carries, and the attempts the machine keeps.
@Suite("CallStateMachine: a call's states, events and actions")
struct CallStateMachineTests {
    typealias Machine = CallStateMachine

    // MARK: Fixtures

    static let url = "http://127.0.0.1:8080/items"

    static func response(_ status: Int, location: String? = nil) -> HTTPResponse {
        HTTPResponse(status: status, headers: ["Retry-After": "1"], body: Array("{}".utf8), effectiveURL: url,
                     httpVersion: "1.1", redirectURL: location)
    }

    /// A hop's result: a response of `status`, or a transport failure of `kind`.
    static func hop(_ status: Int, location: String? = nil, bytesSent: Int64 = 10) -> TransferResult {
        var result = TransferResult(stored: response(status, location: location))
        result.bytesSent = bytesSent
        result.requestSent = true
        return result
    }

    static func hop(failing kind: ErrorKind) -> TransferResult {
        var result = TransferResult(stored: response(200))
        result.response = nil
        result.error = TransportError(kind: kind, curlCode: 28, message: "\(kind.name) failed")
        result.requestSent = true
        return result
    }

    static func transfer() -> Transfer {
        Transfer(request: HTTPRequest(method: .get, url: url), options: TransferOptions()) { _ in }
    }

    static func sent(_ transfer: Transfer = transfer(), offset: Double = 0, trial: Bool = false, timeout: Double? = 10,
                     cache: Machine.CacheExchange? = nil) -> Machine.SentAttempt {
        var options = TransferOptions()
        options.timeout = timeout
        return Machine.SentAttempt(transfer: transfer, request: HTTPRequest(method: .get, url: url), startOffset: offset,
                                   sentAt: 100 + offset, trial: trial,
                                   context: PluginContext(method: .get, path: "/items", route: nil, attempt: 1),
                                   options: options, cache: cache)
    }

    /// A machine with attempt `n`'s transfer in flight (attempts before it failed with 503
    /// and were retried after 0.5 s).
    static func sending(attempt n: Int = 1, credential: Bool = false, transfer: Transfer = transfer()) -> Machine {
        var machine = Machine(hasCredential: credential)
        guard case .prepareAttempt(1) = machine.start() else { Issue.record("start"); return machine }
        for _ in 1..<n {
            _ = machine.requestPrepared(sent())
            _ = machine.transferFinished(hop(503), redirect: .final, elapsed: 1, deadlinePassed: false, leftOrigin: false)
            _ = machine.attemptReported(response: response(503), revalidated: false, elapsed: 1)
            _ = machine.retryDecided(.retry(delay: 0.5, reason: "status 503 is retryable"), bodySinkRefusal: nil)
            machine.retryTimerArmed(7)
            _ = machine.delayElapsed()
        }
        guard case .startTransfer(let started) = machine.requestPrepared(sent(transfer)), started === transfer else {
            Issue.record("requestPrepared")
            return machine
        }
        return machine
    }

    /// Attempt 1 ended with `hop` and was reported as received.
    static func reported(_ hop: TransferResult, credential: Bool = false, leftOrigin: Bool = false)
        -> (Machine, Machine.AttemptReportedAction)
    {
        var machine = sending(credential: credential)
        _ = machine.transferFinished(hop, redirect: .final, elapsed: 2, deadlinePassed: false, leftOrigin: leftOrigin)
        let action = machine.attemptReported(response: hop.response, revalidated: false, elapsed: 2)
        return (machine, action)
    }

    /// A machine in the retry delay after attempt 1 failed with 503 (timer 7).
    static func backingOff() -> Machine {
        var (machine, action) = reported(hop(503))
        guard case .decideRetry = action else { Issue.record("decideRetry"); return machine }
        guard case .scheduleRetry(0.5, _, let attempt) = machine.retryDecided(
            .retry(delay: 0.5, reason: "status 503 is retryable"), bodySinkRefusal: nil)
        else { Issue.record("scheduleRetry"); return machine }
        #expect(attempt.delayAfter == 0.5 && attempt.decision == "status 503 is retryable")
        machine.retryTimerArmed(7)
        return machine
    }

    /// A machine whose 401 is with the credential (close observer 3).
    static func awaitingCredential() -> Machine {
        var (machine, action) = reported(hop(401), credential: true)
        guard case .askCredential(_, let sentAt) = action else { Issue.record("askCredential"); return machine }
        #expect(sentAt == 100)
        machine.credentialAsked(closeObserver: 3)
        return machine
    }

    /// A machine mapping attempt 1's 200, on a worker (close observer 4).
    static func mappingOffloaded() -> Machine {
        var (machine, action) = reported(hop(200))
        guard case .map = action else { Issue.record("map"); return machine }
        machine.mappingOffloaded(closeObserver: 4)
        return machine
    }

    // MARK: The happy path

    @Test("a success: start, send, report, map, complete; the attempt is recorded once")
    func success() {
        let transfer = Self.transfer()
        var machine = Self.sending(transfer: transfer)
        #expect(machine.transferInFlight === transfer)
        guard case .reportAttempt(let report) = machine.transferFinished(
            Self.hop(200), redirect: .final, elapsed: 0.25, deadlinePassed: false, leftOrigin: false)
        else { Issue.record("reportAttempt"); return }
        #expect(report.attempt.number == 1 && report.attempt.status == 200 && report.attempt.duration == 0.25)
        #expect(report.record == .ended(status: 200, failed: false))
        #expect(report.response?.status == 200 && report.cache == nil)
        #expect(machine.transferInFlight == nil)
        guard case .map(let input) = machine.attemptReported(response: report.response, revalidated: false, elapsed: 0.25)
        else { Issue.record("map"); return }
        #expect(input.result.response?.status == 200 && !input.fromCache && !input.redirected)
        guard case .complete(_, let waits) = machine.mappingFinished() else { Issue.record("complete"); return }
        #expect(waits.closeObserver == nil && waits.retryTimer == nil)
        #expect(machine.attempts.map(\.decision) == [""])
        guard case .finished = machine.state else { Issue.record("finished"); return }
    }

    // MARK: Retries

    @Test("a retryable status schedules the delay; the delay prepares the next attempt")
    func retryAfterRetryableStatus() {
        var machine = Self.backingOff()
        guard case .prepareAttempt(2) = machine.delayElapsed() else { Issue.record("prepareAttempt(2)"); return }
        _ = machine.requestPrepared(Self.sent(offset: 1))
        _ = machine.transferFinished(Self.hop(503), redirect: .final, elapsed: 2, deadlinePassed: false, leftOrigin: false)
        guard case .decideRetry(let outcome, let previous) = machine.attemptReported(
            response: Self.response(503), revalidated: false, elapsed: 2)
        else { Issue.record("decideRetry"); return }
        #expect(outcome.attempt == 2 && outcome.status == 503 && outcome.header("Retry-After") == "1")
        #expect(outcome.elapsed == 2 && previous == 0.5)
        guard case .map(let input) = machine.retryDecided(.stop(reason: "retries exhausted (1)"), bodySinkRefusal: nil)
        else { Issue.record("map"); return }
        #expect(input.result.response?.status == 503)
        #expect(machine.attempts.map(\.decision) == ["status 503 is retryable", "retries exhausted (1)"])
    }

    @Test("a wait past the deadline fails the call with kind deadline and the attempt's status")
    func deadlineBeforeRetry() {
        var (machine, _) = Self.reported(Self.hop(503))
        guard case .fail(let failure) = machine.retryDecided(.failDeadline(reason: "delay 2s exceeds the time left (1s)"),
                                                             bodySinkRefusal: nil)
        else { Issue.record("fail"); return }
        #expect(failure.kind == .deadline && failure.status == 503 && failure.response?.status == 503)
        #expect(failure.message == "the call's deadline would pass before the next attempt (delay 2s exceeds the time left (1s))")
        #expect(machine.attempts.last?.decision == "delay 2s exceeds the time left (1s)")
    }

    @Test("the body sink's refusal turns a retry into a stop with its reason; a stop keeps its own")
    func bodySinkRefusal() {
        let refusal = "not retried: 5 body bytes already reached the chunk consumer"
        var (refused, _) = Self.reported(Self.hop(503))
        guard case .map(let input) = refused.retryDecided(.retry(delay: 0.5, reason: "status 503 is retryable"),
                                                          bodySinkRefusal: refusal)
        else { Issue.record("map"); return }
        #expect(input.result.response?.status == 503)
        #expect(refused.attempts.last?.decision == refusal && refused.attempts.last?.delayAfter == nil)
        var (stopped, _) = Self.reported(Self.hop(503))
        guard case .map = stopped.retryDecided(.stop(reason: "retries exhausted (0)"), bodySinkRefusal: refusal)
        else { Issue.record("map"); return }
        #expect(stopped.attempts.last?.decision == "retries exhausted (0)")
    }

    @Test("a transport failure asks the retry layer; a timeout after the deadline is the deadline's")
    func transportFailure() {
        var (machine, action) = Self.reported(Self.hop(failing: .connect))
        guard case .decideRetry(let outcome, nil) = action else { Issue.record("decideRetry"); return }
        #expect(outcome.errorKind == .connect && outcome.status == 0 && outcome.requestSent)
        _ = machine.retryDecided(.stop(reason: "x"), bodySinkRefusal: nil)
        var late = Self.sending()
        guard case .reportAttempt(let report) = late.transferFinished(
            Self.hop(failing: .timeout), redirect: .final, elapsed: 5, deadlinePassed: true, leftOrigin: false)
        else { Issue.record("reportAttempt"); return }
        #expect(report.attempt.errorKind == .deadline && report.record == .uncounted)
    }

    // MARK: Redirects

    @Test("a followed redirect is the next hop of the same attempt; its chain is summed")
    func redirectHops() {
        var machine = Self.sending()
        let next = HTTPRequest(method: .get, url: "http://127.0.0.1:8080/next")
        guard case .followRedirect(let request, let options, _, 1, 0) = machine.transferFinished(
            Self.hop(302, location: next.url, bytesSent: 7), redirect: .follow(next), elapsed: 3, deadlinePassed: false,
            leftOrigin: false)
        else { Issue.record("followRedirect"); return }
        #expect(request.url == next.url && options.timeout == 7)  // 10 s less the 3 s spent
        let second = Self.transfer()
        machine.hopStarted(second)
        #expect(machine.transferInFlight === second)
        guard case .reportAttempt(let report) = machine.transferFinished(
            Self.hop(200, bytesSent: 5), redirect: .final, elapsed: 4, deadlinePassed: false, leftOrigin: false)
        else { Issue.record("reportAttempt"); return }
        #expect(report.attempt.redirects == [RedirectHop(status: 302, url: next.url)])
        #expect(report.attempt.bytesSent == 12)
        guard case .map(let input) = machine.attemptReported(response: report.response, revalidated: false, elapsed: 4)
        else { Issue.record("map"); return }
        #expect(input.redirected && input.refusedRedirect == nil)
    }

    @Test("a refused redirect is the response, with why it was not followed")
    func refusedRedirect() {
        var machine = Self.sending()
        _ = machine.transferFinished(Self.hop(301, location: "http://127.0.0.1:9/x"), redirect: .refuse("too many"),
                                     elapsed: 1, deadlinePassed: false, leftOrigin: false)
        guard case .map(let input) = machine.attemptReported(response: Self.response(301), revalidated: false, elapsed: 1)
        else { Issue.record("map"); return }
        #expect(input.refusedRedirect == "redirect not followed: 301 to http://127.0.0.1:9/x: too many")
    }

    // MARK: The credential

    @Test("a 401 asks the credential once; its replay is the next attempt, whose 401 goes to the retry layer")
    func credentialReplaysOnce() {
        var machine = Self.awaitingCredential()
        #expect(machine.attempts.last?.decision == "401: asking the credential")
        guard case .prepareAttempt(2, let waits) = machine.credentialAnswered(.replay) else {
            Issue.record("prepareAttempt(2)"); return
        }
        #expect(waits.closeObserver == 3)
        _ = machine.requestPrepared(Self.sent())
        _ = machine.transferFinished(Self.hop(401), redirect: .final, elapsed: 1, deadlinePassed: false, leftOrigin: false)
        guard case .decideRetry = machine.attemptReported(response: Self.response(401), revalidated: false, elapsed: 1)
        else { Issue.record("decideRetry"); return }
        #expect(machine.attempts.map(\.decision).first == "401: replayed with the refreshed credential")
    }

    @Test("the credential can keep the 401 or fail the call with kind auth")
    func credentialKeepsOrFails() {
        var keeping = Self.awaitingCredential()
        guard case .map(let input, let waits) = keeping.credentialAnswered(.keep("no refresh")) else {
            Issue.record("map"); return
        }
        #expect(input.result.response?.status == 401 && waits.closeObserver == 3)
        #expect(keeping.attempts.last?.decision == "401: no refresh")
        var failing = Self.awaitingCredential()
        guard case .fail(let failure, _) = failing.credentialAnswered(.fail("refresh failed")) else {
            Issue.record("fail"); return
        }
        #expect(failure.kind == .auth && failure.status == 401 && failure.message == "refresh failed")
    }

    @Test("a 401 from another origin, or without a credential, is the retry layer's")
    func unauthorizedNotTheCredentials() {
        guard case .decideRetry = Self.reported(Self.hop(401), credential: true, leftOrigin: true).1 else {
            Issue.record("left origin"); return
        }
        guard case .decideRetry = Self.reported(Self.hop(401), credential: false).1 else {
            Issue.record("no credential"); return
        }
    }

    // MARK: Prepare failures and the cache's answer

    @Test("an open breaker refuses the first attempt (nothing sent) or a retry (noted on the last attempt)")
    func openBreaker() {
        var first = Machine(hasCredential: false)
        _ = first.start()
        guard case .fail(let failure, nil, false) = first.prepareFailed(.circuitOpen(host: "h", retryIn: 5.0004),
                                                                        trial: false)
        else { Issue.record("fail"); return }
        #expect(failure.kind == .circuitOpen && failure.status == 0 && failure.response == nil)
        #expect(failure.message == "the circuit breaker for h is open (the next trial in 5s); nothing was sent")
        var retry = Self.backingOff()
        _ = retry.delayElapsed()
        guard case .fail(let refused, _, _) = retry.prepareFailed(.circuitOpen(host: "h", retryIn: 0), trial: false)
        else { Issue.record("fail"); return }
        #expect(refused.message == "the circuit breaker for h is open (a trial call is running); no retry was sent")
        #expect(refused.status == 503 && refused.response?.status == 503)
        #expect(retry.attempts.last?.decision == "status 503 is retryable; the open circuit breaker refused the retry")
    }

    @Test("a plugin's refusal fails the call and gives back the breaker trial it was admitted as")
    func pluginRefusal() {
        var machine = Machine(hasCredential: false)
        _ = machine.start()
        guard case .fail(let failure, .uncounted?, true) = machine.prepareFailed(.plugin(message: "plugin p failed"),
                                                                                 trial: true)
        else { Issue.record("fail with the trial given back"); return }
        #expect(failure.kind == .plugin && failure.status == 0 && failure.message == "plugin p failed")
        #expect(machine.attempts.isEmpty)
    }

    @Test("a call that cannot be built fails before it starts; start then does nothing")
    func buildFailure() {
        var machine = Machine(hasCredential: false)
        let error = GatewireError(kind: .invalidArgument, message: "unknown route \"x\"", method: .get, path: "x")
        guard case .fail(let failed) = machine.buildFailed(error) else { Issue.record("fail"); return }
        #expect(failed.kind == .invalidArgument && failed.message == "unknown route \"x\"")
        guard case .none = machine.start() else { Issue.record("start after the failure"); return }
        guard case .none = machine.stop(.cancelled) else { Issue.record("stop after the failure"); return }
    }

    @Test("a fresh cache hit is mapped with nothing sent; a revalidated 304 maps the stored response")
    func cacheAnswer() {
        var machine = Machine(hasCredential: false)
        _ = machine.start()
        guard case .map(let input, .uncounted, true) = machine.cacheAnswered(Self.response(200), trial: true) else {
            Issue.record("map, giving back the trial"); return
        }
        #expect(input.fromCache && !input.revalidated && input.result.response?.status == 200 && !input.result.requestSent)
        #expect(machine.attempts.isEmpty)
        guard case .complete = machine.mappingFinished() else { Issue.record("complete"); return }

        let exchange = Machine.CacheExchange(lookup: .bypass, requestTime: 1)
        var revalidating = Machine(hasCredential: false)
        _ = revalidating.start()
        _ = revalidating.requestPrepared(Self.sent(cache: exchange))
        guard case .reportAttempt(let report) = revalidating.transferFinished(
            Self.hop(304), redirect: .final, elapsed: 1, deadlinePassed: false, leftOrigin: false)
        else { Issue.record("reportAttempt"); return }
        #expect(report.cache?.direct == true && report.cache?.request.url == Self.url)
        guard case .map(let stored) = revalidating.attemptReported(response: Self.response(200), revalidated: true,
                                                                   elapsed: 1)
        else { Issue.record("map"); return }
        #expect(stored.fromCache && stored.revalidated && stored.result.response?.status == 200)
        #expect(revalidating.attempts.last?.status == 304)  // the attempt keeps the 304 it was
    }

    // MARK: Stop in every state

    @Test("stop before the start fails the call at once")
    func stopIdle() {
        var machine = Machine(hasCredential: false)
        guard case .fail(let failure, _) = machine.stop(.cancelled) else { Issue.record("fail"); return }
        #expect(failure.kind == .cancelled && failure.message == "the call was cancelled" && failure.status == 0)
        guard case .none = machine.start() else { Issue.record("start after stop"); return }
    }

    @Test("stop while preparing a retry reports the retried response")
    func stopPreparing() {
        var machine = Self.backingOff()
        _ = machine.delayElapsed()
        guard case .fail(let failure, let waits) = machine.stop(.deadline) else { Issue.record("fail"); return }
        #expect(failure.kind == .deadline && failure.status == 503 && failure.response?.status == 503)
        #expect(waits.retryTimer == nil)
    }

    @Test("stop in flight aborts the transfer; its completion fails the call, cut short, once")
    func stopSending() {
        let transfer = Self.transfer()
        var machine = Self.sending(transfer: transfer)
        guard case .abortTransfer(let aborted, .deadline) = machine.stop(.deadline), aborted === transfer else {
            Issue.record("abortTransfer"); return
        }
        guard case .none = machine.stop(.cancelled) else { Issue.record("second stop"); return }
        guard case .stopping(_, .deadline) = machine.state else { Issue.record("stopping"); return }
        // An aborted attempt follows no redirect and counts for neither budget nor breaker.
        guard case .reportAttempt(let report) = machine.transferFinished(
            Self.hop(302, location: "/next"), redirect: .follow(HTTPRequest(method: .get, url: Self.url + "/next")),
            elapsed: 1, deadlinePassed: true, leftOrigin: false)
        else { Issue.record("reportAttempt"); return }
        #expect(report.record == .uncounted && report.attempt.redirects.isEmpty)
        guard case .fail(let failure) = machine.attemptReported(response: report.response, revalidated: false, elapsed: 1)
        else { Issue.record("fail"); return }
        #expect(failure.kind == .deadline && failure.status == 302 && failure.message == "the call's deadline passed")
        #expect(machine.attempts.last?.decision == "the call's deadline passed")
    }

    @Test("stop while an ended attempt is reported fails the call as it goes on")
    func stopReporting() {
        var machine = Self.sending()
        _ = machine.transferFinished(Self.hop(200), redirect: .final, elapsed: 1, deadlinePassed: false, leftOrigin: false)
        guard case .none = machine.stop(.cancelled) else { Issue.record("none"); return }
        guard case .fail(let failure) = machine.attemptReported(response: Self.response(200), revalidated: false,
                                                                elapsed: 1)
        else { Issue.record("fail"); return }
        #expect(failure.kind == .cancelled && failure.status == 200)
    }

    @Test("stop while the retry layer decides fails the call; the verdict is then stale")
    func stopDecidingRetry() {
        var (machine, _) = Self.reported(Self.hop(503))
        guard case .fail(let failure, _) = machine.stop(.cancelled) else { Issue.record("fail"); return }
        #expect(failure.status == 503 && failure.response?.status == 503)
        guard case .none = machine.retryDecided(.retry(delay: 1, reason: "r"), bodySinkRefusal: nil) else {
            Issue.record("stale verdict"); return
        }
    }

    @Test("stop in the retry delay releases its timer; the timer's late firing does nothing")
    func stopBackingOff() {
        var machine = Self.backingOff()
        guard case .fail(let failure, let waits) = machine.stop(.cancelled) else { Issue.record("fail"); return }
        #expect(waits.retryTimer == 7 && failure.kind == .cancelled && failure.response?.status == 503)
        guard case .none = machine.delayElapsed() else { Issue.record("stale timer"); return }
    }

    @Test("stop while the credential refreshes releases the close observer; its answer is then stale")
    func stopAwaitingCredential() {
        var machine = Self.awaitingCredential()
        guard case .fail(let failure, let waits) = machine.stop(.cancelled) else { Issue.record("fail"); return }
        #expect(waits.closeObserver == 3 && failure.status == 401)
        guard case .none = machine.credentialAnswered(.replay) else { Issue.record("stale answer"); return }
    }

    @Test("stop while a worker maps releases the close observer and reports the response; the outcome is stale")
    func stopMapping() {
        var machine = Self.mappingOffloaded()
        guard case .fail(let failure, let waits) = machine.stop(.deadline) else { Issue.record("fail"); return }
        #expect(waits.closeObserver == 4 && failure.response?.status == 200 && failure.kind == .deadline)
        guard case .none = machine.mappingFinished() else { Issue.record("stale outcome"); return }
    }

    @Test("stop after the call finished does nothing")
    func stopFinished() {
        var machine = Self.mappingOffloaded()
        guard case .complete(_, let waits) = machine.mappingFinished() else { Issue.record("complete"); return }
        #expect(waits.closeObserver == 4)
        guard case .none = machine.stop(.cancelled) else { Issue.record("stop after finish"); return }
    }

    // MARK: Exactly one terminal action

    /// Feeds `events` (an event is a closure over the machine that says whether its action
    /// was terminal) and counts the terminal actions.
    static func terminals(_ machine: inout Machine, _ events: [(inout Machine) -> Bool]) -> Int {
        events.reduce(0) { count, event in count + (event(&machine) ? 1 : 0) }
    }

    static func isTerminal(_ action: Machine.StopAction) -> Bool {
        if case .fail = action { return true }
        return false
    }

    @Test("exactly one terminal action on every path, whatever stale event arrives after it")
    func exactlyOneTerminal() {
        let late: [(inout Machine) -> Bool] = [
            { Self.isTerminal($0.stop(.cancelled)) }, { Self.isTerminal($0.stop(.deadline)) },
            { if case .none = $0.delayElapsed() { false } else { true } },
            { if case .none = $0.credentialAnswered(.replay) { false } else { true } },
            { if case .none = $0.mappingFinished() { false } else { true } },
            { if case .none = $0.retryDecided(.retry(delay: 1, reason: "r"), bodySinkRefusal: nil) { false } else { true } },
            { if case .none = $0.start() { false } else { true } },
        ]
        var paths: [(name: String, machine: Machine, terminal: (inout Machine) -> Bool)] = [
            ("mapped", Self.mappingOffloaded(), { if case .complete = $0.mappingFinished() { true } else { false } }),
            ("backing off, stopped", Self.backingOff(), { Self.isTerminal($0.stop(.cancelled)) }),
            ("credential failed", Self.awaitingCredential(),
             { if case .fail = $0.credentialAnswered(.fail("no")) { true } else { false } }),
            ("idle, stopped", Machine(hasCredential: false), { Self.isTerminal($0.stop(.cancelled)) }),
        ]
        var cutShort = Self.sending()
        _ = cutShort.stop(.deadline)
        _ = cutShort.transferFinished(Self.hop(failing: .deadline), redirect: .final, elapsed: 1, deadlinePassed: true,
                                      leftOrigin: false)
        paths.append(("cut short", cutShort, {
            if case .fail = $0.attemptReported(response: nil, revalidated: false, elapsed: 1) { true } else { false }
        }))
        var deciding = Self.reported(Self.hop(503)).0
        paths.append(("deadline before retry", deciding, {
            if case .fail = $0.retryDecided(.failDeadline(reason: "r"), bodySinkRefusal: nil) { true } else { false }
        }))
        deciding = Self.reported(Self.hop(503)).0
        _ = deciding.retryDecided(.stop(reason: "r"), bodySinkRefusal: nil)
        paths.append(("stopped retrying", deciding, { if case .complete = $0.mappingFinished() { true } else { false } }))
        for path in paths {
            var machine = path.machine
            let count = (path.terminal(&machine) ? 1 : 0) + Self.terminals(&machine, late)
            #expect(count == 1, "path \(path.name)")
            guard case .finished = machine.state else { Issue.record("path \(path.name) did not finish"); continue }
        }
    }

    // MARK: Impossible transitions

    @Test("an event in a state that cannot see it is a precondition failure, not a silent default")
    func impossibleTransition() async {
        await #expect(processExitsWith: .failure) {
            var machine = CallStateMachine(hasCredential: false)
            _ = machine.retryDecided(.stop(reason: "no attempt failed"), bodySinkRefusal: nil)
        }
        await #expect(processExitsWith: .failure) {
            var machine = CallStateMachine(hasCredential: false)
            _ = machine.start()
            machine.hopStarted(Transfer(request: HTTPRequest(method: .get, url: "http://127.0.0.1:1/"),
                                        options: TransferOptions()) { _ in })
        }
    }

    // MARK: Resilience

    @Test("an attempt's outcome is classified once; the host's recorder counts it by its policies' codes")
    func resilienceRecording() {
        #expect(ResilienceOutcome(errorKind: nil, status: 503, cutShort: true) == .uncounted)
        #expect(ResilienceOutcome(errorKind: .cancelled, status: 0, cutShort: false) == .uncounted)
        #expect(ResilienceOutcome(errorKind: .connect, status: 0, cutShort: false) == .transportFailure)
        #expect(ResilienceOutcome(errorKind: .responseTooLarge, status: 200, cutShort: false)
            == .ended(status: 200, failed: true))
        let budget = RetryBudgetState(budget: RetryBudget(maxTokens: 10, tokenRatio: 0.5))
        let breaker = CircuitBreaker(policy: CircuitBreakerPolicy(failureRatio: 0.5, minimumThroughput: 2,
                                                                  samplingDuration: 60, breakDuration: 30))
        let recorder = HostResilience(retryBudget: budget, breaker: breaker, retryableStatusCodes: [503])
        recorder.record(.ended(status: 503, failed: false), trial: false, now: 1)
        #expect(budget.tokens == 9 && breaker.counts == (1, 1))
        recorder.record(.uncounted, trial: false, now: 2)
        #expect(budget.tokens == 9 && breaker.counts == (1, 1))
        recorder.record(.ended(status: 200, failed: false), trial: false, now: 3)
        #expect(budget.tokens == 9.5 && breaker.state == .open(until: 33))
        #expect(recorder.admit(now: 40) == .allowed(trial: true))
        recorder.record(.uncounted, trial: true, now: 41)  // a trial never sent is given back
        #expect(breaker.state == .halfOpen(trialRunning: false))
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
