import CGatewireABI
import Gatewire

/// What a `gw_call_options` asks for, whatever its layout: version 5's nested structs or the
/// flat `gw_call_options_v4` of versions 1 to 4. It is the one input of ``CallOptionsReader``,
/// so both layouts share every check and every translation into the core's ``Request``;
/// each field keeps the C name it has in its layout, for the messages (`body.json: ...` in
/// version 5, `body_json: ...` in version 4). The names come from the ``Layout`` when a
/// message needs them: a call's fields are pointers and numbers, copied without a retain.
struct CallFields {
    typealias Failure = CallOptionsReader.Failure

    /// Which struct the fields were read from, which names them.
    enum Layout {
        /// `gw_call_options_v4`, versions 1 to 4 (`body_json`, `download_path`).
        case v4
        /// `gw_call_options` versions 5 and 6 (`body.json`, `download.path`).
        case v5
    }

    var method: UnsafePointer<CChar>?
    var path: UnsafePointer<CChar>?
    var route: UnsafePointer<CChar>?
    var objectType: UnsafePointer<CChar>?
    var params: UnsafePointer<CChar>?
    var headers: UnsafePointer<CChar>?
    var body: BodyFields
    /// The policies laid over the route's and client's, as the config's keys.
    var policies: PolicyFields
    /// Version 4's `max_retries` (-1 keeps the count); version 5 sets the count in `policies`.
    var maxRetries: Int32 = -1
    /// The time limits to replace; 0 keeps the client's.
    var timeouts: TimeoutFields
    var retryTest: gw_retry_test_fn?
    var retryTestUserData: UnsafeMutableRawPointer?
    var onProgress: gw_progress_fn?
    var onProgressUserData: UnsafeMutableRawPointer?
    var download: DownloadFields
    /// Version 6's trace parent (`traceparent`, `tracestate`); nil in older layouts.
    var traceparent: UnsafePointer<CChar>?
    var tracestate: UnsafePointer<CChar>?

    /// The body fields of either layout; at most one body is set once ``CallFields`` is made
    /// from version 5 (its `gw_body.kind`), while version 4's are checked by the reader.
    struct BodyFields {
        var json: UnsafePointer<CChar>?
        var bytes: UnsafeRawPointer?
        var length = 0
        var contentType: UnsafePointer<CChar>?
        var form: UnsafePointer<CChar>?
        var parts: UnsafePointer<gw_part>?
        var partCount = 0
        /// Whether a bytes body is sent: version 5's GW_BODY_BYTES (NULL and 0 are an empty
        /// body), version 4's `body` or `body_length` set.
        var sendsBytes = false
        let layout: Layout

        /// The C names of the fields, in the struct they were read from.
        var names: Names { layout == .v5 ? .v5 : .v4 }

        /// The C names of the body fields, and what to say when parts cannot join the body.
        struct Names {
            let json, bytes, length, form, parts, partCount: String
            let partsConflict: String

            static let v4 = Names(json: "body_json", bytes: "body", length: "body_length", form: "form_json",
                                  parts: "parts", partCount: "part_count",
                                  partsConflict: "parts: cannot be sent with body, or with a body_json of no object "
                                      + "type (use form_json for fields, or an object type)")
            static let v5 = Names(json: "body.json", bytes: "body.bytes", length: "body.length", form: "body.form_json",
                                  parts: "body.parts", partCount: "body.part_count",
                                  partsConflict: "body.json: GW_BODY_MULTIPART maps an object into fields: it needs an "
                                      + "object type (object_type, else the route's objectType)")
        }

        var isEmpty: Bool { json == nil && !sendsBytes && form == nil }
        var hasParts: Bool { parts != nil || partCount > 0 }
    }

    /// The policies to lay over the route's and client's: the `policy_json` text (version 4's,
    /// and 7's), then the typed structs of version 5 and later as the config tree they stand
    /// for (``PolicyTree``), laid over the text's.
    struct PolicyFields {
        var text: UnsafePointer<CChar>?
        var tree: PolicyTree?
    }

    /// The time limits to replace, in seconds (0 keeps the client's), with their C names
    /// (version 4 has no connect limit: its name is nil).
    struct TimeoutFields {
        var connect = 0.0, attempt = 0.0, deadline = 0.0
        let layout: Layout

        var names: (connect: String?, attempt: String, deadline: String) {
            switch layout {
            case .v4: (nil, "attempt_timeout", "deadline")
            case .v5: ("timeouts.connect", "timeouts.attempt", "timeouts.deadline")
            }
        }
    }

    /// Where a 2xx body goes instead of the result (``BodySinkReader``).
    struct DownloadFields {
        var path: UnsafePointer<CChar>?
        var onChunk: gw_chunk_fn?
        var onChunkUserData: UnsafeMutableRawPointer?
        var maxBytes: Int64 = 0
        let layout: Layout

