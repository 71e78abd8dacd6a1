import Gatewire
import Glibc

/// `gatewire`: runs calls through a gateway config and checks configs.
///
///     gatewire call --config FILE (ROUTE | METHOD PATH) [--param k=v]... [--header 'N: v']...
///                   [--body JSON] [--object-type TYPE] [--max-retries N] [--deadline S]
///                   [--base-url URL] [--user NAME:PASSWORD] [--verbose] [--all-pages]
///     gatewire check CONFIG
///
/// `call` prints the mapped result as JSON on stdout (the raw body when nothing was mapped)
/// and exits 0; a failed call prints the error as JSON on stdout and exits 1. `--verbose`
/// prints every attempt (status or error, time, delay, decision) and every failure the
/// client's global failure observer saw on stderr. Usage errors exit 2.
///
/// `--all-pages` walks the route's `pagination` (issue 3) and prints one line per page: the
/// page's mapped result (or raw JSON body) as compact JSON (JSON Lines); a failed page prints
/// the error as one JSON line and exits 1.

let usage = """
    usage: gatewire call --config FILE (ROUTE | METHOD PATH) [--param k=v]... [--header 'Name: value']...
                         [--body JSON] [--object-type TYPE] [--max-retries N] [--deadline SECONDS]
                         [--base-url URL] [--user NAME:PASSWORD] [--verbose] [--all-pages]
             --all-pages follows the route's pagination: one compact JSON line per page.
             --base-url replaces the config's baseURL; --user replaces its auth with HTTP Basic.
           gatewire check CONFIG
    """

/// Writes a line to stderr (unbuffered: verbose lines and observer reports interleave in order).
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
    guard arguments.count == 1, let path = arguments.first else { fail(usage) }
    do {
        let config = try GatewayConfig(contentsOfFile: path)
        for warning in config.warnings { printLine("warning: \(warning)") }
        printLine("\(path): OK (\(config.routes.count) routes, \(config.catalog.mappings.count) mappings, "
            + "\(config.catalog.responseDescriptors.count) response descriptors)")
        exit(0)
    } catch {
        printLine("\(path): error: \(error)")
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
            headers.set(String(line[..<colon]), String(line[line.index(after: colon)...].drop { $0 == " " }))
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
        case "--help", "-h": printLine(usage); exit(0)
        default:
            if argument.hasPrefix("--") { fail("unknown option \(argument)\n\(usage)") }
            positional.append(argument)
        }
    }
    guard let configPath else { fail("--config FILE is required\n\(usage)") }
    var config: GatewayConfig
    do {
        config = try GatewayConfig(contentsOfFile: configPath)
    } catch {
        fail("\(configPath): \(error)", code: 1)
    }
    if let baseURL { config.baseURL = baseURL }
    if let user {
        guard let colon = user.firstIndex(of: ":") else { fail("--user expects NAME:PASSWORD") }
        config.authentication = .basic(username: String(user[..<colon]), password: String(user[user.index(after: colon)...]))
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
    client.addFailureObserver { error in
        // The global failure observer: once per failed call, before the call's own handler.
        printError("observer: call failed: kind=\(error.kind) status=\(error.status) \(error.method) \(error.path)")
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
default: fail(usage)
}
