/// Fails a call whose 2xx body reports an error: Slack's `{"ok": false, "error": "..."}`,
/// GraphQL's non-empty `errors`. The failure has kind `plugin`, the response's status, and the
/// error objects a named mapping makes of the body at a key path, as an error descriptor's.
///
/// Config (docs/config.md, "bodyErrors"):
///
/// ```json
/// {"name": "bodyErrors", "when": {"keyPath": "ok", "equals": false},
///  "errors": {"keyPath": "", "mapping": "SlackError"}}
/// {"name": "bodyErrors", "when": {"keyPath": "errors", "notEquals": []},
///  "errors": {"keyPath": "errors", "mapping": "GraphQLError"}}
/// ```
///
/// It runs in ``Plugin/process(_:context:)``, once per call on the final result, after the
/// retry policy has decided: a body-reported error is final, never retried. The server
/// received and handled the request and answered it (Slack's `channel_not_found`; the same
/// request gets the same answer), as Alamofire's and RestKit's validation treat a body they
/// reject; overload is reported by status (Slack's 429), which the retry policy already sees.
/// Global failure observers see the failure once, as any failed call's. Values; thread-safe.
package struct BodyErrorsPlugin: Plugin {
    package let name = "bodyErrors"
    /// When a 2xx body reports an error.
    package let condition: Condition
    /// Where the error objects are and how they are mapped; nil: the failure has none.
    package let errorObjects: ErrorObjects?
    private let mapper: ObjectMapper

    /// The test on a 2xx body: the value at ``keyPath`` equals, or differs from, ``value``.
    /// A key path that finds nothing, or finds `null`, never holds: a GraphQL success without
    /// `errors` and a Slack body without `ok` are successes. Values compare as JSON
    /// (``JSONNode/isEqual(to:)``: an integer never equals a real).
    package struct Condition: Sendable, CustomStringConvertible {
        /// Whether the body's value must equal ``value`` (true) or differ from it (false).
        package let equals: Bool
        /// Where the tested value is in the body.
        package let keyPath: JSONKeyPath
        /// The value compared with; never JSON `null`.
        package let value: JSONValue

        /// A condition that holds when the value at `keyPath` equals `value` (`equals` true)
        /// or differs from it (false). `value` is shared, not copied: it must not change after.
        package init(keyPath: JSONKeyPath, equals: Bool, value: JSONValue) {
            self.keyPath = keyPath
            self.equals = equals
            self.value = value
        }

        /// Whether `body` reports an error.
        package func holds(in body: JSONNode) -> Bool {
            guard let found = try? keyPath.value(in: body), !found.node.isNull else { return false }
            return found.node.isEqual(to: value.node) == equals
        }

        /// `ok equals false`, `errors does not equal []`.
        package var description: String {
            "\(keyPath.isRoot ? "the body" : keyPath.description) \(equals ? "equals" : "does not equal") \(value.serialized())"
        }
    }

    /// The error objects of a failure: the value at ``keyPath`` (each element of an array)
    /// mapped by the mapping named ``mapping``.
    package struct ErrorObjects: Sendable {
        /// Where the errors are in the body; `""` for the whole body.
        package let keyPath: JSONKeyPath
        /// The name of a mapping of the gateway config (``MappingCatalog/mappings``).
        package let mapping: String

        /// The objects at `keyPath` mapped by `mapping`.
        package init(keyPath: JSONKeyPath, mapping: String) {
            self.keyPath = keyPath
            self.mapping = mapping
        }
    }

    /// A plugin testing `condition`, mapping `errorObjects` with `catalog`'s mappings.
    /// - Throws: ``ConfigError`` naming `errorObjects`' mapping when `catalog` has no mapping
    ///   of that name (path `bodyErrors.errors.mapping`).
    package init(condition: Condition, errorObjects: ErrorObjects? = nil, catalog: MappingCatalog) throws(ConfigError) {
        try self.init(condition: condition, errorObjects: errorObjects, catalog: catalog, configPath: "bodyErrors")
    }

    /// As ``init(condition:errorObjects:catalog:)``, an error naming `configPath` (`plugins[2]`).
    package init(condition: Condition, errorObjects: ErrorObjects?, catalog: MappingCatalog, configPath: String)
        throws(ConfigError)
    {
        if let errorObjects, catalog.mapper.mappings[errorObjects.mapping] == nil {
            let known = catalog.mappings.map(\.name).sorted().joined(separator: ", ")
            throw ConfigError(path: "\(configPath).errors.mapping",
                              message: "unknown mapping \"\(errorObjects.mapping)\" (known: \(known.isEmpty ? "none" : known))")
        }
        self.condition = condition
        self.errorObjects = errorObjects
        mapper = catalog.mapper
    }

    /// A 2xx success whose JSON body meets ``condition`` becomes a failure of kind `plugin`
    /// with the response's status, the message "bodyErrors: the body of status S reports an
    /// error (CONDITION)" and the mapped error objects (an element the mapping rejects is
    /// left out, as with error descriptors; nil when none is left). Anything else is unchanged.
    package func process(_ result: Result<Response, GatewireError>, context: PluginContext)
        -> Result<Response, GatewireError>
    {
        guard case .success(let response) = result, (200..<300).contains(response.status),
              let body = response.body, condition.holds(in: body.node) else { return result }
        let message = "\(name): the body of status \(response.status) reports an error (\(condition))"
        return .failure(response.failure(.plugin, message: message, errorObjects: mappedErrors(in: body)))
    }

    private func mappedErrors(in body: JSONValue) -> JSONValue? {
        guard let errorObjects, let found = try? errorObjects.keyPath.value(in: body.node), !found.node.isNull else {
            return nil
        }
        let objects = JSONValue.array()
        let elements = found.node.kind == .array ? found.node.elements : [found.node]
        let context = MappingContext(root: body, metadata: nil)
        for (index, element) in elements.enumerated() where !element.isNull {
            let path = found.node.kind == .array ? "\(errorObjects.keyPath)[\(index)]" : errorObjects.keyPath.description
            if let mapped = try? mapper.map(element, with: errorObjects.mapping, at: path, context: context) {
                objects.append(mapped)
            }
        }
        return objects.node.count > 0 ? objects : nil
    }
}
