import CGatewireABI
import Gatewire

/// `gw_call_options`' typed policy structs (`retry`, `retry_budget`, `circuit_breaker`,
/// `rate_limit`, `redirects`, `max_response_bytes`) as the config tree they stand for:
/// `{"retry": {"maxRetries": 3, ...}, "redirects": {...}, ...}`, holding only the fields that
/// are not kept. ``PolicyOverrides`` reads it with the config's own readers, as it reads
/// version 4's `policy_json`: one translation, so the ranges and messages cannot differ. A
/// message names the C field the value came from (`retry.max_retries: 150 is out of range
/// 0...100`, where `policy_json` gives `policy_json.retry.maxRetries: 150 ...`).
struct PolicyTree {
    typealias Failure = CallOptionsReader.Failure

    /// The tree's root object.
    let root = JSONValue.object()
    /// Each config path written (`retry.maxRetries`) -> the C field it came from (`retry.max_retries`).
    private var fieldNames: [String: String] = [:]

    /// The tree of `options`' policy structs, or nil when they keep every policy (most calls:
    /// nothing to build).
    /// - Throws: ``CallOptionsReader/Failure`` naming the C field for what JSON cannot carry
    ///   or the config has no word for: a NaN or infinite time, an unknown enum value, a flag
    ///   other than GW_KEEP, 0 and 1, an array pointer NULL with a count.
    static func of(_ pointer: UnsafePointer<gw_call_options>) throws(Failure) -> PolicyTree? {
        let retry = pointer.pointee.retry, budget = pointer.pointee.retry_budget, breaker = pointer.pointee.circuit_breaker
        let redirects = pointer.pointee.redirects, rateLimit = pointer.pointee.rate_limit
        var keepsAll = retry.max_retries == GW_KEEP && retry.initial_delay == Double(GW_KEEP)
            && retry.multiplier == Double(GW_KEEP) && retry.max_delay == Double(GW_KEEP)
            && retry.jitter == GW_JITTER_KEEP && retry.status_codes == nil && retry.status_code_count == 0
            && retry.methods == nil && retry.method_count == 0 && retry.max_retry_after == Double(GW_KEEP)
            && retry.idempotency_key == GW_KEEP && retry.retry_non_idempotent == GW_KEEP
        keepsAll = keepsAll && budget.mode == GW_POLICY_KEEP && breaker.mode == GW_POLICY_KEEP
            && rateLimit.mode == GW_POLICY_KEEP
            && redirects.follow == GW_FOLLOW_KEEP && redirects.max == GW_KEEP && redirects.allow_downgrade == GW_KEEP
            && redirects.allow_cross_origin_body == GW_KEEP && pointer.pointee.max_response_bytes == 0
        if keepsAll { return nil }
        var tree = PolicyTree()
        try tree.addRetry(retry)
        try tree.addRetryBudget(budget)
        try tree.addCircuitBreaker(breaker)
        try tree.addRateLimit(rateLimit)
        try tree.addRedirects(redirects)
        if pointer.pointee.max_response_bytes != 0 {
            tree.set(.integer(pointer.pointee.max_response_bytes), at: "maxResponseBytes", field: "max_response_bytes", in: nil)
        }
        return tree
    }

    private init() {}

    /// The C field behind a config path of this tree, with any element index kept:
    /// `retry.statusCodes[2]` -> `retry.status_codes[2]`.
    func field(of path: String) -> String {
        let head = path.prefix { $0 != "[" }
        return (fieldNames[String(head)] ?? String(head)) + path.dropFirst(head.count)
    }

    // MARK: - The structs

