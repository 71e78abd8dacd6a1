import Gatewire
import Glibc

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
      --header 'Name: value'  an extra request header (repeatable); the name must be a token and
                              the value free of CR, LF and NUL (RFC 9110 sections 5.1, 5.5)
      --body JSON             the request body; mapped by the request descriptor of the route's
                              objectType or of --object-type, else sent as is
      --object-type TYPE      the object type whose request descriptor maps --body
      --user NAME:PASSWORD    HTTP Basic credentials instead of the config's auth
      --max-retries N         retries after the first attempt (overrides the config's policy)
      --deadline SECONDS      overall time limit of the call, retries included
      --verbose, -v           on stderr: every attempt (status or error, time, delay, why it
                              retried or stopped) and what the global failure observer saw
      --all-pages             follow the route's pagination: one compact JSON line per page
                              (JSON Lines); a failed page prints its error line and exits 1
      Prints the mapped result as JSON (the raw body when no descriptor matched), exit 0;
      a failed call prints the error as JSON (kind, status, message, error objects), exit 1.

    gatewire check CONFIG: validates a gateway config; prints warnings (e.g. ambiguous
      descriptors, a retry maxDelay below its initialDelay) and OK with exit 0, or the field
      that is wrong and why on stderr, exit 1.

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

func check(_ arguments: ArraySlice<String>) -> Never {
    if arguments.first == "--help" || arguments.first == "-h" { printLine(help); exit(0) }
    guard arguments.count == 1, let path = arguments.first else { fail(usage) }
    do {
        let config = try GatewayConfig(contentsOfFile: path)
        for warning in config.warnings { printLine("warning: \(warning)") }
        printLine("\(path): OK (\(config.routes.count) routes, \(config.catalog.mappings.count) mappings, "
            + "\(config.catalog.responseDescriptors.count) response descriptors)")
        exit(0)
    } catch {
        printError(error.path.isEmpty ? "error: \(error.message)" : "\(path): error: \(error)")
        exit(1)
    }
}

func describe(_ attempt: Attempt) -> String {
    let outcome = attempt.errorKind.map { "\($0) (\(attempt.message ?? "curl \(attempt.curlCode)"))" } ?? "status \(attempt.status)"
    var line = "attempt \(attempt.number): \(outcome) after \(seconds(attempt.duration))"
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
            if let problem = HTTPHeaders.fieldProblem(name: name, value: text) { fail("--header: \(problem)") }
            headers.set(name, text)
        case "--body": body = value(argument)
        case "--object-type": objectType = value(argument)
        case "--max-retries":
            guard let count = Int(value(argument)), count >= 0 else { fail("--max-retries expects a count >= 0") }
            maxRetries = count
        case "--deadline":
            guard let limit = Double(value(argument)), limit > 0 else { fail("--deadline expects seconds > 0") }
            deadline = limit
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
    var config: GatewayConfig
    do throws(ConfigError) {
        if let configPath {
            config = try GatewayConfig(contentsOfFile: configPath)
            if let baseURL { try config.replaceBaseURL(with: baseURL) }
        } else if let baseURL {
            config = try GatewayConfig(baseURL: baseURL)
        } else {
            fail("give --config FILE or --base-url URL\n\(usage)")
        }
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
    case 1:
        request = Request(route: positional[0], parameters: parameters, headers: headers)
    case 2:
        guard let method = HTTPMethod(name: positional[0]) else { fail("unknown HTTP method \"\(positional[0])\"") }
        request = Request(method, positional[1], parameters: parameters, headers: headers)
    default:
        fail("expected ROUTE or METHOD PATH\n\(usage)")
    }
    if let body {
        do {
            let value = try JSONValue.parse(body)
            let routeType = request.route.flatMap { config.routes[$0]?.objectType }
            request.body = objectType != nil || routeType != nil ? .object(value, type: objectType) : .json(value)
        } catch {
            fail("--body: \(error)")
        }
    }
    if let maxRetries {
        var policy = config.retryPolicy
        policy.maxRetries = maxRetries
        request.options.retryPolicy = policy
    }
    if let deadline {
        var timeouts = config.timeouts
        timeouts.deadline = deadline
        request.options.timeouts = timeouts
    }

    let client = Client(config: config)
    defer { client.close() }
    if verbose {
        client.addFailureObserver { error in
            // The global failure observer: once per failed call, before the call's own handler.
            printError("observer: call failed: kind=\(error.kind) status=\(error.status) \(error.method) \(error.path)")
        }
    }
    if allPages {
        do {
            let paginator = try client.paginator(request)
            while let page = try paginator.next() {
                if verbose { for attempt in page.attempts { printError(describe(attempt)) } }
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
            let summary = error.json
            summary.set("attempts", .integer(Int64(error.attempts.count)))
            printLine(summary.serialized())
            client.close()
            exit(1)
        }
    }
    do {
        let response = try client.sendAndWait(request)
        if verbose { for attempt in response.attempts { printError(describe(attempt)) } }
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
        if verbose { for attempt in error.attempts { printError(describe(attempt)) } }
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
case "--version": printLine("gatewire 0.1.0"); exit(0)
case "--help", "-h", "help": printLine(help); exit(0)
default: fail(usage)
}
