import CGatewireABI
import Gatewire

/// Turns a `gw_call_options` of any version into a ``Request``: reads the layout its version
/// has (5 to 7: the nested structs, ``CallFields/init(v5:)``; 1 to 4: `gw_call_options_v4`), then
/// checks the numbers' ranges and the header fields, parses the JSON fields and wraps the C
/// callbacks, the same for both layouts (``CallFields``). Errors are messages for
/// `gw_last_error_message()` that name the field (`retry.max_retries: ...`), never a
/// function: the same reader serves `gw_call`, `gw_call_async`, `gw_call_async_queued` and
/// `gw_paginator_new`, and the bindings' own methods.
enum CallOptionsReader {
    struct Failure: Error {
        let status: Int32
        let message: String
    }

    /// A `GET` of no path with every default: copied for each route call.
    private static let blank = Request(.get, "")

    /// The size of a version 1 `gw_call_options_v4` (it ends before `policy_json`).
    static let version1Size = MemoryLayout<gw_call_options_v4>.offset(of: \gw_call_options_v4.policy_json)!
    /// The size of a version 2 `gw_call_options_v4` (it ends before `body`).
    static let version2Size = MemoryLayout<gw_call_options_v4>.offset(of: \gw_call_options_v4.body)!
    /// The size of a version 3 `gw_call_options_v4` (it ends before `parts`).
    static let version3Size = MemoryLayout<gw_call_options_v4>.offset(of: \gw_call_options_v4.parts)!

    /// The size of a version 5 `gw_call_options` (it ends before `rate_limit`).
    static let version5Size = MemoryLayout<gw_call_options>.offset(of: \gw_call_options.rate_limit)!
    /// The size of a version 6 `gw_call_options` (it ends before `policy_json`).
    static let version6Size = MemoryLayout<gw_call_options>.offset(of: \gw_call_options.policy_json)!

    /// The bytes of an older `gw_call_options` of `version` (5 or 6), or nil for another.
    static func size(ofOlderLayout version: UInt32) -> Int? {
        switch version {
        case GW_CALL_OPTIONS_VERSION_5: version5Size
        case GW_CALL_OPTIONS_VERSION_6: version6Size
        default: nil
        }
    }

    /// Whether this library reads `version` (1 to 7).
    static func supports(_ version: UInt32) -> Bool {
        (GW_CALL_OPTIONS_VERSION_1...GW_CALL_OPTIONS_VERSION).contains(version)
    }

    /// The bytes of a `gw_call_options_v4` of `version` (1 to 4).
    static func size(ofVersion4Layout version: UInt32) -> Int {
        switch version {
        case GW_CALL_OPTIONS_VERSION_1: version1Size
        case GW_CALL_OPTIONS_VERSION_2: version2Size
        case GW_CALL_OPTIONS_VERSION_3: version3Size
        default: MemoryLayout<gw_call_options_v4>.size
        }
    }

    /// The call the struct at `pointer` describes, on `client` (whose config resolves the
    /// route's policies that the options override field by field).
    static func request(from pointer: UnsafePointer<gw_call_options>, client: Client) throws(Failure) -> Request {
        try request(from: fields(at: pointer), client: client)
    }

    /// The fields of the caller's struct, reading no more bytes than its version has: an
    /// older caller's memory ends before the fields it does not have, which then read as NULL and 0.
    private static func fields(at pointer: UnsafePointer<gw_call_options>) throws(Failure) -> CallFields {
        let version = UnsafeRawPointer(pointer).load(as: UInt32.self)
        guard supports(version) else {
            throw Failure(status: GW_ERROR_VERSION,
                          message: "unsupported gw_call_options version \(version) (this library reads 1...\(GW_CALL_OPTIONS_VERSION))")
        }
        if version == GW_CALL_OPTIONS_VERSION { return try CallFields(v5: pointer) }
        if let size = size(ofOlderLayout: version) {
            // Its memory ends before the later fields (rate_limit, policy_json): they take their defaults.
            var copy = CallOptionsDefaults.call
            withUnsafeMutableBytes(of: &copy) { target in
                target.copyMemory(from: UnsafeRawBufferPointer(start: pointer, count: size))
            }
            return try withUnsafePointer(to: copy) { pointer throws(Failure) in try CallFields(v5: pointer) }
        }
        var copy = gw_call_options_v4()
        withUnsafeMutableBytes(of: &copy) { target in
            target.copyMemory(from: UnsafeRawBufferPointer(start: pointer, count: size(ofVersion4Layout: version)))
        }
        return CallFields(v4: copy)
    }

    /// The call `options` describe, on `client`.
    private static func request(from options: CallFields, client: Client) throws(Failure) -> Request {
        var request = try target(options)
        try checkNumbers(options)
        if let params = try object(options.params, field: "params_json") {
            for (key, value) in params.node.members {
                if value.kind == .array {
                    request.listParameters[key] = try texts(value, field: "params_json.\(key)")
                } else {
                    request.parameters[key] = try text(value, field: "params_json.\(key)")
                }
            }
        }
        if let headers = try object(options.headers, field: "headers_json") {
            try add(headers, to: &request)
        }
        if !options.body.isEmpty {
            try setBody(options, of: &request, client: client)  // most calls have none: no config copy
        }
        if options.body.hasParts {
            try MultipartOptions.setParts(options.body, of: &request)
        }
        try applyPolicies(options.policies, to: &request, client: client)
        if options.maxRetries >= 0 { request.options.maxRetries = Int(options.maxRetries) }
        let limits = options.timeouts
        if limits.connect > 0 || limits.attempt > 0 || limits.deadline > 0 {
            var timeouts = client.config.timeouts
            if limits.connect > 0 { timeouts.connect = limits.connect }
            if limits.attempt > 0 { timeouts.attempt = limits.attempt }
            if limits.deadline > 0 { timeouts.deadline = limits.deadline }
            request.options.timeouts = timeouts
        }
        if let test = options.retryTest {
            request.options.retryTest = retryTest(test, userData: options.retryTestUserData)
        }
        if let report = options.onProgress {
            request.options.onProgress = progressHandler(report, userData: options.onProgressUserData)
        }
        request.options.bodySink = try BodySinkReader.sink(options.download)
        if let parent = try TraceParentReader.parent(options.traceparent, state: options.tracestate) {
            request.options.traceParent = parent
        }
        return request
    }

