@testable import Gatewire
import Testing

/// The call's waits for its rate limit, as states and events of ``CallStateMachine`` (no loop,
/// no socket): a wait that ends in a send, the wait shown as the attempt's queued time, a
/// refusal that fails the call `rateLimited` with its Retry-After, a stop during the wait.
@Suite("CallStateMachine: waiting for the rate limit")
struct CallStateMachineRateLimitTests {
    typealias Machine = CallStateMachine
    typealias Fixtures = CallStateMachineTests

    /// A started machine waiting `seconds` for its rate limit (timer 9), from 0.25 s into the call.
    static func throttled(_ seconds: Double, reserved: Bool) -> Machine {
        var machine = Machine(hasCredential: false)
        _ = machine.start()
        guard case .scheduleWait(let wait) = machine.rateLimitWait(seconds, reserved: reserved, elapsed: 0.25) else {
            Issue.record("scheduleWait"); return machine
        }
        #expect(wait == seconds)
        machine.throttleTimerArmed(9)
        return machine
    }

    @Test("a reserved wait: the attempt goes out with its slot, the wait is its queued time")
    func reservedWait() {
        var machine = Self.throttled(1.5, reserved: true)
        guard case .throttled(let throttle) = machine.state, throttle.timer == 9 else { Issue.record("throttled"); return }
        #expect(!machine.slotReserved)
        guard case .prepareAttempt(1) = machine.throttleElapsed(elapsed: 1.75) else { Issue.record("prepare"); return }
        #expect(machine.slotReserved)  // the driver does not ask the limit again
        _ = machine.requestPrepared(Fixtures.sent(offset: 1.75))
        #expect(!machine.slotReserved)
        guard case .reportAttempt(let report) = machine.transferFinished(
            Fixtures.hop(200), redirect: .final, elapsed: 2, deadlinePassed: false, leftOrigin: false)
        else { Issue.record("reportAttempt"); return }
        #expect(report.attempt.timings.queued == 1.5 && report.attempt.timings.total == 1.5)
        #expect(report.attempt.startOffset == 0.25 && report.attempt.duration == 1.75)
    }

    @Test("a pause's wait: the attempt asks the limit again when it ends")
    func pauseWait() {
        var machine = Self.throttled(2, reserved: false)
        guard case .prepareAttempt(1) = machine.throttleElapsed(elapsed: 2.25) else { Issue.record("prepare"); return }
        #expect(!machine.slotReserved)
        guard case .preparing(let preparing) = machine.state else { Issue.record("preparing"); return }
        #expect(preparing.waited == 2)
        // A second wait, for a slot this time, adds to the first.
        _ = machine.rateLimitWait(0.5, reserved: true, elapsed: 2.25)
        _ = machine.throttleElapsed(elapsed: 2.75)
        guard case .preparing(let second) = machine.state else { Issue.record("preparing"); return }
        #expect(second.waited == 2.5 && second.slotReserved)
    }

    @Test("a refusal fails the call rateLimited, nothing sent, with the limit's Retry-After")
    func refusal() {
        var machine = Machine(hasCredential: false)
        _ = machine.start()
        guard case .fail(let failure, nil, false) = machine.prepareFailed(
            .rateLimited(limit: "host h:1", retryAfter: 0.04999, paused: false), trial: false)
        else { Issue.record("fail"); return }
        #expect(failure.kind == .rateLimited && failure.status == 0 && failure.response == nil)
        #expect(failure.retryAfter == 0.04999)
        #expect(failure.message == "the rate limit of host h:1 is reached (a slot frees in 0.05s); nothing was sent")
        #expect(machine.attempts.isEmpty)
        var paused = Machine(hasCredential: false)
        _ = paused.start()
        guard case .fail(let pausedFailure, _, _) = paused.prepareFailed(
            .rateLimited(limit: "route \"r\"", retryAfter: 2, paused: true), trial: false)
        else { Issue.record("fail"); return }
        #expect(pausedFailure.message == "the rate limit of route \"r\" is paused by a Retry-After for another 2s; nothing was sent")
    }

    @Test("a refused retry keeps the last attempt's status and response, and notes it on the attempt")
    func refusedRetry() {
        var machine = Fixtures.backingOff()
        _ = machine.delayElapsed()
        guard case .fail(let failure, _, _) = machine.prepareFailed(
            .rateLimited(limit: "host h:1", retryAfter: 1, paused: true), trial: false)
        else { Issue.record("fail"); return }
        #expect(failure.kind == .rateLimited && failure.status == 503 && failure.response?.status == 503)
        #expect(machine.attempts.last?.decision == "status 503 is retryable; the rate limit refused the retry")
    }

    @Test("a stop during the wait fails the call and releases the wait's timer; a late firing does nothing")
    func stopWhileThrottled() {
        var machine = Self.throttled(3, reserved: true)
        guard case .fail(let failure, let waits) = machine.stop(.deadline) else { Issue.record("fail"); return }
        #expect(failure.kind == .deadline && failure.status == 0)
        #expect(waits.admissionTimer == 9 && waits.retryTimer == nil)
        #expect(waits.reservedSlot)  // the slot it waited for goes back to the limit
        guard case .none = machine.throttleElapsed(elapsed: 3) else { Issue.record("late timer"); return }
        guard case .none = machine.stop(.cancelled) else { Issue.record("second stop"); return }
    }

    @Test("a stop during a pause's wait gives no slot back: the wait held none")
    func stopWhilePaused() {
        var machine = Self.throttled(3, reserved: false)
        guard case .fail(_, let waits) = machine.stop(.cancelled) else { Issue.record("fail"); return }
        #expect(waits.admissionTimer == 9 && !waits.reservedSlot)
    }
}
