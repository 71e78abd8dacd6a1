import GatewireRedis

/// The Redis client a shared store runs its script on: one server (``RedisConnection``) or a
/// cluster (``RedisCluster``, which sends it to the primary of its keys' slot). Loop thread only.
protocol RedisScriptRunner: AnyObject {
    /// Runs `script` by `EVALSHA` (loading it on `NOSCRIPT`); `completion` runs once, on the
    /// loop thread, with the reply or why there is none (at once when the client knows).
    func evalsha(_ script: RedisScript, keys: [[UInt8]], arguments: [[UInt8]], timeout: Double?,
                 _ completion: @escaping RedisCompletion)
}

extension RedisConnection: RedisScriptRunner {}
extension RedisCluster: RedisScriptRunner {}
