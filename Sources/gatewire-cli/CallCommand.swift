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
    let anyway = options.output == "-"
    let status = options.allPages ? printPages(report.watching(request), client: client, report: report, anyway: anyway)
        : options.outputFile.map { reportDownload(report.watching(request), to: $0, client: client, report: report) }
        ?? printResult(report.watching(request), client: client, report: report, anyway: anyway)
    report.console.stop()
    client.close()
    exit(status)
}

/// Sends `request` once and prints the mapped result (or the body: re-indented when it parses
/// as JSON, else its bytes as received), or the error, through ``writeResult(_:anyway:)``.
/// Returns the exit status: 1 for a failed call, or a result kept off the terminal.
private func printResult(_ request: Request, client: Client, report: AttemptReport, anyway: Bool) -> Int32 {
    do {
        let response = try client.sendAndWait(request)
        report.print(response.attempts)
        report.console.clearStatus()
        report.printCache(of: response)
        let output: [UInt8]
        if let mapped = response.mapped {
            output = Array(mapped.serialized(pretty: true).utf8)
        } else if let json = try? JSONValue.parse(response.http.text) {
            output = Array(json.serialized(pretty: true).utf8)
        } else {
            output = response.http.body
        }
        return writeResult(output, anyway: anyway) ? 0 : 1
    } catch {
        report.print(error.attempts)
        report.console.clearStatus()
        _ = writeResult(Array(summary(of: error).serialized(pretty: true).utf8), anyway: anyway)
        return 1
    }
}

/// Follows the route's pagination: one compact JSON line a page (JSON Lines), and a failed
/// page's error line last, through ``writeResult(_:anyway:)``. Returns the exit status: 1
/// for a failed page, or a line kept off the terminal (no later page is fetched).
private func printPages(_ request: Request, client: Client, report: AttemptReport, anyway: Bool) -> Int32 {
    do {
        let paginator = try client.paginator(request)
        while let page = try paginator.next() {
            report.print(page.attempts)
            report.console.clearStatus()
            let line = (page.mapped ?? page.body ?? JSONValue.string(page.http.text)).serialized()
            guard writeResult(Array(line.utf8), anyway: anyway) else { return 1 }
        }
        return 0
    } catch {
        report.print(error.attempts)
        report.console.clearStatus()
        _ = writeResult(Array(summary(of: error).serialized().utf8), anyway: anyway)
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
