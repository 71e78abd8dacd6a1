extension Client {
    /// What the config's `sharedState` store holds for this client's key prefix, whichever
    /// process wrote it: its circuit breakers, rate limits and `Retry-After` pauses, one JSON
    /// object per line (`SharedStateReport` gives each line's fields; times are seconds from
    /// Redis's clock). With a Redis Cluster every primary is read (each holds its own slots'
    /// keys) and their lines merged, sorted by key. `completion` runs once, on the client's
    /// event-loop thread.
    ///
    /// Fails with kind `invalidArgument` when the config has no `sharedState` (each process
    /// keeps its own state then), and with kind `network` when the store (or a primary of the
    /// cluster) does not answer within its `timeout`.
    public func sharedState(_ completion: @escaping @Sendable (Result<[String], GatewireError>) -> Void) {
        let core = core
        let accepted = core.loop.execute {
            guard let store = core.resilience.breakers as? RedisBreakerStore else {
                return completion(.failure(Self.stateFailure(.invalidArgument, "the config has no sharedState: "
                    + "each process keeps its breakers and rate limits in process")))
            }
            let prefix = store.settings.keyPrefix
            store.evaluateOnEveryServer(SharedStateReport.script,
                                        arguments: [Array(SharedStateReport.pattern(prefix: prefix).utf8)],
                                        parse: { SharedStateReport.entries($0, prefix: prefix) }) { entries in
                guard let lines = entries.map(SharedStateReport.lines) else {
                    return completion(.failure(Self.stateFailure(.network, "\(store.settings.serverDescription) did not answer "
                        + "within \(store.settings.timeout) s")))
                }
                completion(.success(lines))
            }
        }
        if !accepted { completion(.failure(Self.stateFailure(.cancelled, "the client was closed"))) }
    }

    /// A failure of ``sharedState(_:)``: no call, so no method or path of its own.
    private static func stateFailure(_ kind: ErrorKind, _ message: String) -> GatewireError {
        GatewireError(kind: kind, message: message, method: .get, path: "")
    }

    /// ``sharedState(_:)``, blocking the calling thread until it answers.
    /// - Throws: ``GatewireError`` as ``sharedState(_:)`` fails; kind `invalidArgument` at once
    ///   when called on the client's event-loop thread, where waiting would deadlock.
    public func sharedStateAndWait() throws(GatewireError) -> [String] {
        if let problem = Self.waitProblem(waitingOn: self) {
            throw GatewireError(kind: .invalidArgument, message: "sharedStateAndWait: \(problem)", method: .get, path: "")
        }
        let waiter = Waiter<Result<[String], GatewireError>>()
        sharedState { waiter.put($0) }
        return try waiter.wait().get()
    }
}