    /// The request's target: `route`; else, with no `path`, the route of `object_type` and
    /// `method`; else `method` and `path`.
    private static func target(_ options: CallFields) throws(Failure) -> Request {
        if let route = string(options.route) {
            var request = blank  // copied and filled in: cheaper than `Request(route:)`'s initialiser
            request.route = route
            return request
        }
        if options.path == nil, let type = string(options.objectType) {
            return Request(try method(options), "", body: .object(.object(), type: type))
        }
        guard let path = string(options.path) else {
            throw Failure(status: GW_ERROR_INVALID_ARGUMENT, message: "set route, or path (and method; NULL = GET)")
        }
        return Request(try method(options), path)
    }

    /// The body of the JSON text, the bytes (with their content type) or the form: at most
    /// one of them (version 5's `gw_body.kind` has already made sure; version 4's are
    /// checked here).
    private static func setBody(_ options: CallFields, of request: inout Request,
                                client: Client) throws(Failure) {
        let body = options.body, names = body.names
        let given = [(names.json, body.json != nil), (names.bytes, body.sendsBytes), (names.form, body.form != nil)]
            .filter(\.1).map(\.0)
        if let problem = Request.oneBodyProblem(given) {
            throw Failure(status: GW_ERROR_INVALID_ARGUMENT, message: problem)
        }
        if let json = body.json {
            let value = try parse(json, field: names.json)
            request.body = client.config.requestBody(value, objectType: string(options.objectType), forRoute: request.route)
        } else if body.sendsBytes {
            if body.bytes == nil, body.length > 0 {
                throw Failure(status: GW_ERROR_INVALID_ARGUMENT,
                              message: "\(names.bytes): NULL with \(names.length) \(body.length) (NULL is no body; 0 bytes is an empty one)")
            }
            let buffer = UnsafeRawBufferPointer(start: body.bytes, count: body.length)
            request.body = .bytes(Array(buffer), contentType: string(body.contentType) ?? "application/octet-stream")
        } else if let form = try object(body.form, field: names.form) {
            var fields: [(name: String, value: String)] = []
            for (name, value) in form.node.members {
                let field = "\(names.form).\(name)"
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

    /// Lays the policies over `request` (``PolicyOverrides``, the config's readers): the
    /// `policy_json` text (version 4's and 7's) under its name (`policy_json.retry.maxRetries:
    /// ...`), then the typed structs' tree (version 5 and later) over it, under the C fields'
    /// names (`retry.max_retries: ...`).
    /// `client`'s config is read only for a call that sets a policy: most keep them all, and
    /// reading it copies the whole config.
    private static func applyPolicies(_ policies: CallFields.PolicyFields, to request: inout Request,
                                      client: Client) throws(Failure) {
        if let text = policies.text {
            let value = try parse(text, field: "policy_json")
            do {
                try PolicyOverrides.apply(ConfigNode(value.node, path: "policy_json"), to: &request, config: client.config)
            } catch {
                throw Failure(status: GW_ERROR_INVALID_ARGUMENT, message: error.description)
            }
        }
        if let tree = policies.tree {
            do {
                try PolicyOverrides.apply(ConfigNode(tree.root.node), to: &request, config: client.config)
            } catch {
                throw Failure(status: GW_ERROR_INVALID_ARGUMENT, message: "\(tree.field(of: error.path)): \(error.message)")
            }
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
    private static func method(_ options: CallFields) throws(Failure) -> HTTPMethod {
        let name = string(options.method) ?? "GET"
        guard let method = HTTPMethod(name: name) else {
            let known = HTTPMethod.allCases.map(\.rawValue).joined(separator: ", ")
            throw Failure(status: GW_ERROR_INVALID_ARGUMENT, message: "method: unknown HTTP method \"\(name)\" (expected one of: \(known))")
        }
        return method
    }

    /// The header's ranges, the core's rules (``CallLimits``, which the CLI's options follow
    /// too): version 4's `max_retries` -1 (the route's or client's policy) or 0...100; each
    /// time limit 0 (the client's) or 0.001...86400 seconds, NaN and infinities out of range.
    /// Sizes (`body_length`, `part_count`) at most `Int.max` (``SizeArgument``). Version 5's
    /// policy numbers are checked by the config's readers (``PolicyOverrides``).
    private static func checkNumbers(_ options: CallFields) throws(Failure) {
        let names = options.body.names, limits = options.timeouts
        let problem = SizeArgument.problem(options.body.length, field: names.length)
            ?? SizeArgument.problem(options.body.partCount, field: names.partCount)
            ?? CallLimits.maxRetriesProblem(Int64(options.maxRetries), field: "max_retries")
            ?? limits.names.connect.flatMap { CallLimits.timeoutProblem(limits.connect, field: $0) }
            ?? CallLimits.timeoutProblem(limits.attempt, field: limits.names.attempt)
            ?? CallLimits.timeoutProblem(limits.deadline, field: limits.names.deadline)
        if let problem { throw Failure(status: GW_ERROR_INVALID_ARGUMENT, message: problem) }
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
