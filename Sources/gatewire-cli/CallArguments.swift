import Gatewire
import Glibc

/// The command line of `gatewire call`, read and checked (Help.swift describes each option).
/// Every problem is a usage error (`fail`, exit 2) naming the option; one in the command
/// line's shape (an unknown option, a missing value or PATH) prints call's usage too.
struct CallArguments {
    var configPath: String?
    var baseURL: String?
    /// ROUTE, or METHOD and PATH.
    var positional: [String] = []
    /// Each --param name's values in order: one fills a `:name` segment or the query, more
    /// are a list (the config's `arrayParameters` style).
    var parameters: [String: [String]] = [:]
    var headers = HTTPHeaders()
    var body: String?
    /// --data's form fields, in order.
    var form: [(name: String, value: String)] = []
    /// --data-binary's bytes (the file's with `@FILE`).
    var binary: [UInt8]?
    var contentType: String?
    /// --form's and --file's multipart parts, in order.
    var parts: [MultipartPart] = []
    var objectType: String?
    var user: String?
    var maxRetries: Int?
    /// --traceparent: the caller's W3C trace context (``CallOptions/traceParent``).
    var traceParent: TraceContext?
    /// --timeout (-m, --max-time, --deadline): the whole call's limit in seconds; nil keeps the config's.
    var deadline: Double?
    /// --attempt-timeout: one attempt's limit in seconds; nil keeps the config's.
    var attemptTimeout: Double?
    /// --cache-dir: the HTTP cache's folder.
    var cacheDirectory: String?
    var follow: RedirectPolicy.Follow?
    var maxRedirects: Int?
    var maxResponseBytes: Int?
    var verbose = false
    var allPages = false
    /// --cookie-jar's file: the jar is loaded from it and written back when the call ends.
    var cookieJar: String?
    /// `--output FILE`: the 2xx body goes to FILE (``BodySink/file(_:resume:maxBytes:)``);
    /// `--output -`, curl's spelling, keeps it on stdout, written even to a terminal.
    var output: String?

    /// The file `--output` names, nil for none or `-` (stdout).
    var outputFile: String? { output == "-" ? nil : output }

