import GatewireRedis

/// The Lua script every shared rate limit runs in Redis, and its reply: GCRA (as redis-cell:
/// one theoretical arrival time per limit, ``GCRA``'s rule) handing out leases of slots, and
/// the limit's `Retry-After` pause. One `EVALSHA` per operation (loaded again on `NOSCRIPT`),
/// atomic, and every time it compares is Redis's own (`TIME`, in microseconds), never a
/// client's.
///
/// Keys (one hash slot: ``SharedRateLimiter`` tags them with the host or route and policy):
/// - `KEYS[1]`: the TAT (microseconds of Redis's clock), a string, expiring 1 s after the
///   TAT passes (an expired TAT and a TAT in the past mean the same: a full burst).
/// - `KEYS[2]`: the pause, present while it runs (`PX`: its length).
///
/// Arguments: `op`, the interval and the tolerance (microseconds, `per / requests` and
/// `burst` intervals), then the operation's own:
/// - `lease want maxWait` (maxWait in microseconds): takes up to `want` slots that conform
///   now; when none does, reserves the most slots, up to `want`, that conform together after
///   a wait of at most `maxWait` (all of them at its end: GCRA's bound holds for a block).
///   Nothing while paused; `want` 0 only asks whether the limit is paused.
/// - `return count`: gives back `count` leased slots that were not used (the TAT moves back,
///   never before now).
/// - `pause ms`: pauses the limit for `ms` milliseconds unless a longer pause runs.
///
/// Reply: `{granted, wait, paused}`: `granted` slots, usable after `wait` microseconds
/// (when `granted` is 0: the wait until one slot conforms); `paused`: milliseconds left of
/// the pause (0: none).
enum RateLimitScript {
    static let source = """
        local time = redis.call('TIME')
        local now = tonumber(time[1]) * 1000000 + tonumber(time[2])
        local tatKey, pauseKey = KEYS[1], KEYS[2]
        local op = ARGV[1]
        local interval, tolerance = tonumber(ARGV[2]), tonumber(ARGV[3])
        local dvt = tolerance + interval

        local function store(tat)
          redis.call('SET', tatKey, string.format('%.0f', tat), 'PX', math.floor((tat - now) / 1000) + 1000)
        end

        if op == 'pause' then
          local ms = tonumber(ARGV[4])
          if redis.call('PTTL', pauseKey) < ms then redis.call('SET', pauseKey, '1', 'PX', ms) end
          return {0, 0, ms}
        end
        if op == 'return' then
          local tat = tonumber(redis.call('GET', tatKey) or '0')
          if tat > now then store(math.max(now, tat - tonumber(ARGV[4]) * interval)) end
          return {0, 0, 0}
        end
        if op ~= 'lease' then
          return redis.error_reply('ERR unknown rate limit operation ' .. tostring(op))
        end
        local paused = redis.call('PTTL', pauseKey)
        if paused > 0 then return {0, 0, paused} end
        local want, maxWait = tonumber(ARGV[4]), tonumber(ARGV[5])
        if want < 1 then return {0, 0, 0} end
        local tat = math.max(tonumber(redis.call('GET', tatKey) or '0'), now)
        local granted, wait = math.min(want, math.floor((now + dvt - tat) / interval + 1e-9)), 0
        if granted < 1 then
          granted = math.min(want, math.floor((now + maxWait + dvt - tat) / interval + 1e-9))
          if granted < 1 then return {0, math.ceil(tat + interval - dvt - now), 0} end
          wait = tat + granted * interval - dvt - now
        end
        store(tat + granted * interval)
        return {granted, math.ceil(wait), 0}
        """

    static let script = RedisScript(source)

    /// What the script answered.
    struct Reply: Equatable {
        /// Slots leased to the caller.
        let granted: Int
        /// Seconds until the granted slots may be used; with none granted, until one slot conforms.
        let wait: Double
        /// Seconds left of the limit's pause (0: none).
        let paused: Double

        /// Reads `{granted, wait, paused}`; nil for any other shape (an error reply included).
        init?(_ reply: RedisReply) {
            guard case let .array(fields) = reply, fields.count == 3,
                  case let .integer(granted) = fields[0], case let .integer(wait) = fields[1],
                  case let .integer(paused) = fields[2], granted >= 0 else { return nil }
            self.granted = Int(granted)
            self.wait = Double(max(0, wait)) / 1_000_000
            self.paused = Double(max(0, paused)) / 1000
        }
    }
}
