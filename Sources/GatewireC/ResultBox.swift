import CGatewireABI
import Gatewire

/// The object behind a `gw_result *`: a call's outcome plus the C strings handed out for it.
final class ResultBox: @unchecked Sendable {
    let result: Result<Response, GatewireError>
    /// Made on the first string asked for: most results are read without one.
    private let stringCache = OnceReference<CStringCache>()

    /// The C strings handed out for this result (made on first use, any thread).
    var strings: CStringCache { stringCache.get { CStringCache() } }

    /// The final response's body, shared with `result` (no copy): `fields.body` points into
    /// this array's storage, which this immutable property keeps alive and unmoved for the
    /// box's lifetime.
    let body: [UInt8]

    /// What `gw_result_read` hands out, taken once here: the getters `gw_result_ok`,
    /// `_status`, `_error_kind`, `_attempt_count` and `_body` read these same fields, so the
    /// two ways of reading a result cannot disagree.
    let fields: gw_result_fields

    /// The mapped objects' tree (keyed by descriptor key path), taken once here for the
    /// typed reads (`gw_result_mapped_value`), which would otherwise copy the response each.
    let mapped: JSONNode?

    init(_ result: Result<Response, GatewireError>) {
        self.result = result
        var fields = gw_result_fields()
        fields.version = GW_RESULT_FIELDS_VERSION
        switch result {
        case .success(let response):
            body = response.http.body
            fields.ok = 1
            fields.status = Int32(response.status)
            fields.error_kind = GW_KIND_NONE
            fields.attempt_count = Int32(response.attempts.count)
            mapped = response.mapped?.node
        case .failure(let error):
            body = error.response?.body ?? []
            fields.ok = 0
            fields.status = Int32(error.status)
            fields.error_kind = error.kind.rawValue
            fields.attempt_count = Int32(error.attempts.count)
            mapped = nil
        }
        // A native [UInt8] is one heap buffer; `body` is never mutated, so its address is
        // stable for the box's lifetime.
        fields.body = body.isEmpty ? nil : body.withUnsafeBufferPointer { $0.baseAddress }
        fields.body_length = body.count
        self.fields = fields
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
