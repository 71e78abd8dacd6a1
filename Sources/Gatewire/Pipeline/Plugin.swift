/// A step of the request/response pipeline: adapts each attempt's request before it is
/// sent and sees each attempt's outcome (auth, signing, logging, metrics).
///
/// Order (an onion, as OkHttp's interceptors): ``prepare(_:context:)`` runs in registration
/// order, ``didReceive(_:response:context:)`` in reverse. Both run on the client's event-loop
/// thread for every attempt; they must not block. Every hook has a no-op default.
public protocol Plugin: Sendable {
    /// The plugin's name in messages (default: its type name).
    var name: String { get }

    /// Adapts `request` (headers, URL, body) before this attempt is sent. The request is
    /// built afresh for every attempt, so changes never pile up across retries.
    /// - Throws: any error to fail the call with kind `plugin`; nothing is sent.
    func prepare(_ request: inout HTTPRequest, context: PluginContext) throws

    /// Sees the outcome of one attempt: `response` is nil when the transport failed
    /// (`attempt.errorKind` says how).
    func didReceive(_ attempt: Attempt, response: HTTPResponse?, context: PluginContext)
}

extension Plugin {
    /// The type's name, e.g. `Signer`.
    public var name: String { String(describing: type(of: self)) }

    /// Does nothing.
    public func prepare(_ request: inout HTTPRequest, context: PluginContext) throws {}
    /// Does nothing.
    public func didReceive(_ attempt: Attempt, response: HTTPResponse?, context: PluginContext) {}
}

/// What a plugin knows about the call it is part of.
public struct PluginContext: Sendable {
    /// The call's method.
    public let method: HTTPMethod
    /// The call's path relative to the base URL.
    public let path: String
    /// The route name, when the call was made through a route.
    public let route: String?
    /// The attempt number, 1 for the first.
    public let attempt: Int
}
