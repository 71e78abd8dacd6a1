import CGatewireABI
import Gatewire

/// Turns a `gw_call_options` into a ``Request``: checks the version, the numbers' ranges and
/// the header fields, parses the JSON fields and wraps the C retry test. Errors are messages
/// for `gw_last_error_message()` that name the field (`max_retries: ...`), never a function:
/// the same reader serves `gw_call`, `gw_call_async`, `gw_call_async_queued` and
/// `gw_paginator_new`, and the bindings' own methods.
enum CallOptionsReader {
    struct Failure: Error {
        let status: Int32
        let message: String
    }

    /// A `GET` of no path with every default: copied for each route call.
    private static let blank = Request(.get, "")

    /// The size of a version 1 `gw_call_options` (it ends before `policy_json`).
    static let version1Size = MemoryLayout<gw_call_options>.offset(of: \gw_call_options.policy_json)!
    /// The size of a version 2 `gw_call_options` (it ends before `body`).
    static let version2Size = MemoryLayout<gw_call_options>.offset(of: \gw_call_options.body)!
    /// The size of a version 3 `gw_call_options` (it ends before `parts`).
    static let version3Size = MemoryLayout<gw_call_options>.offset(of: \gw_call_options.parts)!

    /// Whether this library reads `version` (1 to 4).
    static func supports(_ version: UInt32) -> Bool {
        (GW_CALL_OPTIONS_VERSION_1...GW_CALL_OPTIONS_VERSION).contains(version)
    }

    /// The bytes of a `gw_call_options` of `version` (a supported one).
    static func size(of version: UInt32) -> Int {
        switch version {
        case GW_CALL_OPTIONS_VERSION_1: version1Size
        case GW_CALL_OPTIONS_VERSION_2: version2Size
        case GW_CALL_OPTIONS_VERSION_3: version3Size
        default: MemoryLayout<gw_call_options>.size
        }
    }

    /// Copies the caller's struct, reading no more bytes than its version has: an older
    /// caller's memory ends before the fields it does not have, which then read as NULL and 0.
    static func load(_ pointer: UnsafePointer<gw_call_options>) -> gw_call_options {
        let version = UnsafeRawPointer(pointer).load(as: UInt32.self)
        var copy = gw_call_options()
        let size = supports(version) ? size(of: version) : MemoryLayout<UInt32>.size
        withUnsafeMutableBytes(of: &copy) { target in
            target.copyMemory(from: UnsafeRawBufferPointer(start: pointer, count: size))
        }
        return copy
    }

    /// The call `options` describe, on `client` (whose config resolves the route's policies
    /// that `policy_json`, `max_retries` and the timeouts override field by field).
    static func request(from options: gw_call_options, client: Client) throws(Failure) -> Request {
        guard supports(options.version) else {
            throw Failure(status: GW_ERROR_VERSION,
                          message: "unsupported gw_call_options version \(options.version) (this library has \(GW_CALL_OPTIONS_VERSION))")
        }
        var request = try target(options)
        try checkNumbers(options)
        if let params = try object(options.params_json, field: "params_json") {
            for (key, value) in params.node.members {
                if value.kind == .array {
                    request.listParameters[key] = try texts(value, field: "params_json.\(key)")
                } else {
                    request.parameters[key] = try text(value, field: "params_json.\(key)")
                }
            }
        }
        if let headers = try object(options.headers_json, field: "headers_json") {
            try add(headers, to: &request)
        }
        if options.body_json != nil || options.body != nil || options.body_length > 0 || options.form_json != nil {
            try setBody(options, of: &request, client: client)  // most calls have none: no config copy
        }
        if options.parts != nil || options.part_count > 0 {
            try MultipartOptions.setParts(options, of: &request)
        }
        if let text = options.policy_json {
            try applyPolicies(try parse(text, field: "policy_json"), to: &request, config: client.config)
        }
        if options.max_retries >= 0 { request.options.maxRetries = Int(options.max_retries) }
        if options.attempt_timeout > 0 || options.deadline > 0 {
            var timeouts = client.config.timeouts
            if options.attempt_timeout > 0 { timeouts.attempt = options.attempt_timeout }
            if options.deadline > 0 { timeouts.deadline = options.deadline }
            request.options.timeouts = timeouts
        }
        if let test = options.retry_test {
            request.options.retryTest = retryTest(test, userData: options.retry_test_user_data)
        }
        if let report = options.on_progress {
            request.options.onProgress = progressHandler(report, userData: options.on_progress_user_data)
        }
        request.options.bodySink = try BodySinkReader.sink(options)
        return request
    }

