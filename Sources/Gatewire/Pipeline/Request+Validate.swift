extension Request {
    /// This request, accepting only the statuses in `statusCodes` (Alamofire's
    /// `validate(statusCode:)`): `Request.get("/users/7").validate(statusCode: [200])`.
    ///
    /// Sets ``CallOptions/acceptableStatusCodes``, replacing an earlier set. It narrows the
    /// status gate and never widens it: a status the gate accepts (any 2xx; a 1xx or 3xx a
    /// response descriptor lists) but `statusCodes` does not fails the call with kind
    /// `httpStatus`, the status, the response and the message
    /// `status 204 is not accepted by the call (it accepts 200)`, once to the failure
    /// observers, and is not retried; a 4xx or 5xx fails as always.
    /// - Parameter statusCodes: codes, e.g. `200..<300`, `[200, 201]`.
    public func validate(statusCode statusCodes: some Sequence<Int>) -> Request {
        var request = self
        request.options.acceptableStatusCodes = StatusCodeSet(ranges: statusCodes.map { $0...$0 })
        return request
    }
}

extension Request {
    /// Why a call given the bodies `given` (each front-end's names for them, in its order:
    /// C `body_json`, `body`, `form_json`; the CLI `--body`, `--data`, ...) cannot be made,
    /// or nil for one body or none: a call sends one ``Body``, so two are a mistake, never
    /// merged. The message names them: `body_json and form_json: set at most one body`.
    package static func oneBodyProblem(_ given: [String]) -> String? {
        given.count > 1 ? "\(given.joined(separator: " and ")): set at most one body" : nil
    }

    /// Why this request cannot be sent as it is because text of it would reach C cut short,
    /// or nil: its path (the URL libcurl takes) or its download destination
    /// (``BodySink/file(_:resume:maxBytes:)``, opened with `open(2)`) with a NUL byte
    /// (``CStringRule``; a path `"out.bin\0.tmp"` would write `out.bin`). The call checks it
    /// before anything is built or sent, and fails with kind `invalidArgument` and this
    /// message, which names the field. Multipart parts are checked by
    /// `MultipartPart/problem`, header fields by ``HTTPHeaders``.
    package var cStringProblem: String? {
        if let problem = CStringRule.problem(path, what: "the path") { return "path: \(problem)" }
        if case .file(let destination, _, _)? = options.bodySink,
           let problem = CStringRule.problem(destination, what: "the path") {
            return "download destination: \(problem)"
        }
        return nil
    }
}

extension CallOptions {
    /// Why a call with these options cannot be made, or nil: a number outside its
    /// `CallLimits` range, the same ranges and message text as C's `gw_call_options` and
    /// the CLI, with the field named by its Swift path. ``maxRetries`` nil or 0...100
    /// (`options.maxRetries: 150 is out of range (nil = the route's or client's policy, or
    /// 0...100 retries)`); ``timeouts`` as ``Timeouts/problem(field:)``; ``maxResponseBytes``
    /// nil or 1...2^62. The call checks it before anything is built or sent, and fails with
    /// kind `invalidArgument` and this message.
    package var limitsProblem: String? {
        if let maxRetries,
           let problem = CallLimits.maxRetriesProblem(Int64(maxRetries), field: "options.maxRetries", keep: "nil") {
            return problem
        }
        if let problem = timeouts?.problem(field: "options.timeouts") { return problem }
        return maxResponseBytes.flatMap { CallLimits.maxResponseBytesProblem($0, field: "options.maxResponseBytes") }
    }
}

extension Timeouts {
    /// Why these limits cannot bound a call, or nil: ``connect`` in 0.001...86400 seconds
    /// (`CallLimits/duration`); ``attempt`` and ``deadline`` nil, infinity (both "no
    /// limit") or in that range. NaN, zero, negatives and finite values above a day are out
    /// of range: `options.timeouts.deadline: 100000.0 is out of range (nil or infinity = no
    /// limit, or 0.001...86400 seconds)`, the fields named under `field`.
    package func problem(field: String) -> String? {
        let unlimited = "nil or infinity = no limit"
        func limit(_ seconds: Double?, _ name: String) -> String? {
            guard let seconds, seconds != .infinity else { return nil }
            return CallLimits.timeoutProblem(seconds, field: "\(field).\(name)", unset: unlimited)
        }
        return CallLimits.timeoutProblem(connect, field: "\(field).connect", unset: nil)
            ?? limit(attempt, "attempt") ?? limit(deadline, "deadline")
    }
}
