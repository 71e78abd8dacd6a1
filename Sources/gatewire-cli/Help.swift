import Gatewire

/// The help texts: `gatewire --help` (the commands, the exit statuses and the error format),
/// each command's own (`gatewire call --help`, `gatewire help check`), and the usage lines a
/// usage error prints, each command's own. The ranges of numbers come from the core's
/// ``CallLimits``, so the help says what the options accept.
enum Help {
    static let callUsage = "usage: gatewire call [--config FILE] [--base-url URL] (ROUTE | METHOD PATH) [options]"
    static let checkUsage = "usage: gatewire check [--no-load-plugins] CONFIG"
    static let importUsage = "usage: gatewire import openapi DOCUMENT [--server N] [--out FILE] [--report FILE]"

    /// `gatewire state`'s usage line.
    static let stateUsage = "usage: gatewire state --config FILE"

    /// Every command's usage: what `gatewire` alone and an unknown command print.
    static let usage = """
        usage: gatewire call [--config FILE] [--base-url URL] (ROUTE | METHOD PATH) [options]
               gatewire check [--no-load-plugins] CONFIG
               gatewire state --config FILE
               gatewire import openapi DOCUMENT [--server N] [--out FILE] [--report FILE]
               gatewire help [call | check | state | import]
               gatewire --version | --help
        """

    /// `gatewire --help`, `gatewire help`.
    static let overview = usage + """


        commands:
          call     sends one call through a gateway config (or to a URL) and prints the result
          check    validates a gateway config
          state    prints the circuit breakers, rate limits and pauses a sharedState store holds
          import   makes a gateway config from an OpenAPI 3.0 or 3.1 document
          help     a command's options: gatewire help call, gatewire help check,
                   gatewire help state, gatewire help import (or gatewire COMMAND --help)

        exit status (one per class, the same for every command):
          0  done: the call succeeded; check: the config is valid; import: the config is made
          1  the call failed (it was made: an attempt failed, the retries ran out, the circuit
             breaker refused it, a plugin failed it): the error as JSON ({"kind", "status",
             "message", "error_objects", "attempts"}) on stdout, or on stderr with
             --output FILE (stdout is the body's there); check: the config is invalid,
             "CONFIG: error: FIELD: why" on stderr; import: the document cannot be imported,
             "DOCUMENT: why" or "DOCUMENT#/json/pointer: why" on stderr
          2  the command line, or a file it names, is wrong, and nothing was sent: an unknown
             command or option, a missing or bad value, a --config that does not load, a file
             of --file or --data-binary @FILE that cannot be read, a route parameter that is
             missing, an --output folder that does not exist, a request the core refuses to
             build (its invalid_argument before anything is sent). "gatewire: why" on stderr,
             always text, followed by the command's usage when the command line's shape is wrong
        """

