/// The ranges of a call's numbers, defined once: the gateway config's readers
/// (``GatewayConfig``, ``RetryPolicy``, ``CircuitBreakerPolicy``, ``RedirectPolicy``), the
/// C ABI's `gw_call_options` reader (and through it Python), the CLI's options and a Swift
/// call's ``CallOptions`` (`CallOptions.limitsProblem`) all check against these, so a
/// value one front-end refuses no other accepts.
///
/// The per-call overrides that C, Python and the CLI take as plain numbers have one rule
/// each here (``maxRetriesProblem(_:field:)``, ``timeoutProblem(_:field:)``), which gives
/// the message every front-end shows; only the field's name differs (`max_retries` in C and
/// Python, `--max-retries` on the command line).
package enum CallLimits {
    /// Retries after the first attempt: 0...100 (config `retry.maxRetries`, C
    /// `max_retries`, Python `max_retries=`, CLI `--max-retries`). A hundred retries of the
    /// longest delay is already past a day; more is a mistake, not a policy.
    package static let maxRetries: ClosedRange<Int64> = 0...100

    /// A time limit or window, in seconds: 0.001...86400 (one millisecond, libcurl's
    /// timeout resolution, to one day). Config `timeouts.connect`, `timeouts.attempt`,
    /// `timeouts.deadline`, `circuitBreaker.samplingDuration` and `breakDuration`; C and
    /// Python `attempt_timeout` and `deadline`; CLI `--deadline`.
    package static let duration: ClosedRange<Double> = 0.001...86_400

    /// A wait between attempts, in seconds: 0...86400 (config `retry.initialDelay`,
    /// `retry.maxDelay` and `retry.maxRetryAfter`; 0 retries at once).
    package static let delay: ClosedRange<Double> = 0...86_400

    /// The factor each retry's delay grows by: 1...1000 (config `retry.multiplier`).
    package static let delayMultiplier: ClosedRange<Double> = 1...1000

    /// Redirects followed per attempt: 0...50 (config `redirects.max`, CLI
    /// `--max-redirects`); 50 is the curl tool's `--max-redirs` default.
    package static let maxRedirects: ClosedRange<Int64> = 0...50

    /// The largest decoded response body, in bytes: 1...2^62 (config and call
    /// `maxResponseBytes`, CLI `--max-response-bytes`; ``ResponseSizeLimit``).
    package static let maxResponseBytes: ClosedRange<Int64> = ResponseSizeLimit.range

    /// Why `count` cannot be a call's retry count, or nil: -1 (keep the count of the policy
    /// the call uses: the route's, else the client's) or a count in ``maxRetries``.
    /// The message names `field`, the value and the range:
    /// `max_retries: 150 is out of range (-1 = the route's or client's policy, or 0...100 retries)`.
    package static func maxRetriesProblem(_ count: Int64, field: String) -> String? {
        count == -1 ? nil : maxRetriesProblem(count, field: field, keep: "-1")
    }

    /// Why `count` cannot be a call's retry count where `keep` (named in the message) is how
    /// the front-end keeps the policy's count, or nil for a count in ``maxRetries``. Swift's
    /// ``CallOptions/maxRetries`` keeps it with `nil`, so there -1 is out of range.
    package static func maxRetriesProblem(_ count: Int64, field: String, keep: String) -> String? {
        if maxRetries.contains(count) { return nil }
        return "\(field): \(count) is out of range (\(keep) = the route's or client's policy, or "
            + "\(maxRetries.lowerBound)...\(maxRetries.upperBound) retries)"
    }

    /// Why `seconds` cannot be a call's attempt timeout or deadline, or nil: 0 (the
    /// client's) or a value in ``duration``; NaN and infinities are out of range. The
    /// message names `field`, the value and the range:
    /// `deadline: 100000.0 is out of range (0 = the client's, or 0.001...86400 seconds)`.
    package static func timeoutProblem(_ seconds: Double, field: String) -> String? {
        seconds == 0 ? nil : timeoutProblem(seconds, field: field, unset: "0 = the client's")
    }

    /// Why `seconds` cannot be a time limit, or nil for a value in ``duration``; NaN is out
    /// of range. `unset`, when given, names the front-end's value for "no value here" in the
    /// message (`nil or infinity = no limit` for Swift's ``Timeouts/attempt``), which the
    /// caller accepts before asking.
    package static func timeoutProblem(_ seconds: Double, field: String, unset: String?) -> String? {
        if duration.contains(seconds) { return nil }
        return "\(field): \(seconds) is out of range (\(unset.map { "\($0), or " } ?? "")"
            + "\(text(duration.lowerBound))...\(text(duration.upperBound)) seconds)"
    }

    /// Why `bytes` cannot be a response size limit, or nil for a value in
    /// ``maxResponseBytes``; the message is the config reader's, naming `field`:
    /// `options.maxResponseBytes: 0 is out of range 1...4611686018427387904`.
    package static func maxResponseBytesProblem(_ bytes: Int, field: String) -> String? {
        if maxResponseBytes.contains(Int64(bytes)) { return nil }
        return "\(field): \(bytes) is out of range \(maxResponseBytes.lowerBound)...\(maxResponseBytes.upperBound)"
    }

    /// A bound as people write it: `86400`, not `86400.0`.
    private static func text(_ seconds: Double) -> String {
        seconds == seconds.rounded() ? String(Int64(seconds)) : String(seconds)
    }
}
