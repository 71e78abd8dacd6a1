/// A step of the request/response pipeline: adapts each attempt's request before it is
/// sent and sees each attempt's outcome (auth, signing, logging, metrics).
///
/// Order (an onion, as OkHttp's interceptors): the request-side hooks ``prepare(_:context:)``
/// and ``willSend(_:context:)`` run in registration order, the response-side hooks
/// ``didReceive(_:response:context:)`` and ``process(_:context:)`` in reverse, so the first
/// plugin registered sees the request first and the result last. `prepare`, `willSend` and
/// `didReceive` run for every attempt, `process` once per call on its final result. All run
/// on the client's event-loop thread; they must not block. Every hook has a no-op default.
public protocol Plugin: Sendable {
    /// The plugin's name in messages (default: its type name).
    var name: String { get }

    /// Names of the headers and query parameters this plugin fills with secrets (an API key,
    /// a token). The client redacts them in every log line and error message (default: none).
    var secretNames: (headers: [String], queryParameters: [String]) { get }

    /// Adapts `request` (headers, URL, body) before this attempt is sent. The request is
    /// built afresh for every attempt, so changes never pile up across retries.
    /// - Throws: any error to fail the call with kind `plugin`; nothing is sent. A header
    ///   field it leaves that `HTTPHeaders/fieldProblem(name:value:)` rejects (RFC 9110
    ///   sections 5.1 and 5.5: a control character, a name that is not a token or is a framing
    ///   field) fails the call the same way.
    func prepare(_ request: inout HTTPRequest, context: PluginContext) throws

    /// Sees the outcome of one attempt: `response` is nil when the transport failed
    /// (`attempt.errorKind` says how).
    func didReceive(_ attempt: Attempt, response: HTTPResponse?, context: PluginContext)

    /// Sees the attempt's request exactly as it goes on the wire, after every plugin's
    /// `prepare` (logging, metrics). Runs for every attempt.
    func willSend(_ request: HTTPRequest, context: PluginContext)

    /// Sees the call's final result once, before the failure observers and the completion,
    /// and may replace it: e.g. turn a 2xx `{"ok": false, "error": "..."}` body into a
    /// failure (``Response/failure(_:message:errorObjects:)``, or the built-in `BodyErrorsPlugin`), or a
    /// failure into a success.
    func process(_ result: Result<Response, GatewireError>, context: PluginContext) -> Result<Response, GatewireError>
}

extension Plugin {
    /// None.
    public var secretNames: (headers: [String], queryParameters: [String]) { ([], []) }

    /// The type's name, e.g. `Signer`.
    public var name: String { String(describing: type(of: self)) }

    /// Does nothing.
    public func prepare(_ request: inout HTTPRequest, context: PluginContext) throws {}
    /// Does nothing.
    public func didReceive(_ attempt: Attempt, response: HTTPResponse?, context: PluginContext) {}
    /// Does nothing.
    public func willSend(_ request: HTTPRequest, context: PluginContext) {}
    /// Returns `result` unchanged.
    public func process(_ result: Result<Response, GatewireError>, context: PluginContext)
        -> Result<Response, GatewireError> { result }
}

/// What a plugin knows about the call it is part of.
public struct PluginContext: Sendable {
    /// The call's method.
    public let method: HTTPMethod
    /// The call's path relative to the base URL.
    public let path: String
    /// The route name, when the call was made through a route.
    public let route: String?
    /// The attempt number, 1 for the first (in ``Plugin/process(_:context:)``: the number of
    /// attempts made, 0 when nothing was sent).
    public let attempt: Int
    /// Identifies the call within its client (1, 2, ...), the same for all its attempts.
    public var callID: UInt64 = 0
    /// Hides the client's secrets: the default names plus every plugin's ``Plugin/secretNames``.
    public var redactor = Redactor.standard
}
