import CGatewireABI
import Gatewire
import Glibc

@_cdecl("gw_client_options_init")
public func gw_client_options_init(_ options: UnsafeMutablePointer<gw_client_options>?, _ version: UInt32) -> Int32 {
    guard let options else { return LastError.fail(GW_ERROR_INVALID_ARGUMENT, "gw_client_options_init: options is NULL") }
    guard version == GW_CLIENT_OPTIONS_VERSION else {
        return LastError.fail(GW_ERROR_VERSION, "gw_client_options_init: unsupported version \(version) (this library has \(GW_CLIENT_OPTIONS_VERSION))")
    }
    options.pointee = gw_client_options(version: version, base_url: nil, config_json: nil, config_path: nil,
                                        plugins: nil, plugin_count: 0, random_seed: 0)
    return GW_OK
}

@_cdecl("gw_client_create")
public func gw_client_create(_ options: UnsafePointer<gw_client_options>?,
                             _ outClient: UnsafeMutablePointer<OpaquePointer?>?) -> Int32 {
    guard let outClient else { return LastError.fail(GW_ERROR_INVALID_ARGUMENT, "gw_client_create: out_client is NULL") }
    outClient.pointee = nil
    guard let options else { return LastError.fail(GW_ERROR_INVALID_ARGUMENT, "gw_client_create: options is NULL") }
    let settings = options.pointee
    guard settings.version == GW_CLIENT_OPTIONS_VERSION else {
        return LastError.fail(GW_ERROR_VERSION, "gw_client_create: unsupported options version \(settings.version)")
    }
    let config: GatewayConfig
    do {
        if let json = string(settings.config_json) {
            config = try GatewayConfig(json: json)
        } else if let path = string(settings.config_path) {
            config = try GatewayConfig(contentsOfFile: path)
        } else if let baseURL = string(settings.base_url) {
            config = try GatewayConfig(baseURL: baseURL)
        } else {
            return LastError.fail(GW_ERROR_INVALID_ARGUMENT, "gw_client_create: set one of config_json, config_path, base_url")
        }
    } catch {
        return LastError.fail(GW_ERROR_CONFIG, error.description)
    }
    if settings.plugin_count > 0, settings.plugins == nil {
        return LastError.fail(GW_ERROR_INVALID_ARGUMENT, "gw_client_create: plugins is NULL but plugin_count is \(settings.plugin_count)")
    }
    var plugins: [CPlugin] = []
    for index in 0..<settings.plugin_count {
        let plugin = settings.plugins[index]
        guard plugin.version == GW_PLUGIN_VERSION else {
            return LastError.fail(GW_ERROR_VERSION, "gw_client_create: plugins[\(index)] has unsupported version \(plugin.version) (this library has \(GW_PLUGIN_VERSION))")
        }
        plugins.append(CPlugin(plugin, index: index))
    }
    let client = Client(config: config, plugins: plugins,
                        randomSeed: settings.random_seed == 0 ? nil : settings.random_seed)
    outClient.pointee = box(ClientBox(client: client, plugins: plugins))
    return GW_OK
}

@_cdecl("gw_client_new")
public func gw_client_new(_ baseURL: UnsafePointer<CChar>?, _ outClient: UnsafeMutablePointer<OpaquePointer?>?) -> Int32 {
    guard let baseURL else {
        outClient?.pointee = nil
        return LastError.fail(GW_ERROR_INVALID_ARGUMENT, "gw_client_new: base_url is NULL")
    }
    var options = gw_client_options(version: GW_CLIENT_OPTIONS_VERSION, base_url: baseURL, config_json: nil,
                                    config_path: nil, plugins: nil, plugin_count: 0, random_seed: 0)
    return gw_client_create(&options, outClient)
}

@_cdecl("gw_client_new_from_config")
public func gw_client_new_from_config(_ configJSON: UnsafePointer<CChar>?,
                                      _ outClient: UnsafeMutablePointer<OpaquePointer?>?) -> Int32 {
    guard let configJSON else {
        outClient?.pointee = nil
        return LastError.fail(GW_ERROR_INVALID_ARGUMENT, "gw_client_new_from_config: config_json is NULL")
    }
    var options = gw_client_options(version: GW_CLIENT_OPTIONS_VERSION, base_url: nil, config_json: configJSON,
                                    config_path: nil, plugins: nil, plugin_count: 0, random_seed: 0)
    return gw_client_create(&options, outClient)
}

@_cdecl("gw_client_free")
public func gw_client_free(_ client: OpaquePointer?) {
    guard let client else { return }
    unbox(client, as: ClientBox.self).close()
    release(client, as: ClientBox.self)
}

@_cdecl("gw_config_check")
public func gw_config_check(_ configJSON: UnsafePointer<CChar>?,
                            _ outWarnings: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    outWarnings?.pointee = nil
    guard let configJSON else { return LastError.fail(GW_ERROR_INVALID_ARGUMENT, "gw_config_check: config_json is NULL") }
    do {
        let config = try GatewayConfig(json: String(cString: configJSON))
        let warnings = JSONValue.array()
        for warning in config.warnings { warnings.append(.string(warning)) }
        outWarnings?.pointee = strdup(warnings.serialized())
        return GW_OK
    } catch {
        return LastError.fail(GW_ERROR_CONFIG, error.description)
    }
}
