/// One stored response (RFC 9111 section 3) with what its freshness and its Vary key need.
struct CachedResponse {
    /// The request URL it answers (GET): the served response's effective URL. Not stored
    /// in a cache folder (it may hold a secret query parameter): ``CacheKey`` gives it back.
    let url: String
    var status: Int
    var headers: HTTPHeaders
    var body: [UInt8]
    var httpVersion: String
    /// The request's values of the fields its `Vary` names (lower-case names), as
    /// ``varyDigest(_:)`` of the value (nil: absent), in the order `Vary` lists them
    /// (section 4.1): a `Vary: Authorization` or `Vary: Cookie` keeps no credential in clear.
    var varyValues: [(name: String, digest: String?)]
    /// When the request was sent and the response received (wall clock, seconds since the
    /// Unix epoch): section 4.2.3's `request_time` and `response_time`.
    var requestTime: Double
    var responseTime: Double

    /// The bytes the entry counts against ``HTTPCacheSettings/maxBytes``: the body and the
    /// header fields' text.
    var size: Int {
        body.count + headers.reduce(url.utf8.count) { $0 + $1.name.utf8.count + $1.value.utf8.count + 4 }
    }

    /// The Vary key of a request: the values of the fields `names` lists, as digests.
    static func varyValues(of request: HTTPHeaders, names: [String]) -> [(name: String, digest: String?)] {
        names.map { ($0, varyDigest(request.values(for: $0).joinedValue)) }
    }

    /// How a Vary field's value is kept: the hex SHA-256 of the value (several field lines
    /// joined with ", ", RFC 9110 section 5.3), nil for an absent field.
    static func varyDigest(_ value: String?) -> String? {
        value.map { CacheKey.sha256Hex(Array($0.utf8)) }
    }

    /// Its freshness lifetime (section 4.2.1): `max-age`, else `Expires` minus `Date` (an
    /// invalid `Expires` is in the past), else 0: heuristic freshness is off (section 4.2.2
    /// allows it; the client does not guess). `s-maxage` is for shared caches and ignored.
    var freshnessLifetime: Double {
        let control = CacheControl(headers)
        if let maxAge = control.seconds("max-age") { return maxAge }
        if let expires = headers["Expires"] {
            guard let expiry = HTTPDate.parse(expires, now: responseTime) else { return 0 }
            return expiry - (headers["Date"].flatMap { HTTPDate.parse($0, now: responseTime) } ?? responseTime)
        }
        return 0
    }

    /// Its age at `now` (section 4.2.3).
    func currentAge(now: Double) -> Double {
        let date = headers["Date"].flatMap { HTTPDate.parse($0, now: responseTime) } ?? responseTime
        let ageValue = headers["Age"].flatMap { Double($0.utf8.allSatisfy { $0 >= 0x30 && $0 <= 0x39 } ? $0 : "") } ?? 0
        let apparentAge = max(0, responseTime - date)
        let correctedAgeValue = ageValue + (responseTime - requestTime)
        return max(apparentAge, correctedAgeValue) + (now - responseTime)
    }

    /// Whether it may be served without asking the server (section 4.2): fresh, and no
    /// `no-cache` in the response (section 5.2.2.4: always revalidate).
    func isFresh(now: Double) -> Bool {
        !CacheControl(headers).has("no-cache") && freshnessLifetime > currentAge(now: now)
    }

    /// Whether `request` selects this response (section 4.1): each field `Vary` named has
    /// the same value (compared after trimming) or is absent in both.
    func matches(_ request: HTTPHeaders) -> Bool {
        varyValues.allSatisfy { Self.varyDigest(request.values(for: $0.name).joinedValue) == $0.digest }
    }

    /// The validators of a conditional request (section 4.3.1): `If-None-Match` from the
    /// ETag, `If-Modified-Since` from Last-Modified; empty when it has neither.
    var conditionalFields: [(name: String, value: String)] {
        var fields: [(name: String, value: String)] = []
        if let etag = headers["ETag"] { fields.append(("If-None-Match", etag)) }
        if let modified = headers["Last-Modified"] { fields.append(("If-Modified-Since", modified)) }
        return fields
    }

    /// The entry after a 304 (section 4.3.4): each field of `notModified` replaces the
    /// stored ones of its name, but the framing fields that describe the 304 itself.
    mutating func freshen(with notModified: HTTPHeaders, requestTime: Double, responseTime: Double) {
        let kept: Set<String> = ["content-length", "transfer-encoding", "connection", "keep-alive", "content-encoding"]
        var replaced: Set<String> = []
        for field in notModified where !kept.contains(field.name.lowercased()) {
            // The first field of a name drops the stored ones; later ones of it are added.
            if replaced.insert(field.name.lowercased()).inserted { headers.remove(field.name) }
            headers.add(field.name, field.value)
        }
        self.requestTime = requestTime
        self.responseTime = responseTime
    }

    /// The response a call gets from this entry, as if it came from `url` now.
    var response: HTTPResponse {
        HTTPResponse(status: status, headers: headers, body: body, effectiveURL: url, httpVersion: httpVersion)
    }
}

extension Array where Element == String {
    /// Several field lines of one name as one value (RFC 9110 section 5.3), nil for none.
    fileprivate var joinedValue: String? { isEmpty ? nil : joined(separator: ", ") }
}
