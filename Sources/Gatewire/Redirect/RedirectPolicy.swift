/// Whether and how a call follows redirects, decided hop by hop without I/O (the transport
/// never follows on its own: libcurl's `CURLOPT_FOLLOWLOCATION` is off and the call sends
/// each hop as a new transfer, see `decide(after:status:location:followed:secrets:)`).
///
/// Only 301, 302, 303, 307 and 308 with a `Location` are redirects (RFC 9110 section 15.4;
/// requests' `REDIRECT_STATI`); 300, 304, 305 and 306 are ordinary responses. Each hop:
/// - **Method and body** (RFC 9110 sections 15.4.2-15.4.9): 303 turns every method but HEAD
///   into GET without a body; 301 and 302 turn POST into GET without a body (the "historical
///   reasons" the RFC allows, as browsers, requests and curl do) and keep other methods; 307
///   and 308 keep method and body. A dropped body takes `Content-Type`, `Content-Encoding`,
///   `Content-Length` and `Transfer-Encoding` with it.
/// - **Origin** (RFC 6454: scheme, host, port): on any change, every credential-bearing header
///   is dropped (`secrets.headers`: `Authorization`, `Proxy-Authorization`, `Cookie`, the
///   auth plugins' headers, names configured as secret) with `Host`, and so are the secret
///   query parameters (`secrets.queryParameters`) from the next URL.
/// - **Refused** (the call fails with kind `redirect`, unless a response descriptor accepts
///   the redirect's status, see `Call`): https to http unless ``allowDowngrade``; a body
///   (307, 308) re-sent to another origin unless ``allowCrossOriginBody``; another origin
///   under ``Follow/sameOrigin``; hop ``maxRedirects`` + 1; a target that is not http(s);
///   every redirect under ``Follow/none``.
///
/// Compared with requests (`Session.should_strip_auth`, `rebuild_auth`, `rebuild_method`):
/// requests strips only `Authorization` (and re-adds netrc credentials), only when the host
/// changes or scheme or port do (keeping it on an http to https upgrade on the default ports),
/// follows https to http, keeps a 307/308 body for any host, and turns a 302 of any non-HEAD
/// method into GET. Compared with OkHttp (`RetryAndFollowUpInterceptor.buildRedirectRequest`):
/// OkHttp drops only `Authorization` when the connection could not be reused for the new URL
/// (scheme, host or port differ), follows https to http while `followSslRedirects` is true
/// (the default), and turns 300-303 of any method with a body (but PROPFIND) into GET.
/// Gatewire drops every secret, refuses downgrades and cross-origin bodies by default, and
/// keeps PUT/DELETE/PATCH on 301 and 302 as RFC 9110 says.
///
/// Plugins' `prepare` is not run again for a hop (as requests' session auth and OkHttp's
/// application interceptors): the hop re-sends the attempt's request as prepared, minus what
/// the origin rule drops, so an auth plugin cannot add its credential back for another
/// origin. A same-origin hop keeps the plugins' headers; a query parameter a plugin added
/// reaches the next URL only if the `Location` carries it. `willSend` sees every hop.
///
/// Set in the gateway config (`redirects`), per route, or per call; the default follows up
/// to 10 hops of any origin with the rules above.
public struct RedirectPolicy: Sendable, Equatable {
    /// Which redirects are followed.
    public enum Follow: String, Sendable, CaseIterable {
        /// None: a redirect is the call's response (see the type's "Refused").
        case none
        /// Only those to the same scheme, host and port.
        case sameOrigin
        /// Any http(s) target (within the rules above). The default.
        case any
    }

    /// Which redirects are followed; default ``Follow/any``.
    public var follow: Follow
    /// Hops followed per attempt at most, 0...50; default 10 (libcurl's and OkHttp's 20,
    /// requests' 30 are more than any API needs). Config key `max`.
    public var maxRedirects: Int
    /// Follow an https URL's redirect to http (credentials dropped, the body in clear text);
    /// default false.
    public var allowDowngrade: Bool
    /// Follow a 307 or 308 that re-sends a body to another origin; default false.
    public var allowCrossOriginBody: Bool

    /// The statuses that are redirects when they carry a `Location` (RFC 9110 section 15.4).
    package static let redirectStatuses: Set<Int> = [301, 302, 303, 307, 308]

    /// A policy; every parameter has the documented default.
    public init(follow: Follow = .any, maxRedirects: Int = 10, allowDowngrade: Bool = false,
                allowCrossOriginBody: Bool = false) {
        self.follow = follow
        self.maxRedirects = maxRedirects
        self.allowDowngrade = allowDowngrade
        self.allowCrossOriginBody = allowCrossOriginBody
    }

    /// What to do after `request` got `status` with `location` (the `Location` resolved
    /// against the request's URL, libcurl's `CURLINFO_REDIRECT_URL`), `followed` hops into
    /// the attempt. `secrets`: the client's redactor, whose header and query parameter names
    /// are the credentials dropped on an origin change. Pure: no I/O, no clock.
    package func decide(after request: HTTPRequest, status: Int, location: String?, followed: Int,
                       secrets: Redactor) -> RedirectDecision {
        // The range check first: every response of every call passes here.
        guard (301...308).contains(status), Self.redirectStatuses.contains(status), let location, !location.isEmpty else {
            return .final
        }
        guard follow != .none else { return .refuse("following redirects is off (redirects.follow is \"none\")") }
        guard followed < maxRedirects else { return .refuse("more than \(maxRedirects) redirects (redirects.max)") }
        guard let from = URLOrigin(request.url), let to = URLOrigin(location), ["http", "https"].contains(to.scheme) else {
            return .refuse("the target is not an http or https URL")
        }
        if from.scheme == "https", to.scheme == "http", !allowDowngrade {
            return .refuse("it would downgrade https to http (redirects.allowDowngrade is false)")
        }
        let crossOrigin = from != to
        if crossOrigin, follow == .sameOrigin {
            return .refuse("it leaves the origin \(from) (redirects.follow is \"sameOrigin\")")
        }
        var next = request
        next.url = location
        if status == 303 && request.method != .head || (status == 301 || status == 302) && request.method == .post {
            next.method = .get
            next.body = nil
            next.parts = nil
            for name in ["Content-Type", "Content-Encoding", "Content-Length", "Transfer-Encoding"] { next.headers.remove(name) }
        }
        guard crossOrigin else { return .follow(next) }
        if next.hasBody, !allowCrossOriginBody {
            return .refuse("a \(status) would re-send the \(next.method) body to another origin (\(to)) "
                + "(redirects.allowCrossOriginBody is false)")
        }
        for field in request.headers where field.name.lowercased() == "host" || secrets.headers.contains(field.name.lowercased()) {
            next.headers.remove(field.name)
        }
        next.url = URLOrigin.removingQueryParameters(secrets.queryParameters, from: location)
        return .follow(next)
    }
}
