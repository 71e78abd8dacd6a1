import Gatewire
import Glibc

/// `gatewire state --config FILE`: prints what the config's `sharedState` store holds under
/// its key prefix (circuit breakers, rate limits, pauses: JSON Lines, ``Client/sharedState(_:)``),
/// whichever process wrote it, and exits 0; exits 1 with the reason on stderr when the store
/// cannot be read (no `sharedState`, no answer), 2 for a usage error.
func state(_ arguments: ArraySlice<String>) -> Never {
    var path: String?
    var rest = arguments
    while let argument = rest.popFirst() {
        switch argument {
        case "--help", "-h": printLine(Help.state); exit(ExitStatus.success)
        case "--config":
            guard let value = rest.popFirst(), path == nil else {
                fail(path == nil ? "--config needs a FILE" : "--config given twice", usage: Help.stateUsage)
            }
            path = value
        default: fail("unknown argument \(argument)", usage: Help.stateUsage)
        }
    }
    guard let path else { fail("state needs --config FILE", usage: Help.stateUsage) }
    let client: Client
    do throws(ConfigError) {
        client = try Client(config: try GatewayConfig(contentsOfFile: path))
    } catch {
        fail(configErrorLine(error, file: path))
    }
    do throws(GatewireError) {
        for line in try client.sharedStateAndWait() { printLine(line) }
        client.close()
        exit(ExitStatus.success)
    } catch {
        printError("gatewire: \(error.message)")
        client.close()
        exit(ExitStatus.failed)
    }
}