    /// `gatewire call --help`, `gatewire help call`.
    static let call = callUsage + """


        Sends one call through a gateway config and prints the result.
          ROUTE                   a route name of the config (its method and path pattern)
          METHOD PATH             e.g. GET /users/:id (PATH is relative to the base URL), or an
                                  absolute URL on the base URL's origin (another origin is
                                  refused). Without --config and --base-url, an absolute URL
                                  is enough: its origin is the base URL, as curl takes a URL
                                  (gatewire call GET http://127.0.0.1:8080/get)
          --config FILE           the gateway config (JSON); optional when --base-url is given
          --base-url URL          replaces the config's baseURL
          --param k=v             fills the path's :k segment, else adds k=v to the query
                                  (repeatable; a name given twice is a list, written in the
                                  config's "arrayParameters" style: k=1&k=2 by default)
          --header 'Name: value'  an extra request header (repeatable); the name must be a token, not
                                  a framing field (Content-Length, Connection...), and the value
                                  free of control characters but HTAB (RFC 9110 sections 5.1, 5.5)
          --body JSON             the request body; mapped by the request descriptor of the route's
                                  objectType or of --object-type, else sent as is
          --object-type TYPE      the object type whose request descriptor maps --body
          --data k=v              a form field (repeatable, in order): the body is
                                  application/x-www-form-urlencoded (space "+", every byte outside
                                  RFC 3986's unreserved set %XX)
          --data-binary @FILE     the body is FILE's bytes as they are (or the text itself without
                                  the @), with --content-type TYPE (default application/octet-stream;
                                  a --header 'Content-Type: ...' wins). One of --body, --data,
                                  --data-binary and --form/--file
          --form k=v              a multipart/form-data text field (repeatable, in order with --file;
                                  the value is text even when it starts with @ or <)
          --file field=@PATH[;type=TYPE][;filename=NAME]
                                  a multipart/form-data file part, streamed from disk (curl's -F
                                  syntax); filename default PATH's last component, type default
                                  guessed from its extension. With --body of an object type, the
                                  object's mapped fields come first. A file that cannot be read
                                  is a usage error (exit 2) before anything is sent
          --user NAME:PASSWORD    HTTP Basic credentials instead of the config's auth
          --max-retries N         retries after the first attempt, \(Help.range(CallLimits.maxRetries)) (replaces only
                                  maxRetries of the route's retry policy, else the config's; -1 keeps it)
          --traceparent VALUE     the caller's W3C trace context (00-TRACEID-SPANID-FLAGS): the call
                                  joins that trace; with the config's telemetry each attempt sends
                                  a traceparent of its own span under it, else this one as given
          --timeout SECONDS       the whole call's time limit: every attempt, redirect and retry
                                  wait included, \(Help.range(CallLimits.duration)) seconds (fractions allowed;
                                  0: the config's timeouts.deadline, default none). When it passes,
                                  the call fails with kind deadline. Also -m and --max-time (curl's
                                  whole-operation limit) and --deadline. Each attempt is still
                                  limited by the config's timeouts.attempt (default 30 s):
                                  --attempt-timeout changes that
          --attempt-timeout SECONDS
                                  one attempt's time limit, connecting, sending, waiting and
                                  receiving included (its redirects too), \(Help.range(CallLimits.duration))
                                  seconds (0: the config's timeouts.attempt); a slower attempt fails
                                  with kind timeout, which the retry policy may retry (httpie's
                                  --timeout limits each read instead)
          --redirects WHICH       none, same-origin or any (default: the config's "redirects",
                                  else any): which redirects to follow. Credentials (Authorization,
                                  Cookie, auth plugins' headers) and secret query parameters are
                                  dropped on a change of scheme, host or port; https to http and
                                  a body re-sent to another origin are refused (kind redirect)
          --max-redirects N       hops followed at most, \(Help.range(CallLimits.maxRedirects)) (default: the config's, else 10)
          --max-response-bytes N  the largest decoded response body accepted, in bytes (default:
                                  the route's, else the config's maxResponseBytes, else 64 MiB);
                                  a larger one aborts the transfer: kind response_too_large
          --cookie-jar FILE       keep cookies in FILE (Netscape format, as curl's -b FILE -c FILE):
                                  loaded before the call, written back after it (a new mode-0600
                                  file renamed onto FILE; a FILE that is a symbolic link is refused);
                                  replaces the config's "cookies". libcurl's rules decide which
                                  cookie goes where
          --cache-dir DIR         the HTTP cache (RFC 9111) in the folder DIR, kept across runs:
                                  a fresh stored response is served without a request, a stale one
                                  with a validator is revalidated (docs/http-cache.md). As the
                                  config's "cache": {"directory": DIR} (its maxBytes kept): DIR is
                                  made 0700 when missing; an existing one must be this user's and
                                  writable by no one else. There is no memory-cache option: one
                                  call could never be served from it
          --verbose, -v           on stderr, as they happen: each attempt's request ("> GET /x
                                  HTTP/1.1", "> Host: ...", "> Name: value": the header fields
                                  Gatewire sends; libcurl adds Content-Length, Accept-Encoding and
                                  the jar's cookies as it writes the request) and response
                                  ("< HTTP/1.1 200", "< Name: value"; each redirect hop's request,
                                  the last hop's response), secret values redacted as in every log
                                  (Authorization, Cookie, API keys, the config's "redactHeaders");
                                  then its line (status or error, time, delay, why it retried or
                                  stopped, the redirects it followed), what the global failure
                                  observer saw, "cache: hit" or "cache: revalidated" when the
                                  cache answered, and "shared state: decided in process" when
                                  the "sharedState" store failed and the call's circuit breaker
                                  or rate limit counted this client's calls only (the store's
                                  loss and return are log lines on stderr, verbose or not). On
                                  a terminal, a backoff wait is counted down once a second. An
                                  https request line has no version: libcurl picks HTTP/1.1 or
                                  HTTP/2 with the server (the response line says which)
          --output FILE, -o FILE  write a 2xx body to FILE (through a temporary file renamed on
                                  success; a retry resumes a partial body with Range when the
                                  server gave a validator); the summary or error goes to stderr.
                                  FILE's folder must exist. --output - writes the result to
                                  stdout even on a terminal
          --all-pages             follow the route's pagination: one compact JSON line per page
                                  (JSON Lines); a failed page prints its error line and exits 1.
                                  Needs a ROUTE (a config route's "pagination"), not METHOD PATH.
                                  On a terminal, stderr shows the page being fetched
          When stderr is a terminal, an attempt whose transfer takes longer than 0.5 s draws a
          progress bar there (size, rate, ETA), which ends with the final size.

        Output and exit status:
          0  the mapped result as JSON on stdout (when no descriptor matched, the body:
             re-indented when it parses as JSON, else its bytes as received)
          1  the call failed: the error as JSON on stdout (kind, status, message, error objects,
             attempts; stderr with --output FILE)
          2  a usage error, nothing sent: "gatewire: why" on stderr (an option, a file it names,
             a --config that does not load, a route parameter that is missing, a request the
             core refuses to build)
          On a terminal, a result that is not UTF-8 text or has a control character other than
          tab, line feed and carriage return (an escape sequence can clear the screen or retitle
          the window) is not written: stderr says so, exit 1; use --output FILE, or --output -
          to write it anyway. Piped or redirected, the result is written as it is.
        """