        var pathName: String { layout == .v5 ? "download.path" : "download_path" }
        var onChunkName: String { layout == .v5 ? "download.on_chunk" : "on_chunk" }
        var maxBytesName: String { layout == .v5 ? "download.max_bytes" : "download_max_bytes" }
    }
}

extension CallFields {
    /// A version 1-4 struct (`gw_call_options_v4`), its missing fields NULL and 0.
    init(v4 options: gw_call_options_v4) {
        method = options.method
        path = options.path
        route = options.route
        objectType = options.object_type
        params = options.params_json
        headers = options.headers_json
        body = BodyFields(json: options.body_json, bytes: options.body, length: options.body_length,
                          contentType: options.content_type, form: options.form_json, parts: options.parts,
                          partCount: options.part_count, sendsBytes: options.body != nil || options.body_length > 0,
                          layout: .v4)
        policies = PolicyFields(text: options.policy_json)
        maxRetries = options.max_retries
        timeouts = TimeoutFields(attempt: options.attempt_timeout, deadline: options.deadline, layout: .v4)
        retryTest = options.retry_test
        retryTestUserData = options.retry_test_user_data
        onProgress = options.on_progress
        onProgressUserData = options.on_progress_user_data
        download = DownloadFields(path: options.download_path, onChunk: options.on_chunk,
                                  onChunkUserData: options.on_chunk_user_data, maxBytes: options.download_max_bytes,
                                  layout: .v4)
    }

    /// A version 7 struct (or a version 5 or 6 one completed with the defaults of the fields
    /// it lacks): each nested struct's version checked, the body's kind applied (a
    /// field of another kind is refused, naming it), the policy structs turned into the
    /// config tree they stand for. Read in place through `pointer` (the struct is some 400
    /// bytes: no copy of it per call).
    /// - Throws: ``CallOptionsReader/Failure``: GW_ERROR_VERSION for a nested struct not
    ///   filled by its initialiser, GW_ERROR_INVALID_ARGUMENT naming a field.
    init(v5 pointer: UnsafePointer<gw_call_options>) throws(Failure) {
        try Self.checkVersions(pointer)
        method = pointer.pointee.method
        path = pointer.pointee.path
        route = pointer.pointee.route
        objectType = pointer.pointee.object_type
        params = pointer.pointee.params_json
        headers = pointer.pointee.headers_json
        body = try BodyFields(pointer.pointee.body)
        policies = PolicyFields(text: pointer.pointee.policy_json, tree: try PolicyTree.of(pointer))
        timeouts = TimeoutFields(connect: pointer.pointee.timeouts.connect, attempt: pointer.pointee.timeouts.attempt,
                                 deadline: pointer.pointee.timeouts.deadline, layout: .v5)
        retryTest = pointer.pointee.retry.test
        retryTestUserData = pointer.pointee.retry.test_user_data
        onProgress = pointer.pointee.on_progress
        onProgressUserData = pointer.pointee.on_progress_user_data
        download = DownloadFields(path: pointer.pointee.download.path, onChunk: pointer.pointee.download.on_chunk,
                                  onChunkUserData: pointer.pointee.download.on_chunk_user_data,
                                  maxBytes: pointer.pointee.download.max_bytes, layout: .v5)
        traceparent = pointer.pointee.traceparent
        tracestate = pointer.pointee.tracestate
    }

