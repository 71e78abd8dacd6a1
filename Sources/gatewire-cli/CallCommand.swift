import Gatewire
import GatewireC
import Glibc

/// `gatewire call`: one call (or, with --all-pages, one call a page) through the gateway
/// config; prints the result on stdout and exits 0, or the error and exits 1.
func call(_ arguments: ArraySlice<String>) -> Never {
    let options = CallArguments(parsing: arguments)
    let config = options.config()
    let request = options.request(in: config)
    if let warning = config.insecureTLSWarning { printError("gatewire: warning: \(warning)") }
    // The CLI has the core inside: it loads only plugins that reach it through gw_plugin_api.
    let client: Client
    do throws(ConfigError) {
        client = try Client(config: config, plugins: [], registry: .selfContained, randomSeed: nil)
    } catch {
        fail("\(options.configName): \(error)", code: 1)
    }
    let console = LiveConsole(showsWaits: options.verbose, countsPages: options.allPages)
    let report = AttemptReport(client: client, verbose: options.verbose, console: console)
    report.console.start()
    let status = options.allPages ? printPages(report.watching(request), client: client, report: report)
        : options.output.map { reportDownload(report.watching(request), to: $0, client: client, report: report) }
        ?? printResult(report.watching(request), client: client, report: report)
    report.console.stop()
    client.close()
    exit(status)
}

/// Sends `request` once and prints the mapped result (or the body: re-indented when it parses
/// as JSON, else as received), or the error. Returns the exit status.
private func printResult(_ request: Request, client: Client, report: AttemptReport) -> Int32 {
    do {
        let response = try client.sendAndWait(request)
        report.print(response.attempts)
        report.console.clearStatus()
        report.printCache(of: response)
        if let mapped = response.mapped {
            printLine(mapped.serialized(pretty: true))
        } else if let json = try? JSONValue.parse(response.http.text) {
            printLine(json.serialized(pretty: true))
        } else {
            printLine(response.http.text)
        }
        return 0
    } catch {
        report.print(error.attempts)
        report.console.clearStatus()
        printLine(summary(of: error).serialized(pretty: true))
        return 1
    }
}

/// Follows the route's pagination: one compact JSON line a page (JSON Lines), and a failed
/// page's error line last. Returns the exit status.
private func printPages(_ request: Request, client: Client, report: AttemptReport) -> Int32 {
    do {
        let paginator = try client.paginator(request)
        while let page = try paginator.next() {
            report.print(page.attempts)
            report.console.clearStatus()
            printLine((page.mapped ?? page.body ?? JSONValue.string(page.http.text)).serialized())
        }
        return 0
    } catch {
        report.print(error.attempts)
        report.console.clearStatus()
        printLine(summary(of: error).serialized())
        return 1
    }
}

/// The error as JSON without its attempt history, which --verbose shows one line an attempt:
/// only their count.
func summary(of error: GatewireError) -> JSONValue {
    let summary = error.json
    summary.set("attempts", .integer(Int64(error.attempts.count)))
    return summary
}
