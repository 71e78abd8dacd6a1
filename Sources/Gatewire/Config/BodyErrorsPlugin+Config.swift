extension BodyErrorsPlugin.Condition {
    /// Reads a `bodyErrors` plugin's `when`: `{"keyPath": "ok", "equals": false}` or
    /// `{"keyPath": "errors", "notEquals": []}`; `keyPath` defaults to `""` (the whole body).
    /// - Throws: ``ConfigError`` naming the field: an unknown key, a `keyPath` that is not a
    ///   string, neither or both of `equals` and `notEquals`, or either of them `null` (a
    ///   `null` or missing value never matches, so such a condition could never hold).
    init(config node: ConfigNode) throws(ConfigError) {
        try node.rejectUnknownKeys(["keyPath", "equals", "notEquals"])
        let keyPath = JSONKeyPath(try node.optional("keyPath")?.string() ?? "")
        if node.json["equals"]?.isNull == true || node.json["notEquals"]?.isNull == true {
            throw node.error("a condition cannot compare with null: a missing or null value never matches")
        }
        switch (try node.optional("equals"), try node.optional("notEquals")) {
        case (let value?, nil): self.init(keyPath: keyPath, equals: true, value: try Self.copy(value))
        case (nil, let value?): self.init(keyPath: keyPath, equals: false, value: try Self.copy(value))
        default: throw node.error("a condition needs exactly one of \"equals\" and \"notEquals\"")
        }
    }

    /// A tree of its own, so that the plugin does not keep the whole config document alive.
    private static func copy(_ node: ConfigNode) throws(ConfigError) -> JSONValue {
        do { return try JSONValue.parse(node.json.serialized()) } catch { throw node.error("\(error)") }
    }
}

extension BodyErrorsPlugin.ErrorObjects {
    /// Reads a `bodyErrors` plugin's `errors`: `{"keyPath": "errors", "mapping": "GraphQLError"}`;
    /// `keyPath` defaults to `""` (the whole body). The mapping's name is checked when a client
    /// is made, against the config's `mappings`.
    /// - Throws: ``ConfigError`` naming the field: an unknown key, a missing `mapping`, a
    ///   value that is not a string.
    init(config node: ConfigNode) throws(ConfigError) {
        try node.rejectUnknownKeys(["keyPath", "mapping"])
        self.init(keyPath: JSONKeyPath(try node.optional("keyPath")?.string() ?? ""),
                  mapping: try node.required("mapping").string())
    }
}