    /// Each nested struct must carry its version: one left zeroed (a designated initialiser
    /// of the outer struct alone) would otherwise read as "0 retries, no delay".
    private static func checkVersions(_ pointer: UnsafePointer<gw_call_options>) throws(Failure) {
        // Every call passes this: one comparison each, the message only for a wrong one.
        guard pointer.pointee.body.version != GW_BODY_VERSION || pointer.pointee.retry.version != GW_RETRY_OPTIONS_VERSION
            || pointer.pointee.retry_budget.version != GW_RETRY_BUDGET_OPTIONS_VERSION
            || pointer.pointee.circuit_breaker.version != GW_CIRCUIT_BREAKER_OPTIONS_VERSION
            || pointer.pointee.redirects.version != GW_REDIRECT_OPTIONS_VERSION
            || pointer.pointee.timeouts.version != GW_TIMEOUT_OPTIONS_VERSION
            || pointer.pointee.download.version != GW_DOWNLOAD_OPTIONS_VERSION
            || pointer.pointee.rate_limit.version != GW_RATE_LIMIT_OPTIONS_VERSION else { return }
        func check(_ field: String, _ version: UInt32, _ expected: UInt32, _ initialiser: String) throws(Failure) {
            guard version != expected else { return }
            throw Failure(status: GW_ERROR_VERSION,
                          message: "\(field).version: \(version) is not \(expected) (fill it with \(initialiser))")
        }
        try check("body", pointer.pointee.body.version, GW_BODY_VERSION, "GW_BODY_INIT or gw_body_init()")
        try check("retry", pointer.pointee.retry.version, GW_RETRY_OPTIONS_VERSION, "GW_RETRY_OPTIONS_INIT or gw_retry_options_init()")
        try check("retry_budget", pointer.pointee.retry_budget.version, GW_RETRY_BUDGET_OPTIONS_VERSION,
                  "GW_RETRY_BUDGET_OPTIONS_INIT or gw_retry_budget_options_init()")
        try check("circuit_breaker", pointer.pointee.circuit_breaker.version, GW_CIRCUIT_BREAKER_OPTIONS_VERSION,
                  "GW_CIRCUIT_BREAKER_OPTIONS_INIT or gw_circuit_breaker_options_init()")
        try check("redirects", pointer.pointee.redirects.version, GW_REDIRECT_OPTIONS_VERSION,
                  "GW_REDIRECT_OPTIONS_INIT or gw_redirect_options_init()")
        try check("timeouts", pointer.pointee.timeouts.version, GW_TIMEOUT_OPTIONS_VERSION,
                  "GW_TIMEOUT_OPTIONS_INIT or gw_timeout_options_init()")
        try check("download", pointer.pointee.download.version, GW_DOWNLOAD_OPTIONS_VERSION,
                  "GW_DOWNLOAD_OPTIONS_INIT or gw_download_options_init()")
        try check("rate_limit", pointer.pointee.rate_limit.version, GW_RATE_LIMIT_OPTIONS_VERSION,
                  "GW_RATE_LIMIT_OPTIONS_INIT or gw_rate_limit_options_init()")
    }
}

extension CallFields.BodyFields {
    /// A `gw_body`: its kind's fields, after refusing a field its kind does not read (a
    /// call has one body) and a kind's required field left NULL.
    init(_ body: gw_body) throws(CallFields.Failure) {
        layout = .v5
        guard let kind = Self.kindName(body.kind) else {
            throw Self.invalid("body.kind: unknown kind \(body.kind) (expected GW_BODY_NONE, GW_BODY_JSON, "
                + "GW_BODY_BYTES, GW_BODY_FORM or GW_BODY_MULTIPART)")
        }
        // Each field the kind does not read must be left unset: a call has one body.
        let read: (json: Bool, bytes: Bool, form: Bool, parts: Bool) = switch body.kind {
        case GW_BODY_JSON: (true, false, false, false)
        case GW_BODY_BYTES: (false, true, false, false)
        case GW_BODY_FORM: (false, false, true, false)
        case GW_BODY_MULTIPART: (true, false, true, true)
        default: (false, false, false, false)
        }
        func refuse(_ field: String, _ isSet: Bool, _ isRead: Bool) throws(CallFields.Failure) {
            guard isSet, !isRead else { return }
            throw Self.invalid("body.\(field): not read for \(kind) (a call has one body: set body.kind to the body it sends)")
        }
        try refuse("json", body.json != nil, read.json)
        try refuse("bytes", body.bytes != nil, read.bytes)
        try refuse("length", body.length != 0, read.bytes)
        try refuse("content_type", body.content_type != nil, read.bytes)
        try refuse("form_json", body.form_json != nil, read.form)
        try refuse("parts", body.parts != nil, read.parts)
        try refuse("part_count", body.part_count != 0, read.parts)
        switch body.kind {
        case GW_BODY_JSON where body.json == nil: throw Self.invalid("body.json: required for GW_BODY_JSON")
        case GW_BODY_FORM where body.form_json == nil: throw Self.invalid("body.form_json: required for GW_BODY_FORM")
        case GW_BODY_MULTIPART where body.parts == nil && body.part_count == 0:
            throw Self.invalid("body.parts: required for GW_BODY_MULTIPART")
        case GW_BODY_MULTIPART where body.json != nil && body.form_json != nil:
            throw Self.invalid("body.json and body.form_json: GW_BODY_MULTIPART sends the fields of at most one of them")
        default: break
        }
        json = body.json
        bytes = body.bytes
        length = body.length
        contentType = body.content_type
        form = body.form_json
        parts = body.parts
        partCount = body.part_count
        sendsBytes = body.kind == GW_BODY_BYTES
    }

    /// The C name of a `gw_body.kind`, or nil for an unknown one.
    private static func kindName(_ kind: Int32) -> String? {
        switch kind {
        case GW_BODY_NONE: "GW_BODY_NONE"
        case GW_BODY_JSON: "GW_BODY_JSON"
        case GW_BODY_BYTES: "GW_BODY_BYTES"
        case GW_BODY_FORM: "GW_BODY_FORM"
        case GW_BODY_MULTIPART: "GW_BODY_MULTIPART"
        default: nil
        }
    }

    private static func invalid(_ message: String) -> CallFields.Failure {
        CallFields.Failure(status: GW_ERROR_INVALID_ARGUMENT, message: message)
    }
}
