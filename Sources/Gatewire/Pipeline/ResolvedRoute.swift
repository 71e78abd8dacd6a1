/// A configured route as every call of it needs it, built once per client: the route and,
/// when its path pattern has no `:name` parameter, the path and the absolute URL of a call
/// without parameters (most calls of such a route then build no string at all).
///
/// Immutable, shared by the client's calls (a class: a call holds one reference instead of
/// copying the whole ``Route``).
final class ResolvedRoute: Sendable {
    let route: Route
    /// The pattern with a leading "/" when it has no `:name` parameter, else nil.
    let staticPath: String?
    /// `urlPrefix` + ``staticPath``, or nil.
    let staticURL: String?
    /// The `url.template` of its calls' spans and metrics: the base URL's path (without its
    /// trailing "/") and the pattern as ``Telemetry/template(_:)`` writes it.
    let urlTemplate: String

    /// `urlPrefix`: the base URL without its trailing slashes.
    init(_ route: Route, urlPrefix: String) {
        self.route = route
        let pattern = route.pathPattern.hasPrefix("/") ? route.pathPattern : "/" + route.pathPattern
        staticPath = Router.hasParameters(pattern) ? nil : Router.encodingNonASCII(pattern)
        staticURL = staticPath.map { urlPrefix + $0 }
        let basePath = AbsoluteURL(urlPrefix)?.path ?? ""
        urlTemplate = (basePath.hasSuffix("/") ? String(basePath.dropLast()) : basePath) + Telemetry.template(route.pathPattern)
    }
}