    /// Reads `arguments` (what follows `call`); `--help` prints the help and exits 0.
    init(parsing arguments: ArraySlice<String>) {
        var rest = arguments
        func value(_ flag: String) -> String {
            guard let next = rest.popFirst() else { fail("\(flag) needs a value", usage: Help.callUsage) }
            return next
        }
        /// A time limit in seconds: the core's rule and message, as C's and Python's
        /// `deadline` and `attempt_timeout`; 0 keeps the config's (nil).
        func seconds(_ flag: String) -> Double? {
            let text = value(flag)
            guard let limit = Double(text) else { fail("\(flag) expects seconds, got \"\(text)\"") }
            if let problem = CallLimits.timeoutProblem(limit, field: flag) { fail(problem) }
            return limit == 0 ? nil : limit
        }
        while let argument = rest.popFirst() {
            switch argument {
            case "--config": configPath = value(argument)
            case "--base-url": baseURL = value(argument)
            case "--param":
                let pair = value(argument)
                guard let equals = pair.firstIndex(of: "=") else { fail("--param expects k=v, got \"\(pair)\"") }
                parameters[String(pair[..<equals]), default: []].append(String(pair[pair.index(after: equals)...]))
            case "--header":
                let line = value(argument)
                guard let colon = line.firstIndex(of: ":") else { fail("--header expects 'Name: value', got \"\(line)\"") }
                let (name, text) = (String(line[..<colon]), String(line[line.index(after: colon)...].drop { $0 == " " }))
                headers.set(name, text)
                if let problem = headers.problem { fail("--header: \(problem)") }  // this field's: the others passed
            case "--body": body = value(argument)
            case "--data":
                let pair = value(argument)
                guard let equals = pair.firstIndex(of: "=") else { fail("--data expects k=v, got \"\(pair)\"") }
                form.append((String(pair[..<equals]), String(pair[pair.index(after: equals)...])))
            case "--data-binary":
                let text = value(argument)
                binary = text.hasPrefix("@")
                    ? CommandLineFiles.contents(of: String(text.dropFirst()), for: argument) : Array(text.utf8)
            case "--content-type": contentType = value(argument)
            case "--form": parts.append(MultipartArguments.field(value(argument)))
            case "--file": parts.append(MultipartArguments.file(value(argument)))
            case "--object-type": objectType = value(argument)
            case "--user": user = value(argument)
            case "--max-retries":
                // The core's rule and message, as C's and Python's `max_retries`; -1 keeps the count.
                let text = value(argument)
                guard let count = Int64(text) else { fail("--max-retries expects a count, got \"\(text)\"") }
                if let problem = CallLimits.maxRetriesProblem(count, field: argument) { fail(problem) }
                maxRetries = count == -1 ? nil : Int(count)
            case "--traceparent":
                let text = value(argument)
                guard let context = TraceContext(traceparent: text) else {
                    fail("--traceparent expects a W3C traceparent (00-<32 hex trace id>-<16 hex span id>-<2 hex flags>, "
                        + "lower case, ids not all zero), got \"\(text)\"")
                }
                traceParent = context
            case "--timeout", "-m", "--max-time", "--deadline": deadline = seconds(argument)
            case "--attempt-timeout": attemptTimeout = seconds(argument)
            case "--cache-dir": cacheDirectory = value(argument)
            case "--redirects":
                let words: [String: RedirectPolicy.Follow] = ["none": .none, "same-origin": .sameOrigin, "any": .any]
                let word = value(argument)
                guard let which = words[word] else { fail("--redirects expects none, same-origin or any, got \"\(word)\"") }
                follow = which
            case "--max-redirects":
                let text = value(argument)
                let range = CallLimits.maxRedirects
                guard let count = Int(text), range.contains(Int64(count)) else {
                    fail("--max-redirects expects a count in \(range.lowerBound)...\(range.upperBound), got \"\(text)\"")
                }
                maxRedirects = count
            case "--max-response-bytes":
                let range = CallLimits.maxResponseBytes
                guard let limit = Int64(value(argument)), range.contains(limit) else {
                    fail("--max-response-bytes expects bytes in \(range.lowerBound)...\(range.upperBound)")
                }
                maxResponseBytes = Int(limit)
            case "--verbose", "-v": verbose = true
            case "--all-pages": allPages = true
            case "--cookie-jar": cookieJar = value(argument)
            case "--output", "-o": output = value(argument)
            case "--help", "-h": printLine(Help.call); exit(ExitStatus.success)
            default:
                if argument.hasPrefix("-"), argument != "-" { fail("unknown option \(argument)", usage: Help.callUsage) }
                positional.append(argument)
            }
        }
    }

    /// What messages call the config: its file, else the base URL option, else the URL PATH
    /// whose origin is the base URL.
    var configName: String { configPath ?? (baseURL != nil ? "--base-url" : "PATH") }

    /// The base URL when neither --config nor --base-url gives one: the origin of a PATH that
    /// is an absolute URL (METHOD URL), as curl needs nothing but the URL. The core then calls
    /// that URL on its own origin.
    var urlOrigin: String? {
        guard configPath == nil, baseURL == nil, positional.count == 2 else { return nil }
        return AbsoluteURL(positional[1])?.origin
    }