    private mutating func addRetry(_ retry: gw_retry_options) throws(Failure) {
        let section: Section = (object: JSONValue.object(), key: "retry", field: "retry")
        if retry.max_retries != GW_KEEP {
            set(.integer(Int64(retry.max_retries)), at: "maxRetries", field: "max_retries", in: section)
        }
        try setNumber(retry.initial_delay, at: "initialDelay", field: "initial_delay", in: section)
        try setNumber(retry.multiplier, at: "multiplier", field: "multiplier", in: section)
        try setNumber(retry.max_delay, at: "maxDelay", field: "max_delay", in: section)
        try setWord(retry.jitter, at: "jitter", field: "jitter", in: section, words: [
            (GW_JITTER_KEEP, "GW_JITTER_KEEP", nil), (GW_JITTER_NONE, "GW_JITTER_NONE", "none"),
            (GW_JITTER_FULL, "GW_JITTER_FULL", "full"), (GW_JITTER_EQUAL, "GW_JITTER_EQUAL", "equal"),
            (GW_JITTER_DECORRELATED, "GW_JITTER_DECORRELATED", "decorrelated"),
        ])
        try setStatusCodes(retry.status_codes, count: retry.status_code_count, at: "statusCodes", in: section)
        if let methods = try array(retry.methods, count: retry.method_count, field: "retry.methods",
                                   countField: "retry.method_count") {
            let list = JSONValue.array()
            for index in 0..<retry.method_count {
                guard let name = methods[index] else {
                    throw Self.invalid("retry.methods[\(index)]: NULL (a method name is required)")
                }
                list.append(.string(String(cString: name)))
            }
            set(list, at: "methods", field: "methods", in: section)
        }
        try setNumber(retry.max_retry_after, at: "maxRetryAfter", field: "max_retry_after", in: section)
        try setFlag(retry.idempotency_key, at: "idempotencyKey", field: "idempotency_key", in: section)
        try setFlag(retry.retry_non_idempotent, at: "retryNonIdempotent", field: "retry_non_idempotent", in: section)
    }

    private mutating func addRetryBudget(_ budget: gw_retry_budget_options) throws(Failure) {
        guard let section = try policySection(budget.mode, key: "retryBudget", field: "retry_budget") else { return }
        try setNumber(budget.max_tokens, at: "maxTokens", field: "max_tokens", in: section)
        try setNumber(budget.token_ratio, at: "tokenRatio", field: "token_ratio", in: section)
    }

    private mutating func addCircuitBreaker(_ breaker: gw_circuit_breaker_options) throws(Failure) {
        guard let section = try policySection(breaker.mode, key: "circuitBreaker", field: "circuit_breaker") else {
            return
        }
        try setNumber(breaker.failure_ratio, at: "failureRatio", field: "failure_ratio", in: section)
        if breaker.minimum_throughput != GW_KEEP {
            set(.integer(Int64(breaker.minimum_throughput)), at: "minimumThroughput", field: "minimum_throughput",
                in: section)
        }
        try setNumber(breaker.sampling_duration, at: "samplingDuration", field: "sampling_duration", in: section)
        try setNumber(breaker.break_duration, at: "breakDuration", field: "break_duration", in: section)
        try setStatusCodes(breaker.status_codes, count: breaker.status_code_count, at: "statusCodes", in: section)
    }

    private mutating func addRateLimit(_ limit: gw_rate_limit_options) throws(Failure) {
        guard let section = try policySection(limit.mode, key: "rateLimit", field: "rate_limit") else { return }
        if limit.requests != GW_KEEP {
            set(.integer(Int64(limit.requests)), at: "requests", field: "requests", in: section)
        }
        try setNumber(limit.per, at: "per", field: "per", in: section)
        if limit.burst != GW_KEEP { set(.integer(Int64(limit.burst)), at: "burst", field: "burst", in: section) }
        try setWord(limit.scope, at: "scope", field: "scope", in: section, words: [
            (GW_RATE_LIMIT_SCOPE_KEEP, "GW_RATE_LIMIT_SCOPE_KEEP", nil),
            (GW_RATE_LIMIT_SCOPE_HOST, "GW_RATE_LIMIT_SCOPE_HOST", "host"),
            (GW_RATE_LIMIT_SCOPE_ROUTE, "GW_RATE_LIMIT_SCOPE_ROUTE", "route"),
        ])
        try setFlag(limit.wait, at: "wait", field: "wait", in: section)
        try setFlag(limit.pause_on_retry_after, at: "pauseOnRetryAfter", field: "pause_on_retry_after", in: section)
        try setNumber(limit.max_pause, at: "maxPause", field: "max_pause", in: section)
    }

    private mutating func addRedirects(_ redirects: gw_redirect_options) throws(Failure) {
        let section: Section = (object: JSONValue.object(), key: "redirects", field: "redirects")
        try setWord(redirects.follow, at: "follow", field: "follow", in: section, words: [
            (GW_FOLLOW_KEEP, "GW_FOLLOW_KEEP", nil), (GW_FOLLOW_NONE, "GW_FOLLOW_NONE", "none"),
            (GW_FOLLOW_SAME_ORIGIN, "GW_FOLLOW_SAME_ORIGIN", "sameOrigin"), (GW_FOLLOW_ANY, "GW_FOLLOW_ANY", "any"),
        ])
        if redirects.max != GW_KEEP { set(.integer(Int64(redirects.max)), at: "max", field: "max", in: section) }
        try setFlag(redirects.allow_downgrade, at: "allowDowngrade", field: "allow_downgrade", in: section)
        try setFlag(redirects.allow_cross_origin_body, at: "allowCrossOriginBody", field: "allow_cross_origin_body",
                    in: section)
    }

