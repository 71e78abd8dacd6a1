import Gatewire

// The objects behind the borrowed handles a C plugin's hooks and a C retry test receive
// (`gw_request *`, `gw_attempt *`, `gw_process *`), which the `gw_request_*`, `gw_attempt_*`
// and `gw_process_*` accessors read.

/// The object behind a borrowed `gw_request *` in a plugin's `prepare` or `will_send`.
final class RequestView {
    var request: HTTPRequest
    let strings = CStringCache()
    /// Bumped when the URL changes, so `gw_request_url` hands out a fresh string.
    var urlVersion = 0
    /// Whether `gw_request_fail` may fail the call: true in `prepare` only.
    let failable: Bool
    /// The reason `gw_request_fail` gave (the last one), or nil: the call fails with it.
    var failure: String?

    /// A view of `request`; `failable` for a `prepare` hook.
    init(_ request: HTTPRequest, failable: Bool = false) {
        self.request = request
        self.failable = failable
    }

    /// Runs `body` with a borrowed handle to this view (valid only inside `body`).
    func withHandle<R>(_ body: (OpaquePointer) -> R) -> R {
        withExtendedLifetime(self) { body(OpaquePointer(Unmanaged.passUnretained(self).toOpaque())) }
    }
}

/// The object behind a borrowed `gw_attempt *` in a retry test or a plugin's `did_receive`.
final class AttemptView {
    let number: Int
    let status: Int
    let errorKind: ErrorKind?
    let elapsed: Double
    let headers: HTTPHeaders
    let strings = CStringCache()

    init(number: Int, status: Int, errorKind: ErrorKind?, elapsed: Double, headers: HTTPHeaders) {
        self.number = number
        self.status = status
        self.errorKind = errorKind
        self.elapsed = elapsed
        self.headers = headers
    }

    /// Runs `body` with a borrowed handle to this view (valid only inside `body`).
    func withHandle<R>(_ body: (OpaquePointer) -> R) -> R {
        withExtendedLifetime(self) { body(OpaquePointer(Unmanaged.passUnretained(self).toOpaque())) }
    }
}

/// The object behind a borrowed `gw_process *` in a plugin's `process`: the call's result as
/// it stands, which the hook may turn into a failure.
final class ProcessView {
    /// The result; setting it drops ``handle`` (made again for the new result on request).
    var result: Result<Response, GatewireError> {
        didSet { handle = nil }
    }

    /// The C layer's `gw_result` object for ``result``, made by `gw_process_result` on first
    /// use. Replaced ones are kept until the view goes (the end of the hook), so a pointer the
    /// hook already holds stays valid.
    var handle: AnyObject? {
        didSet { if let oldValue { retired.append(oldValue) } }
    }

    private var retired: [AnyObject] = []

    init(_ result: Result<Response, GatewireError>) { self.result = result }

    /// Runs `body` with a borrowed handle to this view (valid only inside `body`).
    func withHandle<R>(_ body: (OpaquePointer) -> R) -> R {
        withExtendedLifetime(self) { body(OpaquePointer(Unmanaged.passUnretained(self).toOpaque())) }
    }
}
