import Gatewire
import GatewireC
import Glibc

/// `gatewire call`: one call (or, with --all-pages, one call a page) through the gateway
/// config; prints the result on stdout and exits 0, or the error and exits 1, or a usage
/// error and exits 2 (``ExitStatus``).
func call(_ arguments: ArraySlice<String>) -> Never {
    let options = CallArguments(parsing: arguments)
    let config = options.config()
    let request = options.request(in: config)
    if let warning = config.insecureTLSWarning { printError("gatewire: warning: \(warning)") }
    let console = LiveConsole(showsWaits: options.verbose, countsPages: options.allPages)
    let trace: [any Plugin] = options.verbose
        ? [ExchangeTrace(console: console, http2PriorKnowledge: config.http2PriorKnowledge)] : []
    // The CLI has the core inside: it loads only plugins that reach it through gw_plugin_api.
    let client: Client
    do throws(ConfigError) {
        client = try Client(config: config, plugins: trace, registry: .selfContained, randomSeed: nil)
    } catch {
        fail("\(options.configName): \(error)")
    }
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
/// Returns the exit status: 1 for a failed call, or a result kept off the terminal; 2 for a
/// request the core refused to build (``reportRefusedRequest(_:)``).
private func printResult(_ request: Request, client: Client, report: AttemptReport, anyway: Bool) -> Int32 {
    do {
        let response = try client.sendAndWait(request)
        report.print(response.attempts, sharedStateLocal: response.sharedStateLocal)
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
        return writeResult(output, anyway: anyway) ? ExitStatus.success : ExitStatus.failed
    } catch {
        report.print(error.attempts, sharedStateLocal: error.sharedStateLocal)
        report.console.clearStatus()
        if reportRefusedRequest(error) { return ExitStatus.usage }
        _ = writeResult(Array(summary(of: error).serialized(pretty: true).utf8), anyway: anyway)
        return ExitStatus.failed
    }
}

/// Follows the route's pagination: one compact JSON line a page (JSON Lines), and a failed
/// page's error line last, through ``writeResult(_:anyway:)``. Returns the exit status: 1
/// for a failed page, or a line kept off the terminal (no later page is fetched); 2 when the
/// core refused to build the first page's request (``reportRefusedRequest(_:)``: a later page's URL
/// comes from the server, not the command line).
private func printPages(_ request: Request, client: Client, report: AttemptReport, anyway: Bool) -> Int32 {
    var pages = 0
    do {
        let paginator = try client.paginator(request)
        while let page = try paginator.next() {
            pages += 1
            report.print(page.attempts, sharedStateLocal: page.sharedStateLocal)
            report.console.clearStatus()
            let line = (page.mapped ?? page.body ?? JSONValue.string(page.http.text)).serialized()
            guard writeResult(Array(line.utf8), anyway: anyway) else { return ExitStatus.failed }
        }
        return ExitStatus.success
    } catch {
        report.print(error.attempts, sharedStateLocal: error.sharedStateLocal)
        report.console.clearStatus()
        if pages == 0, reportRefusedRequest(error) { return ExitStatus.usage }
        _ = writeResult(Array(summary(of: error).serialized().utf8), anyway: anyway)
        return ExitStatus.failed
    }
}

/// When `error` is the core refusing to build the request the command line describes (kind
/// `invalid_argument` before any attempt: a missing route parameter, a --file that cannot be
/// read, a dot segment, another origin's URL, a body the method cannot have), prints it as
/// the usage error it is ("gatewire: why" on stderr, not a failed call's JSON: nothing was
/// sent) and returns true; returns false for any other failure, printing nothing.
func reportRefusedRequest(_ error: GatewireError) -> Bool {
    guard error.kind == .invalidArgument, error.attempts.isEmpty else { return false }
    printError("gatewire: \(error.message)")
    return true
}

/// The error as JSON without its attempt history, which --verbose shows one line an attempt:
/// only their count.
func summary(of error: GatewireError) -> JSONValue {
    let summary = error.json
    summary.set("attempts", .integer(Int64(error.attempts.count)))
    return summary
}
