/// A value a call's parameter can take besides a string: its text on the wire.
///
/// Numbers are their JSON text (`7`, `2.5`) and booleans `true`/`false`, the convention of
/// the C ABI's `params_json`, the CLI and Python (where requests would send Python's `True`):
/// one spelling whatever language the call comes from, and the one JSON APIs parse.
public protocol ParameterValue: Sendable {
    /// The value as sent, before percent-encoding.
    var parameterText: String { get }
}

extension String: ParameterValue {
    /// The string itself.
    public var parameterText: String { self }
}

extension Int: ParameterValue {
    /// Decimal digits, e.g. `-7`.
    public var parameterText: String { String(self) }
}

extension Double: ParameterValue {
    /// The shortest text that reads back as the same number (`2.5`, `3.0`), as Python's
    /// `str` writes it.
    public var parameterText: String { String(self) }
}

extension Bool: ParameterValue {
    /// `true` or `false`.
    public var parameterText: String { self ? "true" : "false" }
}

extension Request {
    /// Sets parameter `name` (a `:name` path segment or a query parameter) to `value`'s
    /// ``ParameterValue/parameterText``: `setParameter("page", 2)`, `setParameter("open", true)`.
    public mutating func setParameter(_ name: String, _ value: some ParameterValue) {
        parameters[name] = value.parameterText
    }

    /// Sets the query parameter `name` to several values (``listParameters``), e.g.
    /// `setParameter("ids", [1, 2])`; an empty array sends nothing.
    public mutating func setParameter<Value: ParameterValue>(_ name: String, _ values: [Value]) {
        listParameters[name] = values.map(\.parameterText)
    }
}