    /// The request's target: `route`; else, with no `path`, the route of `object_type` and
    /// `method`; else `method` and `path`.
    private static func target(_ options: gw_call_options) throws(Failure) -> Request {
        if let route = string(options.route) {
            var request = blank  // copied and filled in: cheaper than `Request(route:)`'s initialiser
            request.route = route
            return request
        }
        if options.path == nil, let type = string(options.object_type) {
            return Request(try method(options), "", body: .object(.object(), type: type))
        }
        guard let path = string(options.path) else {
            throw Failure(status: GW_ERROR_INVALID_ARGUMENT, message: "set route, or path (and method; NULL = GET)")
        }
        return Request(try method(options), path)
    }

    /// The body of `body_json`, `body` + `body_length` + `content_type`, or `form_json`:
    /// at most one of them.
    private static func setBody(_ options: gw_call_options, of request: inout Request,
                                client: Client) throws(Failure) {
        let given = [("body_json", options.body_json != nil), ("body", options.body != nil || options.body_length > 0),
                     ("form_json", options.form_json != nil)].filter(\.1).map(\.0)
        if let problem = Request.oneBodyProblem(given) {
            throw Failure(status: GW_ERROR_INVALID_ARGUMENT, message: problem)
        }
        if let body = options.body_json {
            let value = try parse(body, field: "body_json")
            request.body = client.config.requestBody(value, objectType: string(options.object_type), forRoute: request.route)
        } else if options.body != nil || options.body_length > 0 {
            guard let bytes = options.body else {
                throw Failure(status: GW_ERROR_INVALID_ARGUMENT,
                              message: "body: NULL with body_length \(options.body_length) (NULL is no body; 0 bytes is an empty one)")
            }
            let buffer = UnsafeRawBufferPointer(start: bytes, count: options.body_length)
            request.body = .bytes(Array(buffer), contentType: string(options.content_type) ?? "application/octet-stream")
        } else if let form = try object(options.form_json, field: "form_json") {
            var fields: [(name: String, value: String)] = []
            for (name, value) in form.node.members {
                let field = "form_json.\(name)"
                for text in value.kind == .array ? try texts(value, field: field) : [try text(value, field: field)] {
                    fields.append((name, text))
                }
            }
            request.body = .form(fields)
        }
    }

    /// Sets each header of `headers_json`; a bad field is refused at once, naming it.
    private static func add(_ headers: JSONValue, to request: inout Request) throws(Failure) {
        for (name, value) in headers.node.members {
            request.headers.set(name, try text(value, field: "headers_json.\(name)"))
            // The field just set is the only one that can be wrong (the storage checked
            // it; the call reads the same verdict): refused now, naming the header.
            if let problem = request.headers.problem {
                throw Failure(status: GW_ERROR_INVALID_ARGUMENT, message: problem)
            }
        }
    }

    /// `policy_json`'s `retry`, `retryBudget`, `circuitBreaker`, `redirects` and
    /// `maxResponseBytes`, read as the config's. A partial `retry` or `redirects` changes the
    /// fields it names of the policy the call starts from: the route's, else the config's.
    private static func applyPolicies(_ value: JSONValue, to request: inout Request, config: GatewayConfig) throws(Failure) {
        do {
            let root = ConfigNode(value.node, path: "policy_json")
            try root.rejectUnknownKeys(["retry", "retryBudget", "circuitBreaker", "redirects", "maxResponseBytes"])
            if let node = try root.optional("retry") {
                request.options.retryPolicy = try RetryPolicy(config: node, inheriting: config.retryPolicy(forRoute: request.route))
            }
            if let node = try root.optional("retryBudget") { request.options.retryBudget = try RetryBudget(config: node) }
            if let node = try root.optional("circuitBreaker") {
                request.options.circuitBreaker = try CircuitBreakerPolicy(config: node)
            }
            if let node = try root.optional("redirects") {
                request.options.redirectPolicy = try RedirectPolicy(
                    config: node, inheriting: config.redirectPolicy(forRoute: request.route))
            }
            if let node = try root.optional("maxResponseBytes") {
                request.options.maxResponseBytes = try ResponseSizeLimit.bytes(config: node)
            }
        } catch {
            throw Failure(status: GW_ERROR_INVALID_ARGUMENT, message: error.description)
        }
    }

