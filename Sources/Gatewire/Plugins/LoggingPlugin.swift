/// Logs every attempt's request (after every `prepare`, so it shows what goes on the wire),
/// every attempt's outcome with its time, and each call's final result, one line each, to a
/// sink (default: stderr). Secrets never reach the sink: the client's ``Redactor`` (userinfo
/// removed; credential headers, a call's own `X-Api-Key` too, and key-carrying query
/// parameters masked; bodies are not logged), to which this plugin's names are added.
///
/// Config: `{"name": "log", "redactHeaders": ["X-Api-Key"], "redactQuery": ["sig"],
/// "headers": true}` (`headers`: also log the request's header fields, redacted; default false).
/// A client whose config has `verifyTLS: false` makes each of its log plugins write one
/// `warning: verifyTLS is false: ...` line when it is created.
public struct LoggingPlugin: Plugin {
    public let name = "log"
    /// The names this plugin adds to the client's redactor (see ``secretNames``).
    public let redactor: Redactor
    /// Whether request header fields are logged (redacted).
    public let logHeaders: Bool
    let sink: @Sendable (String) -> Void

    /// A logger writing to `sink` (nil: stderr, prefixed `gatewire: `).
    public init(redactor: Redactor = Redactor(), logHeaders: Bool = false, sink: (@Sendable (String) -> Void)? = nil) {
        self.redactor = redactor
        self.logHeaders = logHeaders
        self.sink = sink ?? { Diagnostics.report($0) }
    }

    /// The redactor's names: the client hides them everywhere, not only in this log.
    public var secretNames: (headers: [String], queryParameters: [String]) {
        (redactor.headers.sorted(), redactor.queryParameters.sorted())
    }

    public func willSend(_ request: HTTPRequest, context: PluginContext) {
        let redactor = context.redactor  // the client's: this plugin's names, the defaults, every plugin's
        var line = "[call \(context.callID)] -> \(request.method.rawValue) \(redactor.url(request.url)) (attempt \(context.attempt))"
        if logHeaders {
            line += " " + request.headers.map { redactor.header($0.name, $0.value) }.joined(separator: "; ")
        }
        sink(line)
    }

    public func didReceive(_ attempt: Attempt, response: HTTPResponse?, context: PluginContext) {
        let outcome = attempt.errorKind.map { "\($0) (no response)" } ?? "\(attempt.status)"
        let milliseconds = Int((attempt.duration * 1000).rounded())
        sink("[call \(context.callID)] <- \(outcome) in \(milliseconds) ms (attempt \(attempt.number))")
    }

    public func process(_ result: Result<Response, GatewireError>, context: PluginContext)
        -> Result<Response, GatewireError>
    {
        switch result {
        case .success(let response):
            sink("[call \(context.callID)] done: \(response.status) after \(response.attempts.count) attempt(s)")
        case .failure(let error):
            sink("[call \(context.callID)] failed: \(error.kind) status \(error.status) after \(error.attempts.count) attempt(s): \(context.redactor.url(error.message))")
        }
        return result
    }
}