    /// `gatewire check --help`, `gatewire help check`.
    /// `gatewire state --help`, `gatewire help state`.
    static let state = stateUsage + """


        Prints what the config's "sharedState" Redis holds under its keyPrefix, whichever
        process wrote it (of a "redisCluster": every primary's keys): one JSON object a line,
        sorted by key, times in seconds (to the millisecond) from Redis's clock. {"type": "circuit_breaker", "host", "policy", "state": "closed", "outcomes",
        "failures"} or "state": "open", "for" (until the break ends) or "half_open", "trial";
        {"type": "rate_limit", "scope", "name", "policy", "ahead"} (how far the limit is
        booked ahead: 0 = a whole burst is free); {"type": "pause", "scope", "name", "policy",
        "for"}. Exit 0; 1 when the config has no sharedState, or Redis (a primary of the
        cluster) does not answer within its timeout ("gatewire: why" on stderr); 2 for a usage error.
          --config FILE           the gateway config (JSON)
        """

    static let check = checkUsage + """


        Validates a gateway config: prints its warnings (e.g. ambiguous descriptors, a retry
        maxDelay below its initialDelay, verifyTLS false) and "CONFIG: OK (...)" on stdout, exit 0;
        or on stderr "CONFIG: error: FIELD: why" (without FIELD when the whole file is wrong, or
        cannot be read), exit 1. A usage error exits 2.
          --no-load-plugins       do not open the config's shared-object plugins
        It loads the config's shared-object plugins (each "plugins" entry with a "path") and
        calls their entries, as call does: that runs the objects' code. To check a config you
        do not trust, give --no-load-plugins: everything else is checked, and each shared
        object is listed by its path (it must be a readable file) without being opened.
        """

    /// `gatewire import --help`, `gatewire help import`.
    static let importCommand = importUsage + """


        Makes a gateway config from an OpenAPI 3.0 or 3.1 document (JSON or YAML; $refs to
        other local files are read relative to it): baseURL from its servers, a route per
        operation, mappings from its schemas, response and error descriptors from its
        responses. The config goes to stdout, its keys sorted: the same document always gives
        the same bytes. What the config cannot express goes to stderr as JSON Lines, one
        {"pointer": JSON pointer into the document, "reason": code, "message"} per place; the
        rules and codes are in docs/openapi.md. Exit 0 when the config is made (whatever the
        report says), 1 when the document cannot be imported (not OpenAPI, a dangling or
        cyclic $ref, a cyclic allOf, invalid JSON or YAML: "DOCUMENT#/pointer: why" or
        "DOCUMENT: line L, column C: why" on stderr), 2 for a usage error or an --out or
        --report file that cannot be written.
          --server N              the index of the servers entry that gives baseURL (default 0)
          --out FILE              write the config to FILE instead of stdout
          --report FILE           write the report to FILE instead of stderr
        """

    /// `lower...upper` as the help writes a range: `0...100`, `0.001...86400`.
    static func range(_ range: ClosedRange<Int64>) -> String { "\(range.lowerBound)...\(range.upperBound)" }

    /// `0.001...86400` (a whole bound without its `.0`).
    static func range(_ range: ClosedRange<Double>) -> String { "\(number(range.lowerBound))...\(number(range.upperBound))" }

    private static func number(_ value: Double) -> String {
        value == value.rounded() ? String(Int64(value)) : String(value)
    }
}
