import CGatewireABI
import Gatewire

/// Turns a `gw_call_options` into a ``Request``: checks the version, parses the JSON fields
/// and wraps the C retry test. Errors are messages for `gw_last_error_message()`.
enum CallOptionsReader {
    struct Failure: Error {
        let status: Int32
        let message: String
    }

    /// A `GET` of no path with every default: copied for each route call.
    private static let blank = Request(.get, "")

    /// The size of a version 1 `gw_call_options` (it ends before `policy_json`).
    static let version1Size = MemoryLayout<gw_call_options>.offset(of: \gw_call_options.policy_json)!

    /// Whether this library reads `version` (1 or 2).
    static func supports(_ version: UInt32) -> Bool {
        version == GW_CALL_OPTIONS_VERSION || version == GW_CALL_OPTIONS_VERSION_1
    }

    /// Copies the caller's struct, reading no more bytes than its version has: a v1 caller's
    /// memory ends before `policy_json`, which then reads as NULL.
    static func load(_ pointer: UnsafePointer<gw_call_options>) -> gw_call_options {
        let version = UnsafeRawPointer(pointer).load(as: UInt32.self)
        var copy = gw_call_options()
        let size = version == GW_CALL_OPTIONS_VERSION_1 ? version1Size : MemoryLayout<gw_call_options>.size
        withUnsafeMutableBytes(of: &copy) { target in
            target.copyMemory(from: UnsafeRawBufferPointer(start: pointer, count: size))
        }
        return copy
    }

    static func request(from options: gw_call_options, client: Client) throws(Failure) -> Request {
        guard supports(options.version) else {
            throw Failure(status: GW_ERROR_VERSION,
                          message: "unsupported gw_call_options version \(options.version) (this library has \(GW_CALL_OPTIONS_VERSION))")
        }
        var request: Request
        if let route = string(options.route) {
            request = blank  // copied and filled in: cheaper than `Request(route:)`'s initialiser
            request.route = route
        } else if options.path == nil, let type = string(options.object_type) {
            // An object route: the route whose objectType and method match (issue 3).
            let name = string(options.method) ?? "GET"
            guard let method = HTTPMethod(name: name) else {
                throw Failure(status: GW_ERROR_INVALID_ARGUMENT, message: "unknown HTTP method \"\(name)\"")
            }
            request = Request(method, "", body: .object(.object(), type: type))
        } else {
            guard let path = string(options.path) else {
                throw Failure(status: GW_ERROR_INVALID_ARGUMENT, message: "set route, or method and path")
            }
            let name = string(options.method) ?? "GET"
            guard let method = HTTPMethod(name: name) else {
                throw Failure(status: GW_ERROR_INVALID_ARGUMENT, message: "unknown HTTP method \"\(name)\"")
            }
            request = Request(method, path)
        }
        if let params = try object(options.params_json, field: "params_json") {
            for (key, value) in params.node.members { request.parameters[key] = try text(value, field: "params_json.\(key)") }
        }
        if let headers = try object(options.headers_json, field: "headers_json") {
            for (name, value) in headers.node.members { request.headers.set(name, try text(value, field: "headers_json.\(name)")) }
        }
        if let body = options.body_json {
            let value = try parse(body, field: "body_json")
            let routeType = request.route.flatMap { client.config.routes[$0]?.objectType }
            request.body = options.object_type != nil || routeType != nil
                ? .object(value, type: string(options.object_type)) : .json(value)
        }
        // The route's own policies, looked up only when an override needs them (reading
        // `client.config` copies the whole config).
        func routePolicies() -> Route? { request.route.flatMap { client.config.routes[$0] } }
        if let text = options.policy_json {
            let value = try parse(text, field: "policy_json")
            do {
                let root = ConfigNode(value.node, path: "policy_json")
                try root.rejectUnknownKeys(["retry", "retryBudget", "circuitBreaker"])
                if let node = try root.optional("retry") {
                    request.options.retryPolicy = try RetryPolicy(
                        config: node, inheriting: routePolicies()?.retryPolicy ?? client.config.retryPolicy)
                }
                if let node = try root.optional("retryBudget") { request.options.retryBudget = try RetryBudget(config: node) }
                if let node = try root.optional("circuitBreaker") {
                    request.options.circuitBreaker = try CircuitBreakerPolicy(config: node)
                }
            } catch {
                throw Failure(status: GW_ERROR_INVALID_ARGUMENT, message: error.description)
            }
        }
        if options.max_retries >= 0 {
            var policy = request.options.retryPolicy ?? routePolicies()?.retryPolicy ?? client.config.retryPolicy
            policy.maxRetries = Int(options.max_retries)
            request.options.retryPolicy = policy
        }
        if options.attempt_timeout > 0 || options.deadline > 0 {
            var timeouts = client.config.timeouts
            if options.attempt_timeout > 0 { timeouts.attempt = options.attempt_timeout }
            if options.deadline > 0 { timeouts.deadline = options.deadline }
            request.options.timeouts = timeouts
        }
        if let test = options.retry_test {
            let context = UInt(bitPattern: options.retry_test_user_data)
            request.options.retryTest = { outcome in
                let view = AttemptView(number: outcome.attempt, status: outcome.status, errorKind: outcome.errorKind,
                                       elapsed: outcome.elapsed, headers: outcome.headers)
                var delay = -1.0
                let verdict = view.withHandle { test($0, &delay, UnsafeMutableRawPointer(bitPattern: context)) }
                switch verdict {
                case GW_RETRY_RETRY: return .retry(after: delay >= 0 && delay.isFinite ? delay : nil)
                case GW_RETRY_STOP: return .stop
                default: return .usePolicy
                }
            }
        }
        return request
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

    /// A parameter or header value: strings as they are, numbers and booleans as their JSON text.
    private static func text(_ node: JSONNode, field: String) throws(Failure) -> String {
        switch node.kind {
        case .string: return node.string!
        case .integer, .real, .bool: return node.serialized()
        default: throw Failure(status: GW_ERROR_INVALID_ARGUMENT, message: "\(field): expected a string, number or boolean")
        }
    }
}
