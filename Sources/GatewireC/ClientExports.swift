import CGatewireABI
import Gatewire
import Glibc

@_cdecl("gw_client_options_init")
public func gw_client_options_init(_ options: UnsafeMutablePointer<gw_client_options>?, _ version: UInt32) -> Int32 {
    guard let options else { return LastError.fail(GW_ERROR_INVALID_ARGUMENT, "gw_client_options_init: options is NULL") }
    guard version == 1 || version == GW_CLIENT_OPTIONS_VERSION else {
        return LastError.fail(GW_ERROR_VERSION, "gw_client_options_init: unsupported version \(version) (this library has 1 to \(GW_CLIENT_OPTIONS_VERSION))")
    }
    var filled = gw_client_options()
    filled.version = version
    // A version 1 struct ends before `credential`: write only its own bytes.
    let size = version == 1 ? MemoryLayout<gw_client_options>.offset(of: \gw_client_options.credential)! : MemoryLayout<gw_client_options>.size
    withUnsafeBytes(of: &filled) { UnsafeMutableRawPointer(options).copyMemory(from: $0.baseAddress!, byteCount: size) }
    return GW_OK
}

@_cdecl("gw_client_create")
public func gw_client_create(_ options: UnsafePointer<gw_client_options>?,
                             _ outClient: UnsafeMutablePointer<OpaquePointer?>?) -> Int32 {
    createClient("gw_client_create", options, outClient)
}

/// gw_client_create and its shorthands: `function` is the one the caller called, named in
/// the messages.
private func createClient(_ function: String, _ options: UnsafePointer<gw_client_options>?,
                          _ outClient: UnsafeMutablePointer<OpaquePointer?>?) -> Int32 {
    guard let outClient else { return LastError.fail(GW_ERROR_INVALID_ARGUMENT, "\(function): out_client is NULL") }
    outClient.pointee = nil
    guard let options else { return LastError.fail(GW_ERROR_INVALID_ARGUMENT, "\(function): options is NULL") }
    var settings = gw_client_options()
    let givenVersion = UnsafeRawPointer(options).load(as: UInt32.self)
    if givenVersion == 1 {
        withUnsafeMutableBytes(of: &settings) {
            $0.copyMemory(from: UnsafeRawBufferPointer(start: options, count: MemoryLayout<gw_client_options>.offset(of: \gw_client_options.credential)!))
        }
        settings.version = GW_CLIENT_OPTIONS_VERSION
    } else {
        settings = options.pointee
    }
    guard settings.version == GW_CLIENT_OPTIONS_VERSION else {
        return LastError.fail(GW_ERROR_VERSION, "\(function): unsupported options version \(settings.version)")
    }
    let source: GatewayConfig.Source
    do {
        source = try GatewayConfig.Source(json: string(settings.config_json), file: string(settings.config_path),
                                          baseURL: string(settings.base_url))
    } catch .missing {
        return LastError.fail(GW_ERROR_INVALID_ARGUMENT, "\(function): set one of config_json, config_path, base_url")
    } catch {
        return LastError.fail(GW_ERROR_INVALID_ARGUMENT, "\(function): set config_json or config_path, not both")
    }
    let config: GatewayConfig
    do {
        config = try source.load()
    } catch {
        return LastError.fail(GW_ERROR_CONFIG, error.description)
    }
    if let problem = SizeArgument.problem(settings.plugin_count, field: "\(function): plugin_count") {
        return LastError.fail(GW_ERROR_INVALID_ARGUMENT, problem)
    }
    if settings.plugin_count > 0, settings.plugins == nil {
        return LastError.fail(GW_ERROR_INVALID_ARGUMENT, "\(function): plugins is NULL but plugin_count is \(settings.plugin_count)")
    }
    var plugins: [CPlugin] = []
    for index in 0..<settings.plugin_count {
        let plugin = CPlugin.read(settings.plugins, index: index)
        guard CPlugin.supportedVersions.contains(plugin.version), index == 0 || plugin.version == settings.plugins[0].version else {
            return LastError.fail(GW_ERROR_VERSION, "\(function): plugins[\(index)] has unsupported version \(plugin.version) (this library has 1 to \(GW_PLUGIN_VERSION), one version per array)")
        }
        plugins.append(CPlugin(plugin, index: index))
    }
    let credential: [any Plugin] = settings.credential.map { [unbox($0, as: CredentialBox.self).credential] } ?? []
    let client: Client
    do throws(ConfigError) {
        client = try Client(config: config, plugins: credential + plugins, registry: .cLibrary,
                            randomSeed: settings.random_seed == 0 ? nil : settings.random_seed)
    } catch {
        return LastError.fail(GW_ERROR_CONFIG, error.description)
    }
    outClient.pointee = box(ClientBox(client: client, plugins: plugins))
    return GW_OK
}