    // MARK: - Writing the tree

    /// A config object under the root (`retry`) and the C struct it comes from, written into
    /// the root when its first field is.
    private typealias Section = (object: JSONValue, key: String, field: String)

    /// `value` at `key` of `section` (nil: of the root), remembering the C field it came from.
    private mutating func set(_ value: JSONValue, at key: String, field: String, in section: Section?) {
        guard let section else {
            root.set(key, value)
            fieldNames[key] = field
            return
        }
        if fieldNames[section.key] == nil {
            root.set(section.key, section.object)
            fieldNames[section.key] = section.field
        }
        section.object.set(key, value)
        fieldNames["\(section.key).\(key)"] = "\(section.field).\(field)"
    }

    /// A retry budget's or circuit breaker's mode: nil to keep it, `false` written for
    /// GW_POLICY_OFF, an object (empty until a field is set: every default) for GW_POLICY_ON.
    private mutating func policySection(_ mode: Int32, key: String, field: String) throws(Failure) -> Section? {
        switch mode {
        case GW_POLICY_KEEP: return nil
        case GW_POLICY_OFF:
            set(.bool(false), at: key, field: field, in: nil)
            return nil
        case GW_POLICY_ON:
            let section: Section = (object: JSONValue.object(), key: key, field: field)
            set(section.object, at: key, field: field, in: nil)
            return section
        default:
            throw Self.invalid("\(field).mode: unknown mode \(mode) (expected GW_POLICY_KEEP, GW_POLICY_OFF or GW_POLICY_ON)")
        }
    }

    /// A number (seconds, a factor, tokens, a ratio), unless GW_KEEP; the config's reader
    /// checks its range. JSON has no NaN or infinity, so those are refused here.
    private mutating func setNumber(_ value: Double, at key: String, field: String, in section: Section) throws(Failure) {
        if value == Double(GW_KEEP) { return }
        guard value.isFinite else { throw Self.invalid("\(section.field).\(field): \(value) is not a finite number") }
        set(.number(value), at: key, field: field, in: section)
    }

    /// A tri-state flag: GW_KEEP, 0 (false) or 1 (true).
    private mutating func setFlag(_ value: Int32, at key: String, field: String, in section: Section) throws(Failure) {
        switch value {
        case GW_KEEP: return
        case 0, 1: set(.bool(value == 1), at: key, field: field, in: section)
        default: throw Self.invalid("\(section.field).\(field): \(value) is not GW_KEEP (-1), 0 or 1")
        }
    }

    /// An enum field as the config's word (nil: keep), from `words` (value, C name, word).
    private mutating func setWord(_ value: Int32, at key: String, field: String, in section: Section,
                                  words: [(Int32, String, String?)]) throws(Failure) {
        guard let entry = words.first(where: { $0.0 == value }) else {
            let names = words.map(\.1)
            throw Self.invalid("\(section.field).\(field): unknown value \(value) (expected "
                + "\(names.dropLast().joined(separator: ", ")) or \(names.last!))")
        }
        if let word = entry.2 { set(.string(word), at: key, field: field, in: section) }
    }

    /// A status code array (`status_codes` + `status_code_count`), unless NULL.
    private mutating func setStatusCodes(_ codes: UnsafePointer<Int32>?, count: Int, at key: String,
                                         in section: Section) throws(Failure) {
        guard let codes = try array(codes, count: count, field: "\(section.field).status_codes",
                                    countField: "\(section.field).status_code_count") else { return }
        let list = JSONValue.array()
        for index in 0..<count { list.append(.integer(Int64(codes[index]))) }
        set(list, at: key, field: "status_codes", in: section)
    }

    /// An array argument: nil (keep) when NULL with count 0; refused when NULL with a count,
    /// or for a count above `Int.max` (``SizeArgument``).
    private func array<Element>(_ pointer: UnsafePointer<Element>?, count: Int, field: String,
                                countField: String) throws(Failure) -> UnsafePointer<Element>? {
        if let problem = SizeArgument.problem(count, field: countField) { throw Self.invalid(problem) }
        guard let pointer else {
            if count > 0 { throw Self.invalid("\(field): NULL with \(countField) \(count)") }
            return nil
        }
        return pointer
    }

    private static func invalid(_ message: String) -> Failure { Failure(status: GW_ERROR_INVALID_ARGUMENT, message: message) }
}
