/// Builds the plugins a gateway config names (its ``PluginSpec``s) when a client is made: the
/// built-ins itself, a shared object through a loader a higher layer registers.
///
/// The `Gatewire` product has no loader for shared objects: loading one means handing it the
/// C ABI's `gw_plugin_api` table, which the C ABI library (libGatewire, used from C and Python)
/// and the `gatewire` CLI provide, each registering its loader in the registry it passes to
/// ``Client``. ``builtIn`` (what ``Client/init(config:plugins:randomSeed:)`` uses) turns a
/// shared-object entry into a ``ConfigError`` naming its `path` and saying what to do.
/// Values; thread-safe.
package struct PluginRegistry: Sendable {
    /// Loads a shared object's plugin: a ``ConfigError`` naming the field when it cannot.
    package typealias SharedObjectLoader = @Sendable (SharedObjectPlugin) throws(ConfigError) -> any Plugin

    private let sharedObjectLoader: SharedObjectLoader?

    /// The built-ins only.
    package static let builtIn = PluginRegistry(sharedObjectLoader: nil)

    /// The built-ins, and shared objects through `sharedObjectLoader` (nil: none).
    package init(sharedObjectLoader: SharedObjectLoader?) {
        self.sharedObjectLoader = sharedObjectLoader
    }

    /// The plugins for `specs`, in order; a new instance per call for built-ins that keep
    /// state (`metrics`, `requestId`).
    /// - Parameter catalog: the config's mappings, which `bodyErrors` maps error objects with.
    /// - Throws: ``ConfigError`` naming the entry's field: a shared object this registry has
    ///   no loader for, or its loader's error (a missing file or symbol, a refusing entry,
    ///   an unsupported version); a `bodyErrors` mapping the catalog lacks.
    package func plugins(for specs: [PluginSpec], catalog: MappingCatalog) throws(ConfigError) -> [any Plugin] {
        try specs.map { (spec) throws(ConfigError) in try plugin(for: spec, catalog: catalog) }
    }

    private func plugin(for spec: PluginSpec, catalog: MappingCatalog) throws(ConfigError) -> any Plugin {
        switch spec.kind {
        case .builtIn(let builtIn): return try Self.make(builtIn, catalog: catalog, configPath: spec.configPath)
        case .sharedObject(let object):
            guard let sharedObjectLoader else {
                throw ConfigError(path: object.pathField, message: "a shared-object plugin (\(object.path)) needs a loader this "
                    + "program lacks: shared-object plugins are loaded by the C ABI library libGatewire (C, Python) and the "
                    + "gatewire CLI; in a Swift program, pass the plugin to Client(config:plugins:) instead")
            }
            return try sharedObjectLoader(object)
        }
    }

    private static func make(_ plugin: BuiltInPlugin, catalog: MappingCatalog, configPath: String) throws(ConfigError)
        -> any Plugin
    {
        switch plugin {
        case .log(let redactor, let logHeaders): LoggingPlugin(redactor: redactor, logHeaders: logHeaders)
        case .requestID(let header): RequestIDPlugin(header: header)
        case .headers(let headers): StaticHeadersPlugin(headers: headers)
        case .bearer(let token): BearerPlugin(token: token)
        case .basic(let username, let password): BasicAuthPlugin(username: username, password: password)
        case .apiKey(let placement, let value): APIKeyPlugin(placement, value: value)
        case .metrics: MetricsPlugin()
        case .bodyErrors(let condition, let errorObjects):
            try BodyErrorsPlugin(condition: condition, errorObjects: errorObjects, catalog: catalog, configPath: configPath)
        }
    }
}