    /// The gateway config from --config and/or --base-url (else a URL PATH's origin), with
    /// --user's Basic credentials, --cookie-jar and --cache-dir. Every problem is a usage
    /// error: a missing source, a config that does not load (its error), a bad option value.
    func config() -> GatewayConfig {
        let source: GatewayConfig.Source
        do {
            source = try GatewayConfig.Source(json: nil, file: configPath, baseURL: baseURL ?? urlOrigin)
        } catch {
            // `missing`: the CLI has no JSON text.
            fail("give --config FILE or --base-url URL, or a PATH that is an absolute URL", usage: Help.callUsage)
        }
        var config: GatewayConfig
        do {
            config = try source.load()
        } catch {
            fail(error.path.isEmpty ? error.message : "\(configName): \(error)")
        }
        if let user {
            guard let colon = user.firstIndex(of: ":") else { fail("--user expects NAME:PASSWORD") }
            let (name, password) = (String(user[..<colon]), String(user[user.index(after: colon)...]))
            if let problem = Authentication.usernameProblem(name) ?? Authentication.passwordProblem(password) {
                fail("--user: \(problem)")
            }
            config.authentication = .basic(username: name, password: password)
        }
        if let cookieJar {
            do {
                config.cookies = try CookieJar(commandLineFile: cookieJar)
            } catch {
                fail("--cookie-jar: \(error.message)")
            }
        }
        if let cacheDirectory { config.cache = CommandLineFiles.cache(in: cacheDirectory, keeping: config.cache) }
        return config
    }

    /// The call's request: the route or METHOD PATH, its parameters, headers and body, and the
    /// options that override the route's policies field by field (the core's rule:
    /// `maxRetries` keeps the route's other retry settings, as C and Python do).
    func request(in config: GatewayConfig) -> Request {
        var request: Request
        switch positional.count {
        case 1 where config.routes[positional[0]] == nil && HTTPMethod(name: positional[0]) != nil:
            fail("missing PATH after \(positional[0]) (METHOD PATH, e.g. \(positional[0]) /users/:id)", usage: Help.callUsage)
        case 1:
            request = Request(route: positional[0], headers: headers)
        case 2:
            guard let method = HTTPMethod(name: positional[0]) else { fail("unknown HTTP method \"\(positional[0])\"") }
            if allPages {
                fail("--all-pages needs a ROUTE whose config entry has a \"pagination\", not METHOD PATH", usage: Help.callUsage)
            }
            request = Request(method, positional[1], headers: headers)
        default:
            fail("expected ROUTE or METHOD PATH", usage: Help.callUsage)
        }
        for (name, values) in parameters {
            if values.count == 1 { request.parameters[name] = values[0] } else { request.listParameters[name] = values }
        }
        let bodies = [("--body", body != nil && parts.isEmpty), ("--data", !form.isEmpty), ("--data-binary", binary != nil),
                      ("--form/--file", !parts.isEmpty)].filter(\.1).map(\.0)
        if let problem = Request.oneBodyProblem(bodies) { fail(problem) }
        if contentType != nil, binary == nil { fail("--content-type goes with --data-binary") }
        if !form.isEmpty { request.body = .form(form) }
        if let binary { request.body = .bytes(binary, contentType: contentType ?? "application/octet-stream") }
        if let body {
            do {
                let value = try JSONValue.parse(body)
                request.body = config.requestBody(value, objectType: objectType, forRoute: request.route)
            } catch {
                fail("--body: \(error)")
            }
        }
        if !parts.isEmpty {
            switch request.body {
            case nil: request.body = .multipart(parts)
            case .object(let value, let type): request.body = .multipart(parts, object: value, type: type)
            default: fail("--form/--file go with --body only for an object (--object-type or the route's objectType)")
            }
        }
        request.options.maxRetries = maxRetries
        request.options.traceParent = traceParent
        if follow != nil || maxRedirects != nil {
            var policy = config.redirectPolicy(forRoute: request.route)
            if let follow { policy.follow = follow }
            if let maxRedirects { policy.maxRedirects = maxRedirects }
            request.options.redirectPolicy = policy
        }
        request.options.maxResponseBytes = maxResponseBytes
        if let outputFile {
            if allPages { fail("--output writes one body: not with --all-pages") }
            CommandLineFiles.checkFolder(of: outputFile)
            request.options.bodySink = .file(outputFile)
        }
        if deadline != nil || attemptTimeout != nil {
            // Each option replaces only the limit it names (the call's timeouts replace the
            // config's whole).
            var timeouts = config.timeouts
            if let deadline { timeouts.deadline = deadline }
            if let attemptTimeout { timeouts.attempt = attemptTimeout }
            request.options.timeouts = timeouts
        }
        return request
    }
}
