import Gatewire
import GatewireC
import Glibc
import Synchronization

/// `gatewire`: runs calls through a gateway config and checks configs. `gatewire --help`
/// prints the options (the `help` text below is the reference).

let usage = """
    usage: gatewire call [--config FILE] [--base-url URL] (ROUTE | METHOD PATH) [options]
           gatewire check CONFIG
           gatewire --version | --help
    """

let help = usage + """

    gatewire call: sends one call through a gateway config and prints the result.
      ROUTE                   a route name of the config (its method and path pattern)
      METHOD PATH             e.g. GET /users/:id (PATH is relative to the base URL)
      --config FILE           the gateway config (JSON); optional when --base-url is given
      --base-url URL          replaces the config's baseURL
      --param k=v             fills the path's :k segment, else adds k=v to the query (repeatable)
      --header 'Name: value'  an extra request header (repeatable); the name must be a token, not
                              a framing field (Content-Length, Connection...), and the value
                              free of control characters but HTAB (RFC 9110 sections 5.1, 5.5)
      --body JSON             the request body; mapped by the request descriptor of the route's
                              objectType or of --object-type, else sent as is
      --object-type TYPE      the object type whose request descriptor maps --body
      --user NAME:PASSWORD    HTTP Basic credentials instead of the config's auth
      --max-retries N         retries after the first attempt (replaces only maxRetries of the
                              route's retry policy, else the config's)
      --deadline SECONDS      overall time limit of the call, retries included
      --redirects WHICH       none, same-origin or any (default: the config's "redirects",
                              else any): which redirects to follow. Credentials (Authorization,
                              Cookie, auth plugins' headers) and secret query parameters are
                              dropped on a change of scheme, host or port; https to http and
                              a body re-sent to another origin are refused (kind redirect)
      --max-redirects N       hops followed at most, 0...50 (default: the config's, else 10)
      --max-response-bytes N  the largest decoded response body accepted, in bytes (default:
                              the route's, else the config's maxResponseBytes, else 64 MiB);
                              a larger one aborts the transfer: kind response_too_large
      --verbose, -v           on stderr: every attempt (status or error, time, delay, why it
                              retried or stopped, the redirects it followed) and what the
                              global failure observer saw
      --all-pages             follow the route's pagination: one compact JSON line per page
                              (JSON Lines); a failed page prints its error line and exits 1.
                              Needs a ROUTE (a config route's "pagination"), not METHOD PATH
      Prints the mapped result as JSON (when no descriptor matched, the body: re-indented
      when it parses as JSON, else as received), exit 0;
      a failed call prints the error as JSON (kind, status, message, error objects), exit 1.

    gatewire check CONFIG: validates a gateway config; prints warnings (e.g. ambiguous
      descriptors, a retry maxDelay below its initialDelay, verifyTLS false) and OK with
      exit 0, or on stderr "CONFIG: error: FIELD: why" (without FIELD when the whole file is
      wrong), exit 1.

    Usage errors exit 2.
    """

func printError(_ text: String) {
    var line = text + "\n"
    line.withUTF8 { _ = write(STDERR_FILENO, $0.baseAddress, $0.count) }
}

func fail(_ message: String, code: Int32 = 2) -> Never {
    printError("gatewire: \(message)")
    exit(code)
}

/// Writes a line to stdout and flushes it.
func printLine(_ text: String) {
    print(text)
    fflush(nil)
}

/// "1 route", "2 routes": `count` and `noun`, plural unless `count` is 1.
func counted(_ count: Int, _ noun: String) -> String {
    "\(count) \(noun)\(count == 1 ? "" : "s")"
}

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
        _ = try PluginRegistry.selfContained.plugins(for: config.plugins)  // loads shared objects as `call` would
        for warning in config.warnings { printLine("warning: \(warning)") }
        printLine("\(path): OK (\(counted(config.routes.count, "route")), \(counted(config.catalog.mappings.count, "mapping")), "
            + "\(counted(config.catalog.responseDescriptors.count, "response descriptor")))")
        exit(0)
    } catch {
        printError(configErrorLine(error, file: path))
        exit(1)
    }
}

/// The lines the failure observer wrote (on the client's loop thread) until the call's
/// attempts are printed (on the main thread).
final class ObserverLines: Sendable {
    private let lines = Mutex<[String]>([])

    func add(_ line: String) { lines.withLock { $0.append(line) } }

    /// The lines added so far, oldest first; empties the list.
    func take() -> [String] { lines.withLock { lines in defer { lines = [] }; return lines } }
}