    /// The C retry test as the core's: its verdict and delay (seconds, capped by the core).
    private static func retryTest(_ test: gw_retry_test_fn, userData: UnsafeMutableRawPointer?) -> RetryTest {
        let context = UInt(bitPattern: userData)  // raw pointers are not Sendable; ferry the address
        return { outcome in
            let view = AttemptView(number: outcome.attempt, status: outcome.status, errorKind: outcome.errorKind,
                                   elapsed: outcome.elapsed, headers: outcome.headers)
            var delay = -1.0
            let verdict = view.withHandle { test($0, &delay, UnsafeMutableRawPointer(bitPattern: context)) }
            switch verdict {
            case GW_RETRY_RETRY: return .retry(after: delay >= 0 ? delay : nil)
            case GW_RETRY_STOP: return .stop
            default: return .usePolicy
            }
        }
    }

    /// `method` (case-insensitive); NULL means GET, as the header documents.
    private static func method(_ options: gw_call_options) throws(Failure) -> HTTPMethod {
        let name = string(options.method) ?? "GET"
        guard let method = HTTPMethod(name: name) else {
            let known = HTTPMethod.allCases.map(\.rawValue).joined(separator: ", ")
            throw Failure(status: GW_ERROR_INVALID_ARGUMENT, message: "method: unknown HTTP method \"\(name)\" (expected one of: \(known))")
        }
        return method
    }

    /// The header's ranges, the core's rules (``CallLimits``, which the CLI's options follow
    /// too): `max_retries` -1 (the route's or client's policy) or 0...100; `attempt_timeout`
    /// and `deadline` 0 (the client's) or 0.001...86400 seconds, NaN and infinities out of
    /// range. `body_length` and `part_count` at most `Int.max` (``SizeArgument``).
    private static func checkNumbers(_ options: gw_call_options) throws(Failure) {
        for (field, value) in [("body_length", options.body_length), ("part_count", options.part_count)] {
            if let problem = SizeArgument.problem(value, field: field) {
                throw Failure(status: GW_ERROR_INVALID_ARGUMENT, message: problem)
            }
        }
        if let problem = CallLimits.maxRetriesProblem(Int64(options.max_retries), field: "max_retries")
            ?? CallLimits.timeoutProblem(options.attempt_timeout, field: "attempt_timeout")
            ?? CallLimits.timeoutProblem(options.deadline, field: "deadline") {
            throw Failure(status: GW_ERROR_INVALID_ARGUMENT, message: problem)
        }
    }

    private static func parse(_ text: UnsafePointer<CChar>, field: String) throws(Failure) -> JSONValue {
        do {
            return try JSONValue.parse(String(cString: text))
        } catch {
            throw Failure(status: GW_ERROR_INVALID_ARGUMENT, message: "\(field): \(error)")
        }
    }

    private static func object(_ text: UnsafePointer<CChar>?, field: String) throws(Failure) -> JSONValue? {
        guard let text else { return nil }
        let value = try parse(text, field: field)
        guard value.node.kind == .object else {
            throw Failure(status: GW_ERROR_INVALID_ARGUMENT, message: "\(field): expected a JSON object")
        }
        return value
    }

    /// The elements of an array of parameter or form values, each as ``text(_:field:)``.
    private static func texts(_ node: JSONNode, field: String) throws(Failure) -> [String] {
        var result: [String] = []
        for (index, element) in node.elements.enumerated() {
            result.append(try text(element, field: "\(field)[\(index)]"))
        }
        return result
    }

    /// A parameter or header value: strings as they are, numbers and booleans as their JSON text.
    private static func text(_ node: JSONNode, field: String) throws(Failure) -> String {
        switch node.kind {
        case .string: return node.string!
        case .integer, .real, .bool: return node.serialized()
        default: throw Failure(status: GW_ERROR_INVALID_ARGUMENT, message: "\(field): expected a string, number or boolean")
        }
    }
}