@_cdecl("gw_client_new")
public func gw_client_new(_ baseURL: UnsafePointer<CChar>?, _ outClient: UnsafeMutablePointer<OpaquePointer?>?) -> Int32 {
    guard let baseURL else {
        outClient?.pointee = nil
        return LastError.fail(GW_ERROR_INVALID_ARGUMENT, "gw_client_new: base_url is NULL")
    }
    var options = gw_client_options()
    options.version = GW_CLIENT_OPTIONS_VERSION
    options.base_url = baseURL
    return createClient("gw_client_new", &options, outClient)
}

@_cdecl("gw_client_new_from_config")
public func gw_client_new_from_config(_ configJSON: UnsafePointer<CChar>?,
                                      _ outClient: UnsafeMutablePointer<OpaquePointer?>?) -> Int32 {
    guard let configJSON else {
        outClient?.pointee = nil
        return LastError.fail(GW_ERROR_INVALID_ARGUMENT, "gw_client_new_from_config: config_json is NULL")
    }
    var options = gw_client_options()
    options.version = GW_CLIENT_OPTIONS_VERSION
    options.config_json = configJSON
    return createClient("gw_client_new_from_config", &options, outClient)
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
        _ = try PluginRegistry.cLibrary.plugins(for: config.plugins, catalog: config.catalog)  // a plugin that cannot be loaded is reported here too
        let warnings = JSONValue.array()
        for warning in config.warnings { warnings.append(.string(warning)) }
        outWarnings?.pointee = strdup(warnings.serialized())
        return GW_OK
    } catch {
        return LastError.fail(GW_ERROR_CONFIG, error.description)
    }
}

@_cdecl("gw_client_metrics_json")
public func gw_client_metrics_json(_ client: OpaquePointer?, _ outJSON: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    outJSON?.pointee = nil
    guard let client, let outJSON else { return LastError.fail(GW_ERROR_INVALID_ARGUMENT, "gw_client_metrics_json: client or out_json is NULL") }
    guard let metrics = unbox(client, as: ClientBox.self).client.plugins.lazy.compactMap({ $0 as? MetricsPlugin }).first else {
        return LastError.fail(GW_ERROR_INVALID_ARGUMENT, "the client has no metrics plugin (add {\"name\": \"metrics\"} to the config's plugins)")
    }
    outJSON.pointee = strdup(metrics.serializedJSON())
    return GW_OK
}

@_cdecl("gw_client_cookies_json")
public func gw_client_cookies_json(_ client: OpaquePointer?, _ outJSON: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    outJSON?.pointee = nil
    guard let client, let outJSON else { return LastError.fail(GW_ERROR_INVALID_ARGUMENT, "gw_client_cookies_json: client or out_json is NULL") }
    let list = JSONValue.array()
    for cookie in unbox(client, as: ClientBox.self).client.cookies { list.append(cookie.json) }
    outJSON.pointee = strdup(list.serialized())
    return GW_OK
}

/// `gw_client_shared_state_json`: ``Client/sharedStateAndWait()``'s lines as one JSON array.
@_cdecl("gw_client_shared_state_json")
public func gw_client_shared_state_json(_ client: OpaquePointer?,
                                        _ outJSON: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    outJSON?.pointee = nil
    guard let client, let outJSON else {
        return LastError.fail(GW_ERROR_INVALID_ARGUMENT, "gw_client_shared_state_json: client or out_json is NULL")
    }
    let owner = unbox(client, as: ClientBox.self)
    if let refusal = refuseBlocking("gw_client_shared_state_json", owner) { return refusal }
    do throws(GatewireError) {
        let lines = try owner.client.sharedStateAndWait()
        outJSON.pointee = strdup("[" + lines.joined(separator: ",") + "]")
        return GW_OK
    } catch {
        return LastError.fail(error.kind == .invalidArgument ? GW_ERROR_INVALID_ARGUMENT : GW_ERROR_CALL_FAILED,
                              "gw_client_shared_state_json: \(error.message)")
    }
}

@_cdecl("gw_client_check_blocking")
public func gw_client_check_blocking(_ client: OpaquePointer?) -> Int32 {
    guard let client else { return LastError.fail(GW_ERROR_INVALID_ARGUMENT, "gw_client_check_blocking: client is NULL") }
    return refuseBlocking("gw_client_check_blocking", unbox(client, as: ClientBox.self)) ?? GW_OK
}

/// `Client.waitProblem(waitingOn:)` for a function that blocks on `owner`'s calls (gw_call,
/// gw_paginator_next, gw_client_check_blocking): records the refusal naming `function` and
/// returns GW_ERROR_WOULD_DEADLOCK, or nil when this thread may block.
func refuseBlocking(_ function: String, _ owner: ClientBox) -> Int32? {
    guard let problem = Client.waitProblem(waitingOn: owner.client) else { return nil }
    return LastError.fail(GW_ERROR_WOULD_DEADLOCK, "\(function): \(problem); use gw_call_async")
}
