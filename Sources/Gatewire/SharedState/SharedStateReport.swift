import GatewireRedis

/// What a shared store holds under one key prefix, as JSON Lines (`gatewire state`,
/// ``Client/sharedState(_:)``): one object per circuit breaker, rate limit and pause, with
/// every time a duration from Redis's own clock (`TIME`, read in the same script), so that
/// the report means the same whichever machine prints it.
///
/// One script lists the keys (`SCAN` with `MATCH prefix*`, escaped) and reads each with its
/// `PTTL`: one round trip, atomic, per server. A cluster's keys are spread over its primaries
/// (each holds its own slots'), so the script runs on every primary and the report merges
/// their lines, each primary's durations from its own clock.
///
/// Lines (times in seconds, rounded to the millisecond and written in the time format,
/// ``JSONValue/timeSignificantDigits``, so `35.47`, never `35.469999999999999`; `policy` is
/// the key's 16 hex digits of the policy's values):
/// - `{"type": "circuit_breaker", "host", "policy", "state": "closed", "outcomes", "failures"}`
///   (the window's counts), `"state": "open", "for": s` (until the break ends; 0: the trial
///   is free), with `"trial": s` while a client holds the trial's lease;
/// - `{"type": "rate_limit", "scope": "host" | "route", "name", "policy", "ahead": s}`: how
///   far the limit's TAT is past now (0: a whole burst is free);
/// - `{"type": "pause", "scope", "name", "policy", "for": s}`: a `Retry-After` pause.
/// Keys of another shape under the prefix are listed as `{"type": "unknown", "key"}`.
package enum SharedStateReport {
    static let source = """
        local time = redis.call('TIME')
        local out = {tostring(tonumber(time[1]) * 1000000 + tonumber(time[2]))}
        local cursor = '0'
        repeat
          local page = redis.call('SCAN', cursor, 'MATCH', ARGV[1], 'COUNT', 1000)
          cursor = page[1]
          for _, key in ipairs(page[2]) do
            local kind = redis.call('TYPE', key).ok
            local entry = {key, redis.call('PTTL', key)}
            if kind == 'hash' then
              local fields = redis.call('HGETALL', key)
              for i = 1, #fields do entry[#entry + 1] = fields[i] end
            elseif kind == 'string' then
              entry[#entry + 1] = redis.call('GET', key)
            end
            out[#out + 1] = entry
          end
        until cursor == '0'
        return out
        """

    static let script = RedisScript(source)

    /// The `MATCH` pattern of every key under `prefix`: its glob characters escaped.
    static func pattern(prefix: String) -> String {
        var escaped = ""
        for character in prefix {
            if "*?[]\\".contains(character) { escaped.append("\\") }
            escaped.append(character)
        }
        return escaped + "*"
    }

    /// The report's lines from the script's replies (one per server: one, or a cluster's
    /// primaries), merged and sorted by key.
    static func lines(_ entries: [[(key: String, line: String)]]) -> [String] {
        entries.joined().sorted { $0.key < $1.key }.map(\.line)
    }

    /// One server's keys and lines from the script's reply; nil for a reply of another shape.
    static func entries(_ reply: RedisReply, prefix: String) -> [(key: String, line: String)]? {
        guard case let .array(items) = reply, case let .bulk(nowText)? = items.first,
              let now = Double(String(decoding: nowText, as: UTF8.self)) else { return nil }
        var entries: [(key: String, line: String)] = []
        for item in items.dropFirst() {
            guard case let .array(fields) = item, fields.count >= 2, case let .bulk(keyBytes) = fields[0],
                  case let .integer(ttl) = fields[1] else { return nil }
            let key = String(decoding: keyBytes, as: UTF8.self)
            let values = fields.dropFirst(2).map { field -> String in
                if case let .bulk(bytes) = field { return String(decoding: bytes, as: UTF8.self) }
                return ""
            }
            entries.append((key, line(key: key, ttl: ttl, values: Array(values), now: now, prefix: prefix)
                .serializedTimes()))
        }
        return entries
    }

    /// One key's object (see the type's lines).
    private static func line(key: String, ttl: Int64, values: [String], now: Double, prefix: String) -> JSONValue {
        let object = JSONValue.object()
        // `{name}:suffix` after the prefix; the name's parts are split by `|`.
        let body = key.dropFirst(prefix.count)
        guard body.hasPrefix("{"), let close = body.lastIndex(of: "}") else { return unknown(key, object) }
        let name = body[body.index(after: body.startIndex)..<close]
        let suffix = body[body.index(after: close)...]
        var parts = name.split(separator: "|", omittingEmptySubsequences: false).map(String.init)
        let seconds = { (value: Double) in JSONValue.number((max(0, value) * 1000).rounded() / 1000) }
        if parts.first == "rate", parts.count >= 4 {
            parts.removeFirst()
            let policy = parts.removeLast()
            let scope = parts.removeFirst()
            object.set("type", .string(suffix == ":pause" ? "pause" : "rate_limit"))
            object.set("scope", .string(scope))
            object.set("name", .string(parts.joined(separator: "|")))
            object.set("policy", .string(policy))
            if suffix == ":pause" {
                object.set("for", seconds(Double(ttl) / 1000))
            } else if suffix == ":tat", let tat = values.first.flatMap(Double.init) {
                object.set("ahead", seconds((tat - now) / 1_000_000))
            } else {
                return unknown(key, object)
            }
            return object
        }
        guard parts.count >= 2 else { return unknown(key, object) }
        let policy = parts.removeLast()
        object.set("type", .string("circuit_breaker"))
        object.set("host", .string(parts.joined(separator: "|")))
        object.set("policy", .string(policy))
        switch suffix {
        case ":state":
            var fields: [String: String] = [:]
            var index = 0
            while index + 1 < values.count {
                fields[values[index]] = values[index + 1]
                index += 2
            }
            if let ends = fields["open"].flatMap(Double.init), ends > 0 {
                object.set("state", .string("open"))
                object.set("for", seconds((ends - now / 1000) / 1000))
            } else {
                var outcomes: Int64 = 0
                var failures: Int64 = 0
                for (field, value) in fields {
                    if field.hasPrefix("n") { outcomes += Int64(value) ?? 0 }
                    if field.hasPrefix("f") { failures += Int64(value) ?? 0 }
                }
                object.set("state", .string("closed"))
                object.set("outcomes", .integer(outcomes))
                object.set("failures", .integer(failures))
            }
        case ":trial":
            object.set("state", .string("half_open"))
            object.set("trial", seconds(Double(ttl) / 1000))
        default:
            return unknown(key, object)
        }
        return object
    }

    private static func unknown(_ key: String, _ object: JSONValue) -> JSONValue {
        object.set("type", .string("unknown"))
        object.set("key", .string(key))
        return object
    }
}
