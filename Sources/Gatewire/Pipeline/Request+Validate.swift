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
