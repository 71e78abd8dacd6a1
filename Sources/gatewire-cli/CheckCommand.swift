import Gatewire
import GatewireC
import Glibc

/// The one format of a config error: "FILE: error: FIELD: why", or "FILE: error: why" when
/// the whole file is wrong (the file name the core puts before such a message is not repeated).
func configErrorLine(_ error: ConfigError, file: String) -> String {
    let message = error.message.hasPrefix("\(file): ") ? String(error.message.dropFirst(file.count + 2)) : error.message
    return error.path.isEmpty ? "\(file): error: \(message)" : "\(file): error: \(error.path): \(message)"
}

func check(_ arguments: ArraySlice<String>) -> Never {
    if arguments.first == "--help" || arguments.first == "-h" { printLine(help); exit(0) }
    guard arguments.count == 1, let path = arguments.first else { fail(usage) }
    do {
        let config = try GatewayConfig(contentsOfFile: path)
        _ = try PluginRegistry.selfContained.plugins(for: config.plugins, catalog: config.catalog)  // loads shared objects as `call` would
        for warning in config.warnings { printLine("warning: \(warning)") }
        printLine("\(path): OK (\(counted(config.routes.count, "route")), \(counted(config.catalog.mappings.count, "mapping")), "
            + "\(counted(config.catalog.responseDescriptors.count, "response descriptor")))")
        exit(0)
    } catch {
        printError(configErrorLine(error, file: path))
        exit(1)
    }
}
