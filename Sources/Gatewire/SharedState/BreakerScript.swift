import GatewireRedis

/// The Lua script every shared breaker decision runs in Redis, and its reply. One script,
/// one `EVALSHA` per operation (loaded again on `NOSCRIPT`), so that each update is atomic
/// and every time it compares is Redis's own (`TIME`), never a client's: clients whose
/// clocks disagree by minutes still agree on when a break ends (pybreaker's `opened_at`,
/// compared with each client's clock, is what this avoids).
///
/// Keys (both in one hash slot: ``SharedCircuitBreaker`` tags them with the host and policy):
/// - `KEYS[1]`, the state, a hash: `open` (when the break ends, Redis milliseconds; absent or
///   0 when closed) and, while closed, the window's buckets, `n<b>` (outcomes) and `f<b>`
///   (failures) of bucket `b` (`floor(now / width)`, `width` a tenth of `samplingDuration`).
///   It expires `samplingDuration + breakDuration + 1 s` after its last write.
/// - `KEYS[2]`, the trial's lease: the token of the client running the half-open trial,
///   set only if absent, expiring after `breakDuration` (so a client that dies with the trial
///   holds the fleet back for one break at most, and no second trial starts within one break).
///
/// Arguments: `op`, `failureRatio`, `minimumThroughput`, `samplingDuration` and
/// `breakDuration` (milliseconds), the fleet's channel (``BreakerNews``), then the operation's own:
/// - `record failures total`: adds a batch of outcomes to the current bucket while closed,
///   drops buckets older than the window, and opens the breaker when the window's outcomes
///   reach `minimumThroughput` and its failures `failureRatio` of them. Counts sent while
///   the breaker is open or half-open are ignored (they changed nothing in process either).
/// - `claim token`: after the break, takes the trial's lease if nobody holds it.
/// - `trial token outcome` (`failure`, `success` or `void`): the lease holder's trial ended;
///   a failure opens for another break, a success closes with an empty window, a void (the
///   trial was cancelled) gives the lease back. Another's token changes nothing.
///
/// Reply: `{code, ms, announce}`: code 0 closed, 1 open (`ms` until the break ends, 0 when
/// it has: claim the trial), 2 the trial is the caller's (`ms`: the lease), 3 another
/// client runs it (`ms` left on its lease); `announce` is 1 for the one caller whose
/// operation made the transition closed->open or half-open->closed (the script is atomic,
/// so exactly one caller sees each: the fleet announces it once, as Stoplight's `HSETNX`).
///
/// Each opening (closed to open, half-open to open) and each close after a trial is also
/// `PUBLISH`ed on the channel (``BreakerNews``), so that the fleet learns it at once.
enum BreakerScript {
    static let source = """
        local time = redis.call('TIME')
        local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
        local state, lease = KEYS[1], KEYS[2]
        local op = ARGV[1]
        local ratio, minimum = tonumber(ARGV[2]), tonumber(ARGV[3])
        local sampling, pause = tonumber(ARGV[4]), tonumber(ARGV[5])
        local channel = ARGV[6]
        local buckets = 10
        local width = math.max(1, math.ceil(sampling / buckets))
        local keep = sampling + pause + 1000

        local function open()
          redis.call('DEL', state)
          redis.call('HSET', state, 'open', now + pause)
          redis.call('PEXPIRE', state, keep)
          redis.call('PUBLISH', channel, 'open ' .. pause .. ' ' .. state)
        end

        local function current()
          local ends = tonumber(redis.call('HGET', state, 'open') or '0')
          if ends == 0 then return {0, 0} end
          if ends > now then return {1, ends - now} end
          local left = redis.call('PTTL', lease)
          if left > 0 then return {3, left} end
          return {1, 0}
        end

        if op == 'record' then
          local s = current()
          if s[1] ~= 0 then return {s[1], s[2], 0} end
          local bucket = math.floor(now / width)
          redis.call('HINCRBY', state, 'n' .. bucket, ARGV[8])
          if tonumber(ARGV[7]) > 0 then redis.call('HINCRBY', state, 'f' .. bucket, ARGV[7]) end
          local fields = redis.call('HGETALL', state)
          local failures, total = 0, 0
          for i = 1, #fields, 2 do
            local b = tonumber(string.sub(fields[i], 2))
            if b then
              if b <= bucket - buckets then
                redis.call('HDEL', state, fields[i])
              elseif string.sub(fields[i], 1, 1) == 'f' then
                failures = failures + tonumber(fields[i + 1])
              else
                total = total + tonumber(fields[i + 1])
              end
            end
          end
          if total >= minimum and failures > 0 and failures >= ratio * total then
            open()
            return {1, pause, 1}
          end
          redis.call('PEXPIRE', state, keep)
          return {0, 0, 0}
        elseif op == 'claim' then
          local s = current()
          if s[1] == 1 and s[2] == 0 then
            if redis.call('SET', lease, ARGV[7], 'NX', 'PX', pause) then
              redis.call('PEXPIRE', state, keep)
              return {2, pause, 0}
            end
            return {3, redis.call('PTTL', lease), 0}
          end
          return {s[1], s[2], 0}
        elseif op == 'trial' then
          if redis.call('GET', lease) ~= ARGV[7] then
            local s = current()
            return {s[1], s[2], 0}
          end
          redis.call('DEL', lease)
          if ARGV[8] == 'failure' then
            open()
            return {1, pause, 0}
          elseif ARGV[8] == 'success' then
            redis.call('DEL', state)
            redis.call('PUBLISH', channel, 'closed ' .. state)
            return {0, 0, 1}
          end
          return {1, 0, 0}
        end
        return redis.error_reply('ERR unknown breaker operation ' .. tostring(op))
        """

    static let script = RedisScript(source)

    /// What the script answered: the breaker's state as the caller should now know it.
    struct Reply: Equatable {
        enum State: Equatable {
            case closed
            /// Open for `left` more seconds (0: the break is over, the trial is free).
            case open(left: Double)
            /// The caller holds the trial's lease for `lease` seconds.
            case trialGranted(lease: Double)
            /// Another client runs the trial; its lease ends in `left` seconds.
            case trialElsewhere(left: Double)
        }

        let state: State
        /// Whether this operation made the transition the fleet announces once.
        let announce: Bool

        /// Reads `{code, ms, announce}`; nil for any other shape (an error reply included).
        init?(_ reply: RedisReply) {
            guard case let .array(fields) = reply, fields.count == 3,
                  case let .integer(code) = fields[0], case let .integer(ms) = fields[1],
                  case let .integer(announce) = fields[2] else { return nil }
            let seconds = Double(max(0, ms)) / 1000
            switch code {
            case 0: state = .closed
            case 1: state = .open(left: seconds)
            case 2: state = .trialGranted(lease: seconds)
            case 3: state = .trialElsewhere(left: seconds)
            default: return nil
            }
            self.announce = announce == 1
        }
    }
}
