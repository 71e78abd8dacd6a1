/// A client's HTTP cache (RFC 9111), the pipeline stage between the plugins' `prepare` and
/// the transport. Loop thread only (the state needs no lock).
///
/// GET only: a fresh stored response is the call's response without a request; a stale one
/// with a validator is revalidated (`If-None-Match`, `If-Modified-Since`) and a 304 turns
/// into the stored response with the 304's header fields; any other answer replaces it. A
/// 2xx or 3xx to an unsafe method drops the stored responses of its URL (section 4.4).
///
/// Who may be served what: a response is only ever served to a request carrying the same
/// credentials as the request it answered (``CacheKey``: the secret header fields, the jar's
/// cookies for the URL, the URL with its query). This is stricter than RFC 9111 for a shared
/// cache, which may give a response to an `Authorization` request marked `public`,
/// `must-revalidate` or `s-maxage` to anyone (section 3.5): in a gateway client that is one
/// caller's data served to another. The memory cache of one client is a private cache
/// (section 5.2.2.7: `private` responses are kept, in their credentials' partition). A
/// `cache.directory` may be shared by clients of other users and processes, so it is a shared
/// cache: a `private` response is kept there only in the partition of a request that carried
/// credentials, never in the anonymous one.
///
/// What is kept (section 3): no `no-store` in request or response; a response to a request
/// with `Authorization` only with `public`, `must-revalidate` or `s-maxage` (section 3.5);
/// not `Vary: *`; a status cacheable by default (RFC 9110 section 15.1) or one with explicit
/// freshness; and, since heuristic freshness is off, only a response that is fresh for a
/// while or has a validator. `Set-Cookie` fields are not kept (the jar took them when the
/// response arrived; replayed, they would set them again), and a response with another
/// secret header field (the client's ``Redactor``) is not kept at all.
/// One response per URL and partition: a new variant (``CachedResponse/matches(_:)``)
/// replaces the old.
final class HTTPCache: @unchecked Sendable {
    /// What the cache makes of an attempt's request.
    enum Lookup {
        /// The cache is not used for this request (another method, `no-store`, or the
        /// caller's own conditional fields): nothing is served or stored.
        case bypass
        /// Nothing usable is stored under the key; the response may be kept there.
        case miss(CacheKey)
        /// A fresh response: the call's, with no request sent.
        case fresh(HTTPResponse)
        /// A stale response whose validators the request now carries.
        case revalidate(CachedResponse, CacheKey)
    }

    private let store: any CacheStore
    /// The client's secret names: which header fields partition the cache.
    private let redactor: Redactor
    /// Whether the store is a folder other clients may share (a shared cache, section 3.5).
    private let shared: Bool

    init(settings: HTTPCacheSettings, redactor: Redactor) {
        self.redactor = redactor
        if let directory = settings.directory {
            store = DiskCacheStore(directory: directory, maxBytes: settings.maxBytes)
            shared = true
        } else {
            store = MemoryCacheStore(maxBytes: settings.maxBytes)
            shared = false
        }
    }

    /// Looks `request` up at wall-clock time `now` (seconds since the epoch), adding the
    /// conditional fields for a revalidation. `jarCookies` lists the cookies of the client's
    /// jar (nil: it has none); it is read only for a GET the cache may serve. A stored body
    /// longer than `maxBodyBytes` (the call's `maxResponseBytes`) is not served.
    func lookup(_ request: inout HTTPRequest, jarCookies: () -> [Cookie]?, maxBodyBytes: Int, now: Double) -> Lookup {
        guard request.method == .get else { return .bypass }
        let control = CacheControl(request.headers)
        let conditional = ["If-None-Match", "If-Modified-Since", "If-Match", "If-Unmodified-Since", "If-Range"]
        if control.has("no-store") || conditional.contains(where: request.headers.contains) { return .bypass }
        var cookies = jarCookies() ?? []
        // A URL libcurl cannot parse counts every cookie of the jar: finer, never shared.
        if !cookies.isEmpty, let host = URLOrigin(request.url)?.host { cookies.removeAll { !$0.mayBeSent(toHost: host) } }
        let key = CacheKey(request, redactor: redactor, jarCookies: cookies)
        guard let entry = store.entry(for: key, maxBodyBytes: maxBodyBytes), entry.matches(request.headers) else {
            return .miss(key)
        }
        // The request's own limits (section 5.2.1): no-cache, or an age above its max-age.
        let noCache = control.has("no-cache") || request.headers["Pragma"] == "no-cache"
        let ageAllowed = control.seconds("max-age").map { entry.currentAge(now: now) <= $0 } ?? true
        if !noCache, ageAllowed, entry.isFresh(now: now) { return .fresh(entry.response) }
        let validators = entry.conditionalFields
        guard !validators.isEmpty else { return .miss(key) }
        for field in validators { request.headers.set(field.name, field.value) }
        return .revalidate(entry, key)
    }

