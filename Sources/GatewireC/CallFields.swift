import CGatewireABI
import Gatewire

/// What a `gw_call_options` asks for, whatever its layout: version 5's nested structs or the
/// flat `gw_call_options_v4` of versions 1 to 4. It is the one input of ``CallOptionsReader``,
/// so both layouts share every check and every translation into the core's ``Request``;
/// each field keeps the C name it has in its layout, for the messages (`body.json: ...` in
/// version 5, `body_json: ...` in version 4).
struct CallFields {
    typealias Failure = CallOptionsReader.Failure

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
    var timeouts: [TimeoutField]
    var retryTest: gw_retry_test_fn?
    var retryTestUserData: UnsafeMutableRawPointer?
    var onProgress: gw_progress_fn?
    var onProgressUserData: UnsafeMutableRawPointer?
    var download: DownloadFields

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
        let names: Names

        /// The C names of the body fields, and what to say when parts cannot join the body.
        struct Names {
            let json, bytes, length, form, parts, partCount: String
            let partsConflict: String
        }

        var isEmpty: Bool { json == nil && !sendsBytes && form == nil }
        var hasParts: Bool { parts != nil || partCount > 0 }
    }

    /// The policies to lay over the route's and client's: version 4's `policy_json` text, or
    /// version 5's typed structs as the config tree they stand for (``PolicyTree``).
    enum PolicyFields {
        case none
        case text(UnsafePointer<CChar>)
        case tree(PolicyTree)
    }

    /// One time limit to replace: its C name, its seconds (0 keeps) and the ``Timeouts`` field.
    struct TimeoutField {
        enum Limit { case connect, attempt, deadline }
        let name: String
        let seconds: Double
        let limit: Limit
    }

    /// Where a 2xx body goes instead of the result (``BodySinkReader``).
    struct DownloadFields {
        var path: UnsafePointer<CChar>?
        var onChunk: gw_chunk_fn?
        var onChunkUserData: UnsafeMutableRawPointer?
        var maxBytes: Int64 = 0
        let pathName, onChunkName, maxBytesName: String
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
                          names: .init(json: "body_json", bytes: "body", length: "body_length", form: "form_json",
                                       parts: "parts", partCount: "part_count",
                                       partsConflict: "parts: cannot be sent with body, or with a body_json of no object type "
                                           + "(use form_json for fields, or an object type)"))
        policies = options.policy_json.map { .text($0) } ?? .none
        maxRetries = options.max_retries
        timeouts = [TimeoutField(name: "attempt_timeout", seconds: options.attempt_timeout, limit: .attempt),
                    TimeoutField(name: "deadline", seconds: options.deadline, limit: .deadline)]
        retryTest = options.retry_test
        retryTestUserData = options.retry_test_user_data
        onProgress = options.on_progress
        onProgressUserData = options.on_progress_user_data
        download = DownloadFields(path: options.download_path, onChunk: options.on_chunk,
                                  onChunkUserData: options.on_chunk_user_data, maxBytes: options.download_max_bytes,
                                  pathName: "download_path", onChunkName: "on_chunk", maxBytesName: "download_max_bytes")
    }

    /// A version 5 struct: each nested struct's version checked, the body's kind applied (a
    /// field of another kind is refused, naming it), the policy structs turned into the
    /// config tree they stand for.
    /// - Throws: ``CallOptionsReader/Failure``: GW_ERROR_VERSION for a nested struct not
    ///   filled by its initialiser, GW_ERROR_INVALID_ARGUMENT naming a field.
    init(v5 options: gw_call_options) throws(Failure) {
        try Self.checkVersions(options)
        method = options.method
        path = options.path
        route = options.route
        objectType = options.object_type
        params = options.params_json
        headers = options.headers_json
        body = try BodyFields(options.body)
        policies = try PolicyTree.of(options).map { .tree($0) } ?? .none
        timeouts = [TimeoutField(name: "timeouts.connect", seconds: options.timeouts.connect, limit: .connect),
                    TimeoutField(name: "timeouts.attempt", seconds: options.timeouts.attempt, limit: .attempt),
                    TimeoutField(name: "timeouts.deadline", seconds: options.timeouts.deadline, limit: .deadline)]
        retryTest = options.retry.test
        retryTestUserData = options.retry.test_user_data
        onProgress = options.on_progress
        onProgressUserData = options.on_progress_user_data
        download = DownloadFields(path: options.download.path, onChunk: options.download.on_chunk,
                                  onChunkUserData: options.download.on_chunk_user_data,
                                  maxBytes: options.download.max_bytes,
                                  pathName: "download.path", onChunkName: "download.on_chunk",
                                  maxBytesName: "download.max_bytes")
    }

    /// Each nested struct must carry its version: one left zeroed (a designated initialiser
    /// of the outer struct alone) would otherwise read as "0 retries, no delay".
    private static func checkVersions(_ options: gw_call_options) throws(Failure) {
        let nested: [(String, UInt32, UInt32, String)] = [
            ("body", options.body.version, GW_BODY_VERSION, "GW_BODY_INIT or gw_body_init()"),
            ("retry", options.retry.version, GW_RETRY_OPTIONS_VERSION,
             "GW_RETRY_OPTIONS_INIT or gw_retry_options_init()"),
            ("retry_budget", options.retry_budget.version, GW_RETRY_BUDGET_OPTIONS_VERSION,
             "GW_RETRY_BUDGET_OPTIONS_INIT or gw_retry_budget_options_init()"),
            ("circuit_breaker", options.circuit_breaker.version, GW_CIRCUIT_BREAKER_OPTIONS_VERSION,
             "GW_CIRCUIT_BREAKER_OPTIONS_INIT or gw_circuit_breaker_options_init()"),
            ("redirects", options.redirects.version, GW_REDIRECT_OPTIONS_VERSION,
             "GW_REDIRECT_OPTIONS_INIT or gw_redirect_options_init()"),
            ("timeouts", options.timeouts.version, GW_TIMEOUT_OPTIONS_VERSION,
             "GW_TIMEOUT_OPTIONS_INIT or gw_timeout_options_init()"),
            ("download", options.download.version, GW_DOWNLOAD_OPTIONS_VERSION,
             "GW_DOWNLOAD_OPTIONS_INIT or gw_download_options_init()"),
        ]
        for (field, version, expected, initialiser) in nested where version != expected {
            throw Failure(status: GW_ERROR_VERSION,
                          message: "\(field).version: \(version) is not \(expected) (fill it with \(initialiser))")
        }
    }
}

