import CGatewireABI
import Gatewire

/// The object behind a `gw_result *`: a call's outcome plus the C strings handed out for it.
final class ResultBox: @unchecked Sendable {
    let result: Result<Response, GatewireError>
    /// Made on the first string asked for: most results are read without one.
    private let stringCache = OnceReference<CStringCache>()

    /// The C strings handed out for this result (made on first use, any thread).
    var strings: CStringCache { stringCache.get { CStringCache() } }

    /// The final response's body, shared with `result` (no copy): `gw_result_body` hands out
    /// a pointer into this array's storage, which this immutable property keeps alive and
    /// unmoved for the box's lifetime.
    let body: [UInt8]

    /// The scalars every reader asks for (`gw_result_ok`, `_status`, `_error_kind`,
    /// `gw_result_read`), taken once here rather than by copying the result on each read.
    let ok: Bool
    /// The final status, 0 when no response arrived.
    let status: Int32
    /// The failure's `GW_KIND_*`, `GW_KIND_NONE` on success.
    let errorKind: Int32
    /// The number of attempts made.
    let attemptCount: Int32

    init(_ result: Result<Response, GatewireError>) {
        self.result = result
        switch result {
        case .success(let response):
            body = response.http.body
            ok = true
            status = Int32(response.status)
            errorKind = GW_KIND_NONE
            attemptCount = Int32(response.attempts.count)
        case .failure(let error):
            body = error.response?.body ?? []
            ok = false
            status = Int32(error.status)
            errorKind = error.kind.rawValue
            attemptCount = Int32(error.attempts.count)
        }
    }

    /// The first byte of ``body`` (nil when empty), valid while the box lives.
    var bodyPointer: UnsafePointer<UInt8>? {
        // A native [UInt8] is one heap buffer; `body` is never mutated, so its address is stable.
        body.withUnsafeBufferPointer { $0.baseAddress }
    }

    var response: Response? { try? result.get() }

    var error: GatewireError? {
        if case .failure(let error) = result { return error }
        return nil
    }

    /// The final HTTP response, on success or failure.
    var http: HTTPResponse? { response?.http ?? error?.response }

    var attempts: [Attempt] { response?.attempts ?? error?.attempts ?? [] }
}
