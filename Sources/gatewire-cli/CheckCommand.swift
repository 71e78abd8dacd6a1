import Gatewire
import GatewireC
import Glibc

/// The one format of a config error: "FILE: error: FIELD: why", or "FILE: error: why" when
/// the whole file is wrong (the file name the core puts before such a message is not repeated).
func configErrorLine(_ error: ConfigError, file: String) -> String {
    let message = error.message.hasPrefix("\(file): ") ? String(error.message.dropFirst(file.count + 2)) : error.message
    return error.path.isEmpty ? "\(file): error: \(message)" : "\(file): error: \(error.path): \(message)"
}

/// `gatewire check [--no-load-plugins] CONFIG`: exits 0 (OK and warnings on stdout), 1 (the
/// config error on stderr: the config is what check judges, so a file that cannot be read is
/// its verdict too) or 2 (a usage error, with check's usage).
func check(_ arguments: ArraySlice<String>) -> Never {
    var paths: [String] = []
    var loadsPlugins = true
    for argument in arguments {
        switch argument {
        case "--help", "-h": printLine(Help.check); exit(ExitStatus.success)
        case "--no-load-plugins": loadsPlugins = false
        default:
            if argument.hasPrefix("-") { fail("unknown option \(argument)", usage: Help.checkUsage) }
            paths.append(argument)
        }
    }
    guard paths.count == 1, let path = paths.first else {
        fail(paths.isEmpty ? "check needs a CONFIG file" : "check takes one CONFIG, got \(paths.count)", usage: Help.checkUsage)
    }
    do {
        let config = try GatewayConfig(contentsOfFile: path)
        let notLoaded: [String]
        if loadsPlugins {
            _ = try PluginRegistry.selfContained.plugins(for: config.plugins, catalog: config.catalog)  // loads shared objects as `call` would
            notLoaded = []
        } else {
            notLoaded = try checkWithoutLoading(config.plugins, catalog: config.catalog)
        }
        for warning in config.warnings { printLine("warning: \(warning)") }
        for line in notLoaded { printLine(line) }
        printLine("\(path): OK (\(counted(config.routes.count, "route")), \(counted(config.catalog.mappings.count, "mapping")), "
            + "\(counted(config.catalog.responseDescriptors.count, "response descriptor")))")
        exit(ExitStatus.success)
    } catch {
        printError(configErrorLine(error, file: path))
        exit(ExitStatus.failed)
    }
}

/// Checks `specs` without opening a shared object (`--no-load-plugins`): the built-ins are
/// built as `call` builds them; a shared object's file must exist and be readable (`access`,
/// nothing is mapped or run). Returns a line for each shared object not loaded.
/// - Throws: ``ConfigError`` as the loading check would for a built-in, or naming
///   `plugins[i].path` for a file that cannot be read.
private func checkWithoutLoading(_ specs: [PluginSpec], catalog: MappingCatalog) throws(ConfigError) -> [String] {
    var lines: [String] = []
    for spec in specs {
        switch spec.kind {
        case .builtIn: _ = try PluginRegistry.builtIn.plugins(for: [spec], catalog: catalog)
        case .sharedObject(let object):
            guard access(object.path, R_OK) == 0 else {
                throw ConfigError(path: object.pathField, message: "cannot read the plugin's shared object (\(object.path)): "
                    + String(cString: strerror(errno)))
            }
            lines.append("not loaded: \(spec.configPath): shared object \(object.path) (--no-load-plugins: its code did not "
                + "run, so its entry \"\(object.symbol)\" and the plugin it returns are not checked)")
        }
    }
    return lines
}
