/// A client's private HTTP cache (RFC 9111), the pipeline stage between the plugins'
/// `prepare` and the transport. Loop thread only (the state needs no lock).
///
/// GET only: a fresh stored response is the call's response without a request; a stale one
/// with a validator is revalidated (`If-None-Match`, `If-Modified-Since`) and a 304 turns
/// into the stored response with the 304's header fields; any other answer replaces it. A
/// 2xx or 3xx to an unsafe method drops the stored response of its URL (section 4.4).
/// What is kept (section 3): no `no-store` in request or response; a response to a request
/// with `Authorization` only with `public`, `must-revalidate` or `s-maxage` (section 3.5);
/// `private` is kept (this is a private cache, section 5.2.2.7); not `Vary: *`; a status
/// cacheable by default (RFC 9110 section 15.1) or one with explicit freshness; and, since
/// heuristic freshness is off, only a response that is fresh for a while or has a validator.
/// One response per URL: a new variant (``CachedResponse/matches(_:)``) replaces the old.
final class HTTPCache: @unchecked Sendable {
    /// What the cache makes of an attempt's request.
    enum Lookup {
        /// The cache is not used for this request (another method, `no-store`, or the
        /// caller's own conditional fields): nothing is served or stored.
        case bypass
        /// Nothing usable is stored; the response may be kept.
        case miss
        /// A fresh response: the call's, with no request sent.
        case fresh(HTTPResponse)
        /// A stale response whose validators the request now carries.
        case revalidate(CachedResponse)
    }

    private let store: any CacheStore

    init(settings: HTTPCacheSettings) {
        if let directory = settings.directory {
            store = DiskCacheStore(directory: directory, maxBytes: settings.maxBytes)
        } else {
            store = MemoryCacheStore(maxBytes: settings.maxBytes)
        }
    }

    /// Looks `request` up at wall-clock time `now` (seconds since the epoch), adding the
    /// conditional fields for a revalidation.
    func lookup(_ request: inout HTTPRequest, now: Double) -> Lookup {
        guard request.method == .get else { return .bypass }
        let control = CacheControl(request.headers)
        let conditional = ["If-None-Match", "If-Modified-Since", "If-Match", "If-Unmodified-Since", "If-Range"]
        if control.has("no-store") || conditional.contains(where: request.headers.contains) { return .bypass }
        guard let entry = store.entry(for: request.url), entry.matches(request.headers) else { return .miss }
        // The request's own limits (section 5.2.1): no-cache, or an age above its max-age.
        let noCache = control.has("no-cache") || request.headers["Pragma"] == "no-cache"
        let ageAllowed = control.seconds("max-age").map { entry.currentAge(now: now) <= $0 } ?? true
        if !noCache, ageAllowed, entry.isFresh(now: now) { return .fresh(entry.response) }
        let validators = entry.conditionalFields
        guard !validators.isEmpty else { return .miss }
        for field in validators { request.headers.set(field.name, field.value) }
        return .revalidate(entry)
    }

    /// The response of an attempt whose `lookup` was `lookup`, sent at `requestTime` and
    /// received now (wall clock); `direct`: no redirect was followed (a redirected answer
    /// is not the URL's and is not kept). Returns the call's response: the stored one after
    /// a 304 to a revalidation (`revalidated` true), else `response` itself, kept if it may be.
    func received(_ response: HTTPResponse, to request: HTTPRequest, lookup: Lookup, requestTime: Double,
                  direct: Bool) -> (response: HTTPResponse, revalidated: Bool) {
        let now = RetryPolicy.wallClock()
        if !request.method.isSafe {
            if response.status < 400 { store.remove(request.url) }
            return (response, false)
        }
        switch lookup {
        case .bypass, .fresh:
            return (response, false)
        case .revalidate(var entry) where response.status == 304 && direct:
            entry.freshen(with: response.headers, requestTime: requestTime, responseTime: now)
            store.store(entry)
            return (entry.response, true)
        case .revalidate, .miss:
            if direct, Self.mayStore(response, for: request) {
                let vary = response.headers.values(for: "Vary").flatMap { $0.split(separator: ",") }
                    .map { $0.trimmingSpaces.lowercased() }.filter { !$0.isEmpty }
                store.store(CachedResponse(url: request.url, status: response.status, headers: response.headers,
                                           body: response.body, httpVersion: response.httpVersion,
                                           varyValues: vary.map { name in
                                               let values = request.headers.values(for: name)
                                               return (name, values.isEmpty ? nil : values.joined(separator: ", "))
                                           },
                                           requestTime: requestTime, responseTime: now))
            }
            return (response, false)
        }
    }

    /// The statuses a cache may keep without explicit freshness (RFC 9110 section 15.1).
    private static let cacheableByDefault: Set<Int> = [200, 203, 204, 300, 301, 308, 404, 405, 410, 414, 501]

    /// Whether `response` to the GET `request` may be kept (section 3; see the type's comment).
    static func mayStore(_ response: HTTPResponse, for request: HTTPRequest) -> Bool {
        let control = CacheControl(response.headers)
        if control.has("no-store") || CacheControl(request.headers).has("no-store") { return false }
        if request.headers.contains("Authorization"),
           !(control.has("public") || control.has("must-revalidate") || control.has("s-maxage")) { return false }
        if response.headers.values(for: "Vary").contains(where: { $0.contains("*") }) { return false }
        let explicit = control.has("max-age") || response.headers.contains("Expires")
        guard cacheableByDefault.contains(response.status) || (explicit && response.status != 206 && response.status != 304),
              (100...599).contains(response.status), response.status >= 200 else { return false }
        return explicit || response.headers.contains("ETag") || response.headers.contains("Last-Modified")
    }
}

extension HTTPMethod {
    /// GET, HEAD, OPTIONS and TRACE (RFC 9110 section 9.2.1).
    fileprivate var isSafe: Bool { self == .get || self == .head || self == .options || self == .trace }
}