func describe(_ attempt: Attempt) -> String {
    let outcome = attempt.errorKind.map { "\($0) (\(attempt.message ?? "curl \(attempt.curlCode)"))" } ?? "status \(attempt.status)"
    var line = "attempt \(attempt.number): \(outcome) after \(seconds(attempt.duration))"
    if !attempt.redirects.isEmpty {
        line += "; followed " + attempt.redirects.map { "\($0.status) to \($0.url)" }.joined(separator: ", ")
    }
    if let delay = attempt.delayAfter {
        line += "; retrying in \(seconds(delay)) (\(attempt.decision))"
    } else if !attempt.decision.isEmpty {
        line += "; stopping (\(attempt.decision))"
    }
    return line
}

func seconds(_ value: Double) -> String {
    let millis = Int((value * 1000).rounded())
    return "\(millis / 1000).\(String(repeating: "0", count: 3 - String(millis % 1000).count))\(millis % 1000)s"
}

func call(_ arguments: ArraySlice<String>) -> Never {
    var configPath: String?
    var positional: [String] = []
    var parameters: [String: String] = [:]
    var headers = HTTPHeaders()
    var body: String?
    var objectType: String?
    var maxRetries: Int?
    var deadline: Double?
    var follow: RedirectPolicy.Follow?
    var maxRedirects: Int?
    var maxResponseBytes: Int?
    var verbose = false
    var baseURL: String?
    var user: String?
    var allPages = false
    var rest = arguments
    func value(_ flag: String) -> String {
        guard let next = rest.popFirst() else { fail("\(flag) needs a value\n\(usage)") }
        return next
    }
    while let argument = rest.popFirst() {
        switch argument {
        case "--config": configPath = value(argument)
        case "--param":
            let pair = value(argument)
            guard let equals = pair.firstIndex(of: "=") else { fail("--param expects k=v, got \"\(pair)\"") }
            parameters[String(pair[..<equals])] = String(pair[pair.index(after: equals)...])
        case "--header":
            let line = value(argument)
            guard let colon = line.firstIndex(of: ":") else { fail("--header expects 'Name: value', got \"\(line)\"") }
            let (name, text) = (String(line[..<colon]), String(line[line.index(after: colon)...].drop { $0 == " " }))
            headers.set(name, text)
            if let problem = headers.problem { fail("--header: \(problem)") }  // this field's: the others passed
        case "--body": body = value(argument)
        case "--object-type": objectType = value(argument)
        case "--max-retries":
            guard let count = Int(value(argument)), count >= 0 else { fail("--max-retries expects a count >= 0") }
            maxRetries = count
        case "--deadline":
            guard let limit = Double(value(argument)), limit > 0 else { fail("--deadline expects seconds > 0") }
            deadline = limit
        case "--redirects":
            let words: [String: RedirectPolicy.Follow] = ["none": .none, "same-origin": .sameOrigin, "any": .any]
            let word = value(argument)
            guard let which = words[word] else { fail("--redirects expects none, same-origin or any, got \"\(word)\"") }
            follow = which
        case "--max-redirects":
            let text = value(argument)
            guard let count = Int(text), RedirectPolicy.maxRedirectsRange.contains(Int64(count)) else {
                fail("--max-redirects expects a count in 0...50, got \"\(text)\"")
            }
            maxRedirects = count
        case "--max-response-bytes":
            guard let limit = Int64(value(argument)), ResponseSizeLimit.range.contains(limit) else {
                fail("--max-response-bytes expects bytes in \(ResponseSizeLimit.range.lowerBound)...\(ResponseSizeLimit.range.upperBound)")
            }
            maxResponseBytes = Int(limit)
        case "--base-url": baseURL = value(argument)
        case "--user": user = value(argument)
        case "--verbose", "-v": verbose = true
        case "--all-pages": allPages = true
        case "--help", "-h": printLine(help); exit(0)
        default:
            if argument.hasPrefix("--") { fail("unknown option \(argument)\n\(usage)") }
            positional.append(argument)
        }
    }
    let source: GatewayConfig.Source
    do {
        source = try GatewayConfig.Source(json: nil, file: configPath, baseURL: baseURL)
    } catch {
        fail("give --config FILE or --base-url URL\n\(usage)")  // `missing`: the CLI has no JSON text
    }
    var config: GatewayConfig
    do {
        config = try source.load()
    } catch {
        fail(error.path.isEmpty ? error.message : "\(configPath ?? "--base-url"): \(error)", code: 1)
    }
    if let user {
        guard let colon = user.firstIndex(of: ":") else { fail("--user expects NAME:PASSWORD") }
        let (name, password) = (String(user[..<colon]), String(user[user.index(after: colon)...]))
        if let problem = Authentication.usernameProblem(name) ?? Authentication.passwordProblem(password) {
            fail("--user: \(problem)")
        }
        config.authentication = .basic(username: name, password: password)
    }

    var request: Request
    switch positional.count {
    case 1 where config.routes[positional[0]] == nil && HTTPMethod(name: positional[0]) != nil:
        fail("missing PATH after \(positional[0]) (METHOD PATH, e.g. \(positional[0]) /users/:id)\n\(usage)")
    case 1:
        request = Request(route: positional[0], parameters: parameters, headers: headers)
    case 2:
        guard let method = HTTPMethod(name: positional[0]) else { fail("unknown HTTP method \"\(positional[0])\"") }
        if allPages { fail("--all-pages needs a ROUTE whose config entry has a \"pagination\", not METHOD PATH\n\(usage)") }
        request = Request(method, positional[1], parameters: parameters, headers: headers)
    default:
        fail("expected ROUTE or METHOD PATH\n\(usage)")
    }
    if let body {
        do {
            let value = try JSONValue.parse(body)
            request.body = config.requestBody(value, objectType: objectType, forRoute: request.route)
        } catch {
            fail("--body: \(error)")
        }
    }
    request.options.maxRetries = maxRetries  // the route's policy (else the config's) keeps its other fields
    if follow != nil || maxRedirects != nil {
        var policy = config.redirectPolicy(forRoute: request.route)
        if let follow { policy.follow = follow }
        if let maxRedirects { policy.maxRedirects = maxRedirects }
        request.options.redirectPolicy = policy
    }
    request.options.maxResponseBytes = maxResponseBytes
    if let deadline {
        var timeouts = config.timeouts
        timeouts.deadline = deadline
        request.options.timeouts = timeouts
    }

    if let warning = config.insecureTLSWarning { printError("gatewire: warning: \(warning)") }
    // The CLI has the core inside: it loads only plugins that reach it through gw_plugin_api.
    let client: Client
    do throws(ConfigError) {
        client = try Client(config: config, plugins: [], registry: .selfContained, randomSeed: nil)
    } catch {
        fail("\(configPath ?? "--base-url"): \(error)", code: 1)
    }
    defer { client.close() }
    let observed = ObserverLines()
    if verbose {
        client.addFailureObserver { error in
            // The global failure observer: once per failed call, before the call's own handler;
            // its line is printed after the call's attempts, so --verbose reads in order.
            observed.add("observer: call failed: kind=\(error.kind) status=\(error.status) \(error.method) \(error.path)")
        }
    }
    /// On stderr (--verbose): the attempts of one call, then what the observer saw of it.
    func report(_ attempts: [Attempt]) {
        guard verbose else { return }
        for attempt in attempts { printError(describe(attempt)) }
        for line in observed.take() { printError(line) }
    }
    if allPages {
        do {
            let paginator = try client.paginator(request)
            while let page = try paginator.next() {
                report(page.attempts)
                if let mapped = page.mapped {
                    printLine(mapped.serialized())
                } else if let body = page.body {
                    printLine(body.serialized())
                } else {
                    printLine(JSONValue.string(page.http.text).serialized())
                }
            }
            client.close()
            exit(0)
        } catch {
            report(error.attempts)
            let summary = error.json
            summary.set("attempts", .integer(Int64(error.attempts.count)))
            printLine(summary.serialized())
            client.close()
            exit(1)
        }
    }
    do {
        let response = try client.sendAndWait(request)
        report(response.attempts)
        if let mapped = response.mapped {
            printLine(mapped.serialized(pretty: true))
        } else if let json = try? JSONValue.parse(response.http.text) {
            printLine(json.serialized(pretty: true))
        } else {
            printLine(response.http.text)
        }
        client.close()
        exit(0)
    } catch {
        report(error.attempts)
        // The error without its attempt history (--verbose shows that, one line an attempt).
        let summary = error.json
        summary.set("attempts", .integer(Int64(error.attempts.count)))
        printLine(summary.serialized(pretty: true))
        client.close()
        exit(1)
    }
}

var arguments = CommandLine.arguments.dropFirst()
switch arguments.popFirst() {
case "call": call(arguments)
case "check": check(arguments)
case "--version": printLine("gatewire \(Version.string)"); exit(0)
case "--help", "-h", "help": printLine(help); exit(0)
case nil: fail(usage)
case let command?: fail("unknown command \"\(command)\"\n\(usage)")
}