    /// The response of an attempt whose `lookup` was `lookup`, sent at `requestTime` and
    /// received now (wall clock); `direct`: no redirect was followed (a redirected answer
    /// is not the URL's and is not kept). Returns the call's response: the stored one after
    /// a 304 to a revalidation (`revalidated` true), else `response` itself, kept if it may be.
    func received(_ response: HTTPResponse, to request: HTTPRequest, lookup: Lookup, requestTime: Double,
                  direct: Bool) -> (response: HTTPResponse, revalidated: Bool) {
        let now = WallClock.now()
        if !request.method.isSafe {
            if response.status < 400 {
                store.removeAll(urlDigest: CacheKey.urlDigest(of: request.url))
            }
            return (response, false)
        }
        switch lookup {
        case .bypass, .fresh:
            return (response, false)
        case .revalidate(var entry, let key) where response.status == 304 && direct:
            entry.freshen(with: Self.withoutSetCookie(response.headers), requestTime: requestTime, responseTime: now)
            store.store(entry, for: key)
            return (entry.response, true)
        case .revalidate(_, let key), .miss(let key):
            if direct, mayStore(response, for: request, key: key) {
                let vary = response.headers.values(for: "Vary").flatMap { $0.split(separator: ",") }
                    .map { $0.trimmingSpaces.lowercased() }.filter { !$0.isEmpty }
                store.store(CachedResponse(url: request.url, status: response.status,
                                           headers: Self.withoutSetCookie(response.headers),
                                           body: response.body, httpVersion: response.httpVersion,
                                           varyValues: CachedResponse.varyValues(of: request.headers, names: vary),
                                           requestTime: requestTime, responseTime: now),
                            for: key)
            }
            return (response, false)
        }
    }

    /// `headers` without their `Set-Cookie` fields: what a stored entry keeps.
    private static func withoutSetCookie(_ headers: HTTPHeaders) -> HTTPHeaders {
        var kept = headers
        kept.remove("Set-Cookie")
        return kept
    }

    /// The statuses a cache may keep without explicit freshness (RFC 9110 section 15.1).
    private static let cacheableByDefault: Set<Int> = [200, 203, 204, 300, 301, 308, 404, 405, 410, 414, 501]

    /// Whether `response` to the GET `request`, whose key is `key`, may be kept (see the
    /// type's comment).
    func mayStore(_ response: HTTPResponse, for request: HTTPRequest, key: CacheKey) -> Bool {
        let control = CacheControl(response.headers)
        if control.has("no-store") || CacheControl(request.headers).has("no-store") { return false }
        if request.headers.contains("Authorization"),
           !(control.has("public") || control.has("must-revalidate") || control.has("s-maxage")) { return false }
        if shared, control.has("private"), !key.hasCredentials { return false }
        if response.headers.contains(where: { redactor.isSecretHeader($0.name) && $0.name.lowercased() != "set-cookie" }) {
            return false
        }
        if response.headers.values(for: "Vary").contains(where: { $0.contains("*") }) { return false }
        let explicit = control.has("max-age") || response.headers.contains("Expires")
        guard Self.cacheableByDefault.contains(response.status) || (explicit && response.status != 206 && response.status != 304),
              (100...599).contains(response.status), response.status >= 200 else { return false }
        return explicit || response.headers.contains("ETag") || response.headers.contains("Last-Modified")
    }
}

extension HTTPMethod {
    /// GET, HEAD, OPTIONS and TRACE (RFC 9110 section 9.2.1).
    fileprivate var isSafe: Bool { self == .get || self == .head || self == .options || self == .trace }
}
