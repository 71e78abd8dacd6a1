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
    public static func oneBodyProblem(_ given: [String]) -> String? {
        given.count > 1 ? "\(given.joined(separator: " and ")): set at most one body" : nil
    }

    /// Why this request cannot be sent as it is because text of it would reach C cut short,
    /// or nil: its path (the URL libcurl takes) or its download destination
    /// (``BodySink/file(_:resume:maxBytes:)``, opened with `open(2)`) with a NUL byte
    /// (``CStringRule``; a path `"out.bin\0.tmp"` would write `out.bin`). The call checks it
    /// before anything is built or sent, and fails with kind `invalidArgument` and this
    /// message, which names the field. Multipart parts are checked by
    /// ``MultipartPart/problem``, header fields by ``HTTPHeaders``.
    package var cStringProblem: String? {
        if let problem = CStringRule.problem(path, what: "the path") { return "path: \(problem)" }
        if case .file(let destination, _, _)? = options.bodySink,
           let problem = CStringRule.problem(destination, what: "the path") {
            return "download destination: \(problem)"
        }
        return nil
    }
}
