/// A node of a gateway config with its path from the root, for parsing with precise errors.
///
/// Every accessor that finds a field of the wrong type throws a ``ConfigError`` that names
/// the field and the expected type, so `gatewire check` can say exactly what to fix.
/// Valid while the ``JSONValue`` that holds the config is alive.
package struct ConfigNode {
    /// The JSON at this place in the config.
    package let json: JSONNode
    /// The path of this node from the root, e.g. `routes.user`.
    package let path: String

    /// Wraps `json`, found at `path` from the config's root (empty for the root itself).
    package init(_ json: JSONNode, path: String = "") {
        self.json = json
        self.path = path
    }

    /// The path of a member of this node.
    package func path(of key: String) -> String { path.isEmpty ? key : "\(path).\(key)" }

    /// An error about this node.
    package func error(_ message: String) -> ConfigError { ConfigError(path: path, message: message) }

    /// The member `key`, or nil when it is absent or `null`.
    /// - Throws: ``ConfigError`` when this node is not an object.
    package func optional(_ key: String) throws(ConfigError) -> ConfigNode? {
        guard json.kind == .object else { throw error("expected an object, got \(json.kind.name)") }
        guard let member = json[key], !member.isNull else { return nil }
        return ConfigNode(member, path: path(of: key))
    }

    /// The member `key`.
    /// - Throws: ``ConfigError`` "is required" when it is absent or `null`.
    package func required(_ key: String) throws(ConfigError) -> ConfigNode {
        guard let member = try optional(key) else {
            throw ConfigError(path: path(of: key), message: "is required")
        }
        return member
    }

    /// This node's string value.
    package func string() throws(ConfigError) -> String {
        guard let value = json.string else { throw error("expected a string, got \(json.kind.name)") }
        return value
    }

    /// This node's string value, which `problem` must accept (it returns why a text is not
    /// allowed, or nil: ``HTTPHeaders/nameProblem(_:)``, ``Authentication/usernameProblem(_:)``).
    /// - Throws: ``ConfigError`` naming this node, with `problem`'s reason.
    package func string(checkedBy problem: (String) -> String?) throws(ConfigError) -> String {
        let value = try string()
        if let why = problem(value) { throw error(why) }
        return value
    }

    /// This node's number, which must lie in `range` (seconds, counts, factors: the caller says).
    package func number(in range: ClosedRange<Double> = -Double.greatestFiniteMagnitude...Double.greatestFiniteMagnitude)
        throws(ConfigError) -> Double
    {
        guard let value = json.number else { throw error("expected a number, got \(json.kind.name)") }
        guard range.contains(value) else {
            throw error("\(value.formatted) is out of range \(range.lowerBound.formatted)...\(range.upperBound.formatted)")
        }
        return value
    }

    /// This node's integer value, which must lie in `range`.
    package func integer(in range: ClosedRange<Int64> = Int64.min...Int64.max) throws(ConfigError) -> Int64 {
        guard let value = json.integer else { throw error("expected an integer, got \(json.kind.name)") }
        guard range.contains(value) else { throw error("\(value) is out of range \(range.lowerBound)...\(range.upperBound)") }
        return value
    }

    /// This node's boolean value.
    package func bool() throws(ConfigError) -> Bool {
        guard let value = json.bool else { throw error("expected true or false, got \(json.kind.name)") }
        return value
    }

    /// The elements of this array, each with its `[i]` path.
    package func elements() throws(ConfigError) -> [ConfigNode] {
        guard json.kind == .array else { throw error("expected an array, got \(json.kind.name)") }
        return json.elements.enumerated().map { ConfigNode($1, path: "\(path)[\($0)]") }
    }

    /// The members of this object in document order, each with its path.
    package func members() throws(ConfigError) -> [(key: String, value: ConfigNode)] {
        guard json.kind == .object else { throw error("expected an object, got \(json.kind.name)") }
        return json.members.map { ($0.key, ConfigNode($0.value, path: path(of: $0.key))) }
    }

    /// Throws for any member not in `known`, so a misspelt field is reported, not ignored.
    package func rejectUnknownKeys(_ known: Set<String>) throws(ConfigError) {
        for (key, _) in try members() where !known.contains(key) {
            let hint = known.sorted().joined(separator: ", ")
            throw ConfigError(path: path(of: key), message: "unknown field (expected one of: \(hint))")
        }
    }
}

extension Double {
    /// "3" for 3.0, "0.5" for 0.5: how a config value reads back in messages (the config's
    /// errors here, the pipeline's warnings and retry reasons).
    package var formatted: String {
        if self == rounded(), abs(self) < 1e15 { return String(Int64(self)) }
        return String(self)
    }
}
