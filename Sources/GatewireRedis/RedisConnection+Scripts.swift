import GatewireBase

extension RedisConnection {
    /// Runs `script` with `EVALSHA sha1 numkeys keys... arguments...`; when the server
    /// answers `NOSCRIPT` (restarted, `SCRIPT FLUSH`, a failover to a replica that never saw
    /// it), loads it with `SCRIPT LOAD` and runs `EVALSHA` once more, both pipelined at once.
    /// Any other reply, an error reply included, is the completion's. Loop thread only.
    /// - Parameters:
    ///   - keys: the keys the script touches (`KEYS[i]`), binary-safe.
    ///   - arguments: its other arguments (`ARGV[i]`), binary-safe.
    ///   - timeout: seconds for the whole exchange, the retry included (nil:
    ///     ``RedisConnectionOptions/commandTimeout``).
    ///   - completion: runs once, on the loop thread, as ``send(_:timeout:_:)``'s does.
    package func evalsha(_ script: RedisScript, keys: [[UInt8]], arguments: [[UInt8]], timeout: Double? = nil,
                         _ completion: @escaping RedisCompletion) {
        let evalsha = RedisCommand([Array("EVALSHA".utf8), Array(script.sha1.utf8), Array(String(keys.count).utf8)]
            + keys + arguments)
        let deadline = MonotonicClock.now() + (timeout ?? options.commandTimeout)
        send(evalsha, timeout: timeout) { [weak self] result in
            guard let self, case let .success(reply) = result, reply.errorCode == "NOSCRIPT" else { return completion(result) }
            let left = deadline - MonotonicClock.now()
            guard left > 0 else {
                return completion(.failure(RedisError(.timeout, "no reply from \(endpoint) within the script's timeout")))
            }
            // Both go out at once; EVALSHA's reply follows the load's (RESP keeps the order).
            // A load the server refused (a syntax error in the script) is the answer then,
            // not the second NOSCRIPT it causes.
            var refusedLoad: RedisReply?
            send(RedisCommand([Array("SCRIPT".utf8), Array("LOAD".utf8), script.source]), timeout: left) { load in
                if case let .success(reply) = load, reply.errorCode != nil { refusedLoad = reply }
            }
            send(evalsha, timeout: left) { retried in
                if let refusedLoad, case let .success(reply) = retried, reply.errorCode == "NOSCRIPT" {
                    return completion(.success(refusedLoad))
                }
                completion(retried)
            }
        }
    }
}
