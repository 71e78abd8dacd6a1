import CGatewireABI
import Gatewire
import Glibc

/// The registries of the programs that load shared-object plugins: the C ABI library (every
/// `gw_client_create` and `gw_config_check`) and the `gatewire` CLI.
extension PluginRegistry {
    /// libGatewire's: a shared object of any `gw_plugin` version (1 to 3). One linked against
    /// libGatewire (versions 1 and 2) calls this very library, the one already in the process.
    package static let cLibrary = PluginRegistry(sharedObjectLoader: { (object) throws(ConfigError) in
        try PluginLoader.load(object, versions: CPlugin.supportedVersions)
    })

    /// For a program with the core linked in (the `gatewire` CLI): only version 3, a plugin that
    /// reaches Gatewire through the `gw_plugin_api` table. An older one is linked against
    /// libGatewire and would bring a second core and Swift runtime into the process.
    package static let selfContained = PluginRegistry(sharedObjectLoader: { (object) throws(ConfigError) in
        try PluginLoader.load(object, versions: GW_PLUGIN_VERSION...GW_PLUGIN_VERSION)
    })
}

/// Opens a shared-object plugin and calls its entry (include/gatewire.h, `gw_plugin_entry_fn`).
enum PluginLoader {
    /// The plugin `object` names, as a ``CPlugin``: `dlopen(RTLD_NOW | RTLD_LOCAL)` (the object
    /// stays loaded for the process), then its entry with a zeroed `gw_plugin` and the
    /// ``PluginAPITable``. Its `destroy` hook is never called (the object outlives its clients).
    /// - Parameter versions: the `gw_plugin` versions the caller accepts.
    /// - Throws: ``ConfigError`` naming `plugins[i].path` (cannot load: the reason and the
    ///   absolute path tried), the symbol's field (missing), or `plugins[i]` (a non-zero
    ///   return, an unsupported version).
    static func load(_ object: SharedObjectPlugin, versions: ClosedRange<UInt32>) throws(ConfigError) -> CPlugin {
        let path = object.path
        guard let handle = dlopen(path, RTLD_NOW | RTLD_LOCAL) else {
            let reason = dlerror().map { String(cString: $0) } ?? "unknown error"
            throw ConfigError(path: object.pathField, message: "cannot load the plugin's shared object (tried \(path)): \(reason)")
        }
        _ = dlerror()
        guard let address = dlsym(handle, object.symbol) else {
            throw ConfigError(path: object.symbolField, message: "\(path) has no symbol \"\(object.symbol)\" (the plugin entry: "
                + "int32_t \(object.symbol)(gw_plugin *plugin, const gw_plugin_api *api))")
        }
        let entry = unsafeBitCast(address, to: gw_plugin_entry_fn.self)
        // Zeroed room for any gw_plugin version, generously sized; fields a version lacks stay NULL.
        let size = max(512, MemoryLayout<gw_plugin>.stride)
        let storage = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 16)
        defer { storage.deallocate() }
        storage.initializeMemory(as: UInt8.self, repeating: 0, count: size)
        let filled = storage.assumingMemoryBound(to: gw_plugin.self)
        // A one-argument entry (versions 1 and 2) ignores the table: the C calling convention
        // of the supported platforms (System V x86-64, AArch64) lets the caller pass it anyway.
        let status = entry(filled, PluginAPITable.shared)
        guard status == 0 else {
            throw ConfigError(path: object.configPath, message: "\(object.symbol) in \(path) failed with status \(status)")
        }
        let version = storage.load(as: UInt32.self)
        if version < versions.lowerBound, CPlugin.supportedVersions.contains(version) {
            throw ConfigError(path: object.configPath, message: "\(path) has gw_plugin version \(version), a plugin linked against "
                + "libGatewire: it would bring a second Gatewire core into this program, which has its own; rebuild it to "
                + "call Gatewire through the gw_plugin_api its entry receives (gw_plugin version \(GW_PLUGIN_VERSION), "
                + "without -lGatewire; see \"Plugins\" in gatewire.h)")
        }
        guard versions.contains(version) else {
            throw ConfigError(path: object.configPath, message: "\(path) has gw_plugin version \(version); this library "
                + "supports versions \(versions.lowerBound) to \(versions.upperBound)")
        }
        return CPlugin(CPlugin.read(filled, index: 0), index: 0, name: object.name ?? path)
    }
}
