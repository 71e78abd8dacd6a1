extension HTTPHeaders {
    /// Parses a config object of header fields, `{"Name": "value", ...}`, in document order
    /// (the gateway's `headers`, the `headers` plugin's).
    /// - Throws: ``ConfigError`` naming the field (`headers.X`) for a value that is not a
    ///   string, a name that is not a token (RFC 9110 section 5.1) or is a framing or
    ///   connection field (`Content-Length`, `Connection`...), or a value with a control
    ///   character other than HTAB (RFC 9110 section 5.5), as ``HTTPHeaders/nameProblem(_:)``
    ///   and ``HTTPHeaders/valueProblem(_:)`` say.
    init(config node: ConfigNode) throws(ConfigError) {
        self.init()
        for (name, value) in try node.members() {
            let text = try value.string()
            if let problem = Self.nameProblem(name) ?? Self.valueProblem(text) { throw value.error(problem) }
            add(name, text)
        }
    }
}