extension CallFields.BodyFields {
    /// A `gw_body`: its kind's fields, after refusing a field its kind does not read (a
    /// call has one body) and a kind's required field left NULL.
    init(_ body: gw_body) throws(CallFields.Failure) {
        names = .init(json: "body.json", bytes: "body.bytes", length: "body.length", form: "body.form_json",
                      parts: "body.parts", partCount: "body.part_count",
                      partsConflict: "body.json: GW_BODY_MULTIPART maps an object into fields: it needs an object type "
                          + "(object_type, else the route's objectType)")
        let kinds = [GW_BODY_NONE: "GW_BODY_NONE", GW_BODY_JSON: "GW_BODY_JSON", GW_BODY_BYTES: "GW_BODY_BYTES",
                     GW_BODY_FORM: "GW_BODY_FORM", GW_BODY_MULTIPART: "GW_BODY_MULTIPART"]
        guard let kind = kinds[body.kind] else {
            throw Self.invalid("body.kind: unknown kind \(body.kind) (expected GW_BODY_NONE, GW_BODY_JSON, "
                + "GW_BODY_BYTES, GW_BODY_FORM or GW_BODY_MULTIPART)")
        }
        let read: Set<String> = switch body.kind {
        case GW_BODY_JSON: ["json"]
        case GW_BODY_BYTES: ["bytes", "length", "content_type"]
        case GW_BODY_FORM: ["form_json"]
        case GW_BODY_MULTIPART: ["json", "form_json", "parts", "part_count"]
        default: []
        }
        let given = [("json", body.json != nil), ("bytes", body.bytes != nil), ("length", body.length != 0),
                     ("content_type", body.content_type != nil), ("form_json", body.form_json != nil),
                     ("parts", body.parts != nil), ("part_count", body.part_count != 0)]
        for (field, isSet) in given where isSet && !read.contains(field) {
            throw Self.invalid("body.\(field): not read for \(kind) (a call has one body: set body.kind to the body it sends)")
        }
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

    private static func invalid(_ message: String) -> CallFields.Failure {
        CallFields.Failure(status: GW_ERROR_INVALID_ARGUMENT, message: message)
    }
}
